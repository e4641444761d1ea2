"""The walker: ignore files, skip reasons, symlinks, determinism, bad roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import indexers.ignore_rules as ignore_rules
import indexers.walker as walker_mod
from helix.core.config import IndexSettings
from helix.core.errors import BadPathError
from helix.core.hashing import digest
from indexers.ignore_rules import compile_rules
from indexers.languages import classify
from indexers.walker import walk
from tests.index_fixtures import write


def paths(result: walker_mod.WalkResult) -> list[str]:
    return [item.record.path for item in result.files]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "src/app.py", "def main():\n    return 1\n")
    write(root, "src/build/out.py", "x = 1\n")
    write(root, "src/keep.log", "kept by negation\n")
    write(root, "src/debug.log", "ignored\n")
    write(root, "docs/guide.md", "# Guide\n")
    write(root, "docs/drafts/wip.md", "# WIP\n")
    write(root, "docs/.gitignore", "drafts/\n")
    write(root, "notes/private.txt", "hidden by helixignore\n")
    write(root, "notes/public.txt", "visible\n")
    write(root, ".gitignore", "*.log\n!src/keep.log\nbuild/\n")
    write(root, ".helixignore", "notes/private.txt\n")
    write(root, ".git/HEAD", "ref: refs/heads/main\n")
    write(root, ".git/config", "[core]\n")
    return root


def test_ignore_files_at_every_level(repo: Path) -> None:
    result = walk(repo, IndexSettings())
    assert paths(result) == [
        ".gitignore", ".helixignore", "docs/.gitignore", "docs/guide.md", "notes/public.txt",
        "src/app.py", "src/keep.log",
    ]
    assert result.skipped == {
        "ignored": ("docs/drafts/", "notes/private.txt", "src/build/", "src/debug.log"),
    }
    assert result.seen == len(result.files) + 4


def test_nested_gitignore_is_relative_to_its_directory(tmp_path: Path) -> None:
    write(tmp_path, "a/.gitignore", "/only_here.txt\n")
    write(tmp_path, "a/only_here.txt", "x\n")
    write(tmp_path, "a/b/only_here.txt", "y\n")
    write(tmp_path, "only_here.txt", "z\n")
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == ["a/.gitignore", "a/b/only_here.txt", "only_here.txt"]
    assert result.skipped == {"ignored": ("a/only_here.txt",)}


def test_deeper_ignore_file_can_reinclude(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.gen.py\n")
    write(tmp_path, "pkg/.gitignore", "!special.gen.py\n")
    write(tmp_path, "pkg/special.gen.py", "a = 1\n")
    write(tmp_path, "pkg/other.gen.py", "b = 1\n")
    result = walk(tmp_path, IndexSettings())
    assert "pkg/special.gen.py" in paths(result)
    assert result.skipped["ignored"] == ("pkg/other.gen.py",)


def test_records_hash_kind_and_language(repo: Path) -> None:
    result = walk(repo, IndexSettings())
    by_path = {item.record.path: item for item in result.files}
    app = by_path["src/app.py"]
    raw = (repo / "src/app.py").read_bytes()
    assert app.record.content_hash == digest(raw)
    assert app.record.size == len(raw)
    assert (app.record.kind, app.record.lang) == ("code", "python")
    assert app.text == raw.decode()
    assert (by_path["docs/guide.md"].record.kind, by_path["docs/guide.md"].record.lang) == (
        "doc", "markdown",
    )


def test_binary_large_and_secret_files_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, "logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    write(tmp_path, "big.txt", "x" * 2000)
    write(tmp_path, "small.txt", "x" * 100)
    write(tmp_path, ".env", "API_KEY=sk-secret\n")
    write(tmp_path, ".env.production", "API_KEY=sk-secret\n")
    write(tmp_path, "keys/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
    write(tmp_path, "keys/server.pem", "-----BEGIN CERTIFICATE-----\n")
    result = walk(tmp_path, IndexSettings(max_file_bytes=1000))
    assert paths(result) == ["small.txt"]
    assert result.skipped == {
        "binary": ("logo.png",),
        "secret": (".env", ".env.production", "keys/id_rsa", "keys/server.pem"),
        "too_large": ("big.txt",),
    }
    assert result.seen == 7


def test_secrets_can_be_included_when_asked(tmp_path: Path) -> None:
    write(tmp_path, ".env", "A=1\n")
    assert paths(walk(tmp_path, IndexSettings(skip_secrets=False))) == [".env"]


def test_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    write(tmp_path, "latin.txt", b"caf\xe9 au lait\n")
    result = walk(tmp_path, IndexSettings())
    (item,) = result.files
    assert item.text == "caf\ufffd au lait\n"
    assert item.record.content_hash == digest(b"caf\xe9 au lait\n")


def test_symlink_loop_terminates_and_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "pkg/mod.py", "x = 1\n")
    os.symlink("..", tmp_path / "pkg" / "parent")
    os.symlink(".", tmp_path / "self")
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == ["pkg/mod.py"]
    assert result.skipped == {"symlink_loop": ("pkg/parent/", "self/")}


def test_symlink_chain_loop_is_reported(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    result = walk(tmp_path, IndexSettings())
    assert result.files == ()
    assert result.skipped == {"symlink_loop": ("a", "b")}


def test_symlink_outside_root_is_skipped_and_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = write(tmp_path, "outside/secret.txt", "do not read\n")
    write(tmp_path, "outside/dir/x.txt", "nor this\n")
    root = tmp_path / "repo"
    write(root, "a.txt", "inside\n")
    os.symlink(outside, root / "link.txt")
    os.symlink(tmp_path / "outside" / "dir", root / "linkdir")
    opened: list[str] = []
    real_read = walker_mod.read_bytes

    def spy(path: str, limit: int, follow: bool) -> bytes:
        opened.append(path)
        return real_read(path, limit, follow)

    monkeypatch.setattr(walker_mod, "read_bytes", spy)
    result = walk(root, IndexSettings())
    assert paths(result) == ["a.txt"]
    assert result.skipped == {"symlink_outside": ("link.txt", "linkdir")}
    assert all(str(tmp_path / "outside") not in path for path in opened)


def test_symlink_inside_root_is_followed(tmp_path: Path) -> None:
    write(tmp_path, "real/mod.py", "x = 1\n")
    os.symlink("real/mod.py", tmp_path / "alias.py")
    os.symlink("real", tmp_path / "aliasdir")
    os.symlink("missing.py", tmp_path / "dangling.py")
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == ["alias.py", "aliasdir/mod.py", "real/mod.py"]
    assert result.skipped == {"vanished": ("dangling.py",)}


def test_file_vanishing_mid_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "a.py", "a = 1\n")
    write(tmp_path, "gone.py", "b = 1\n")
    real_read = walker_mod.read_bytes

    def flaky(path: str, limit: int, follow: bool) -> bytes:
        if path.endswith("gone.py"):
            raise FileNotFoundError(path)
        return real_read(path, limit, follow)

    monkeypatch.setattr(walker_mod, "read_bytes", flaky)
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == ["a.py"]
    assert result.skipped == {"vanished": ("gone.py",)}


def test_unreadable_file() -> None:
    # run as an unprivileged user (as root, whom no mode stops, in a child that drops to it)
    from unprivileged import as_nobody, open_dir

    root = open_dir()
    write(root, "open.txt", "x\n").chmod(0o644)
    write(root, "locked.txt", "x\n").chmod(0)
    skipped = as_nobody(lambda: walk(root, IndexSettings()).skipped)
    assert skipped == {"unreadable": ["locked.txt"]}


def test_unreadable_via_permission_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "locked.txt", "x\n")

    def denied(path: str, limit: int, follow: bool) -> bytes:
        raise PermissionError(path)

    monkeypatch.setattr(walker_mod, "read_bytes", denied)
    assert walk(tmp_path, IndexSettings()).skipped == {"unreadable": ("locked.txt",)}


def test_fifo_is_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    result = walk(tmp_path, IndexSettings())
    assert result.skipped == {"unreadable": ("pipe",)}


def test_missing_root_and_file_root(tmp_path: Path) -> None:
    with pytest.raises(BadPathError):
        walk(tmp_path / "nope", IndexSettings())
    write(tmp_path, "f.txt", "x")
    with pytest.raises(BadPathError):
        walk(tmp_path / "f.txt", IndexSettings())


def test_deterministic(repo: Path) -> None:
    assert walk(repo, IndexSettings()) == walk(repo, IndexSettings())


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/b.py", ("code", "python")),
        ("x.TSX", ("code", "tsx")),
        ("lib.rs", ("code", "rust")),
        ("Main.java", ("code", "java")),
        ("main.go", ("code", "go")),
        ("README", ("doc", "text")),
        ("docs/index.rst", ("doc", "rst")),
        ("notes.txt", ("doc", "text")),
        ("README.md", ("doc", "markdown")),
        ("tree.json", ("text", None)),
        ("Makefile", ("text", None)),
        (".bashrc", ("text", None)),
    ],
)
def test_classify(path: str, expected: tuple[str, str | None]) -> None:
    assert classify(path) == expected


def test_ignore_file_linking_outside_is_not_read(tmp_path: Path) -> None:
    outside = write(tmp_path, "outside/.gitignore", "*.py\n")
    root = tmp_path / "repo"
    write(root, "a.py", "x = 1\n")
    os.symlink(outside, root / ".gitignore")
    result = walk(root, IndexSettings())
    assert paths(result) == ["a.py"]
    assert result.skipped == {"symlink_outside": (".gitignore",)}


def test_ignore_file_linking_inside_is_honoured(tmp_path: Path) -> None:
    write(tmp_path, "conf/ignore-rules", "*.log\n")
    write(tmp_path, "x.log", "x\n")
    os.symlink("conf/ignore-rules", tmp_path / ".gitignore")
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == [".gitignore", "conf/ignore-rules"]
    assert result.skipped == {"ignored": ("x.log",)}


def test_re2_ignore_rules_agree_with_the_reference_engine() -> None:
    import pathspec

    lines = ["*.log", "!keep.log", "build/", "/top.txt", "a/**/b", "doc?/*.md", "[ab]c", "\\#x"]
    reference = pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
    fast = ignore_rules.Spec("", "test", compile_rules(lines, IndexSettings()))
    candidates = [
        "x.log", "keep.log", "d/keep.log", "build", "src/build", "top.txt", "s/top.txt",
        "a/b", "a/x/y/b", "docs/r.md", "doc/r.md", "ac", "bc", "cc", "#x", "plain.py",
    ]
    for rel in candidates:
        for is_dir in (False, True):
            expected = reference.check_file(rel + ("/" if is_dir else "")).include
            assert ignore_rules.ignored([fast], rel, is_dir) == bool(expected), (rel, is_dir)


@pytest.mark.timeout(20)
def test_ignore_pattern_with_many_stars_matches_in_linear_time(tmp_path: Path) -> None:
    # A backtracking engine takes time exponential in the stars of one line: 10 stars cost
    # 93 s of CPU for one ask, 200 never finished. RE2 walks 1,000 files at once.
    root = tmp_path / "repo"
    for number in range(1000):
        write(root, f"d{number % 10}/" + "a" * 40 + f"{number}.txt", "x\n")
    write(root, ".gitignore", "*a" * 200 + "*b\n")
    result = walk(root, IndexSettings())
    assert len(result.files) == 1001


def test_walk_one_follows_the_same_rules(repo: Path, tmp_path: Path) -> None:
    one = walker_mod.walk_one(repo, "src/app.py", IndexSettings())
    full = {item.record.path: item for item in walk(repo, IndexSettings()).files}
    assert one == full["src/app.py"]
    write(repo, ".env", "A=1\n")
    os.symlink(write(tmp_path, "out.txt", "x\n"), repo / "out.txt")
    cases = {
        "src/debug.log": "ignored", "src/build/out.py": "ignored", "docs/drafts/wip.md": "ignored",
        ".env": "secret", "out.txt": "symlink_outside", ".git/HEAD": "ignored",
        "nope.py": "no such file", "../x": "not a path inside", "src": "is a directory",
        "src/app.py/x": "not a directory",
    }
    for rel, message in cases.items():
        with pytest.raises(BadPathError, match=message):
            walker_mod.walk_one(repo, rel, IndexSettings())
    write(repo, "big.txt", "x" * 50)
    with pytest.raises(BadPathError, match="too_large"):
        walker_mod.walk_one(repo, "big.txt", IndexSettings(max_file_bytes=10))


def test_unlistable_or_vanished_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "ok/a.txt", "a\n")
    write(tmp_path, "locked/b.txt", "b\n")
    write(tmp_path, "gone/c.txt", "c\n")
    real_list = walker_mod.list_dir

    def flaky(real_dir: str) -> list[os.DirEntry[str]]:
        if real_dir.endswith("locked"):
            raise PermissionError(real_dir)
        if real_dir.endswith("gone"):
            raise FileNotFoundError(real_dir)
        return real_list(real_dir)

    monkeypatch.setattr(walker_mod, "list_dir", flaky)
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == ["ok/a.txt"]
    assert result.skipped == {"unreadable": ("locked/",), "vanished": ("gone/",)}

    def denied(real_dir: str) -> list[os.DirEntry[str]]:
        raise PermissionError(real_dir)

    monkeypatch.setattr(walker_mod, "list_dir", denied)
    with pytest.raises(BadPathError, match="cannot read directory"):
        walk(tmp_path, IndexSettings())


def test_very_deep_tree_has_no_recursion_limit(tmp_path: Path) -> None:
    import inspect
    import sys

    # Deeper than a recursive walk could go under the (lowered) recursion limit. Kept small:
    # pytest's own clean-up of tmp_path recurses too.
    limit = len(inspect.stack(0)) + 100
    depth = 150
    rel = "/".join(["d"] * depth)
    current = tmp_path
    for _ in range(depth):
        current = current / "d"
        current.mkdir()  # one level at a time: pathlib's parents=True recurses too
    write(tmp_path, rel + "/leaf.txt", "x\n")
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        result = walk(tmp_path, IndexSettings())
    finally:
        sys.setrecursionlimit(saved)
    assert paths(result) == [rel + "/leaf.txt"]


def test_private_key_content_is_secret_whatever_the_name(tmp_path: Path) -> None:
    begin = "-----BEGIN "  # split so that this test file itself holds no key block
    write(tmp_path, "fixtures/server_cert.txt", begin + "CERTIFICATE-----\nMIIB\n")
    write(tmp_path, "deploy/deploy_key", begin + "OPENSSH PRIVATE KEY-----\nb3Bl\n")
    write(tmp_path, "fixtures/ec.txt", begin + "EC PRIVATE KEY-----\nMHcC\n")
    write(tmp_path, "tests/test_keys.py", f'KEY = """{begin}RSA PRIVATE KEY-----\nMIIE\n"""\n')
    write(tmp_path, "docs/pem.md", "Keys start with `-----BEGIN` and end with `KEY-----`.\n")
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == ["docs/pem.md", "fixtures/server_cert.txt", "tests/test_keys.py"]
    assert result.skipped == {"secret": ("deploy/deploy_key", "fixtures/ec.txt")}
    assert len(walk(tmp_path, IndexSettings(skip_secrets=False)).files) == 5


def test_git_info_exclude_is_honoured_below_gitignore(tmp_path: Path) -> None:
    write(tmp_path, ".git/info/exclude", "*.scratch\nlocal/\n")
    write(tmp_path, ".gitignore", "!keep.scratch\n")
    write(tmp_path, "a.scratch", "x\n")
    write(tmp_path, "keep.scratch", "x\n")
    write(tmp_path, "local/notes.md", "# n\n")
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == [".gitignore", "keep.scratch"]
    assert result.skipped == {"ignored": ("a.scratch", "local/")}
    with pytest.raises(BadPathError, match="ignored"):
        walker_mod.walk_one(tmp_path, "local/notes.md", IndexSettings())


def test_git_dir_linking_outside_is_not_read(tmp_path: Path) -> None:
    write(tmp_path, "elsewhere/info/exclude", "*.py\n")
    root = tmp_path / "repo"
    write(root, "a.py", "x = 1\n")
    os.symlink(tmp_path / "elsewhere", root / ".git")
    result = walk(root, IndexSettings())
    assert paths(result) == ["a.py"]
    assert result.skipped == {}


def test_submodule_git_file_is_not_indexed(tmp_path: Path) -> None:
    write(tmp_path, "vendor/lib/.git", "gitdir: ../../.git/modules/lib\n")
    write(tmp_path, "vendor/lib/lib.py", "x = 1\n")
    assert paths(walk(tmp_path, IndexSettings())) == ["vendor/lib/lib.py"]


def test_default_ignores_and_reinclusion(tmp_path: Path) -> None:
    write(tmp_path, "node_modules/left-pad/index.js", "module.exports = 1;\n")
    write(tmp_path, ".venv/lib/site.py", "x = 1\n")
    write(tmp_path, "web/package-lock.json", "{}\n")
    write(tmp_path, "Cargo.lock", "# lock\n")
    write(tmp_path, "src/app.py", "x = 1\n")
    result = walk(tmp_path, IndexSettings())
    assert paths(result) == ["src/app.py"]
    assert result.skipped == {
        "ignored": (".venv/", "Cargo.lock", "node_modules/", "web/package-lock.json"),
    }
    write(tmp_path, ".helixignore", "!Cargo.lock\n")
    assert "Cargo.lock" in paths(walk(tmp_path, IndexSettings()))
