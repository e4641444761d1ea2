"""Many repositories on a real local Ray cluster (`tests.engines`, no mock of Ray): each
repository a task, a repository above the shard size parsed in shard tasks by directory and
merged in the walk's order, so the cluster-built index has the item hashes (index_rev) of a
laptop build; git sources checked out under the shared store root at their revision; the
registry filled; then a question across a group is routed by the repositories' summaries."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

from helix.cluster.repos_file import parse_repos
from helix.core.config import load_config
from helix.core.errors import UserError
from indexers.build import build_index
from indexers.shards import plan_shards, serial_map

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GIT = ["git", "-c", "user.name=helix-test", "-c", "user.email=test@example.invalid",
       "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]


def _git_repo(source: Path, target: Path) -> str:
    """A git repository of `source`'s files; its one commit, tagged v1."""
    shutil.copytree(source, target)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "one"],
                 ["tag", "v1"]):
        subprocess.run([*GIT, *args], cwd=target, check=True, capture_output=True)
    (target / "later.py").write_text("def later():\n    return 1\n", encoding="utf-8")
    subprocess.run([*GIT, "add", "-A"], cwd=target, check=True, capture_output=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "two"], cwd=target, check=True,
                   capture_output=True)
    return subprocess.run([*GIT, "rev-parse", "v1^{commit}"], cwd=target, check=True,
                          capture_output=True, text=True).stdout.strip()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.from_regex(r"[ab]{1,2}(/[abc]{1,2}){0,3}\.py", fullmatch=True),
                unique=True, max_size=60), st.integers(min_value=1, max_value=9))
def test_a_shard_plan_holds_every_file_once_and_keeps_small_directories_whole(
        paths: list[str], max_files: int) -> None:
    plan = plan_shards(paths, max_files)
    assert sorted(p for shard in plan for p in shard) == sorted(paths)
    assert all(0 < len(shard) <= max_files for shard in plan)
    assert plan == plan_shards(list(reversed(paths)), max_files)  # a function of the paths
    for directory in {p.rsplit("/", 1)[0] for p in paths if "/" in p}:
        members = [p for p in paths if p.rsplit("/", 1)[0] == directory]
        if len(members) <= max_files:  # all of a small directory's own files in one shard
            assert sum(1 for shard in plan if set(members) & set(shard)) == 1


def _index_bytes(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file())


@pytest.mark.parametrize("mask", [True, False])
def test_a_build_parsed_in_shards_is_the_build_parsed_whole(tmp_path: Path, mask: bool) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "continuity_repo", repo)
    # a secret in a file a shard parses: masked there as the whole build masks it, and kept
    # there as the whole build keeps it when the user turned masking off
    (repo / "deploy.py").write_text(f'TOKEN = "{GITHUB_TOKEN}"\n', encoding="utf-8")
    flags = {"index.embed_enabled": False, "index.mask_secrets": mask}
    whole = build_index(repo, load_config(repo, flags=flags), index_dir=tmp_path / "whole")
    seen: list[int] = []

    def counted(shards: list[list[object]], settings: object) -> list[list[object]]:
        seen.append(len(shards))
        return serial_map(shards, settings)  # type: ignore[arg-type]

    config = load_config(repo, flags={**flags, "cluster.shard_above_files": 3,
                                      "cluster.shard_files": 4})
    sharded = build_index(repo, config, index_dir=tmp_path / "sharded", parse_map=counted)
    assert seen and seen[0] >= 5 and sharded.files_parsed == whole.files_parsed
    assert sharded.index_rev == whole.index_rev
    for built in ("whole", "sharded"):
        assert (GITHUB_TOKEN.encode() in _index_bytes(tmp_path / built)) is not mask, built


def test_a_repositories_file_is_checked_entry_by_entry() -> None:
    good = parse_repos('[[repo]]\nname = "a"\npath = "/src/a"\n'
                       '[[repo]]\nname = "b"\ngit = "https://x/b.git"\nrev = "v2"\n'
                       'group = "web"\n', "repos.toml")
    assert [(s.name, s.group, s.source) for s in good] == [
        ("a", "default", "path:/src/a"), ("b", "web", "git:https://x/b.git@v2")]
    for text, wanted in (
            ('[[repo]]\nname = "a"\n', "exactly one of path and git"),
            ('[[repo]]\nname = "a"\npath = "rel"\n', "path must be absolute"),
            ('[[repo]]\nname = "a b"\npath = "/a"\n', "name must be"),
            ('[[repo]]\nname = "a"\npath = "/a"\nrev = "v1"\n', "rev goes with git"),
            ('[[repo]]\nname = "a"\ngit = "u"\nrev = "--upload-pack=x"\n', "not a revision"),
            ('[[repo]]\nname = "a"\npath = "/a"\n[[repo]]\nname = "a"\npath = "/b"\n',
             "given twice"),
            ('[[repo]]\nname = "a"\npath = "/a"\nowner = "x"\n', "unknown key"),
            ("[repo\n", "cannot read")):
        with pytest.raises(UserError, match=wanted):
            parse_repos(text, "repos.toml")


@pytest.mark.slow
def test_repositories_indexed_on_a_ray_cluster_match_a_laptop_build(
        ray_session: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HELIX_CLUSTER__SHARD_ABOVE_FILES", "6")
    monkeypatch.setenv("HELIX_CLUSTER__SHARD_FILES", "5")
    search = tmp_path / "src" / "search"
    shutil.copytree(FIXTURES / "continuity_repo", search)
    tagged = _git_repo(FIXTURES / "answer_repo", tmp_path / "src" / "fetchy")
    repos_file = tmp_path / "repos.toml"
    repos_file.write_text(
        f'[[repo]]\nname = "search"\npath = "{search}"\ngroup = "tools"\n'
        f'[[repo]]\nname = "fetchy"\ngit = "{tmp_path / "src" / "fetchy"}"\nrev = "v1"\n'
        f'group = "net"\n'
        f'[[repo]]\nname = "gone"\npath = "{tmp_path / "missing"}"\n', encoding="utf-8")
    store = tmp_path / "store"
    code, out, err = run(["index", "--repos-file", str(repos_file), "--cluster", "local",
                          "--store-root", str(store), "--no-embed", "--json"], capsys)
    assert code == 1, err  # one repository failed: said, the others indexed
    report = json.loads(out)
    assert report["executor"] == "ray" and list(report["failed"]) == ["gone"]
    assert "not a directory" in report["failed"]["gone"]
    built = {r["name"]: r for r in report["repos"]}
    assert list(built) == ["search", "fetchy"]  # the file's order, whatever finished first
    assert built["search"]["shards"] >= 3 and built["fetchy"]["shards"] >= 1
    checkout = store / "checkouts" / "fetchy"
    assert built["fetchy"]["rev"] == tagged and not (checkout / "later.py").exists()
    assert (checkout / ".git" / "helix-checkout").is_file()
    for name, root in (("search", search), ("fetchy", checkout)):
        laptop = build_index(root, load_config(root, flags={"index.embed_enabled": False}),
                             index_dir=tmp_path / f"laptop-{name}")
        assert built[name]["index_rev"] == laptop.index_rev, name
        assert Path(built[name]["index_dir"]).is_relative_to(store / "indexes")

    code, out, _ = run(["repos", "--json"], capsys)
    assert code == 0 and [(r["name"], r["group"]) for r in json.loads(out)] == [
        ("fetchy", "net"), ("search", "tools")]
    code, out, err = run(["ask", "where is the BM25 index built?", "--repos", "all",
                          "--dry-run", "--json"], capsys)
    assert code == 0, err
    env = json.loads(out)
    routing = env["repo_routing"]
    assert routing["considered"] == 2 and routing["searched"][0]["name"] == "search"
    assert "bm25" in routing["searched"][0]["matched"]
    assert env["evidence"][0]["path"].startswith("search:search/bm25.py")
    code, out, err = run(["ask", "where is the retry policy decided?", "--repos", "net",
                          "--dry-run"], capsys)
    assert code == 0 and "searched 1 of 1 repositories in 'net': fetchy" in err
    assert "fetchy:fetchy/retry.py" in out

    # a server started for a group answers across it (HTTP and MCP take `repos`); one
    # started without a group, or for another, refuses in one line
    from helix.core.errors import NotFoundError
    from helix.servers.workspace import Workspace

    served = Workspace([], group="tools").ask("where is the BM25 index built?", group="tools")
    assert served["repo"] == ["search"]
    assert served["envelope"]["repo_routing"]["searched"][0]["name"] == "search"
    with pytest.raises(NotFoundError, match="not served"):
        Workspace([], group="tools").ask("where is the retry policy?", group="net")
    with pytest.raises(UserError, match="serves no repository group"):
        Workspace([search]).ask("where is the retry policy?", group="net")


def test_git_sources_follow_pushes_and_pinned_ones_stay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Re-indexing after a push indexes what was pushed for a moving revision (the default
    HEAD, a branch); a tag and a full commit id stay where they are."""
    origin = tmp_path / "origin"
    tagged = _git_repo(FIXTURES / "answer_repo", origin)
    revs = {"head": None, "branch": "main", "tag": "v1", "pinned": tagged}
    repos_file = tmp_path / "repos.toml"
    repos_file.write_text("".join(
        f'[[repo]]\nname = "{name}"\ngit = "{origin}"\n' + (f'rev = "{rev}"\n' if rev else "")
        for name, rev in revs.items()), encoding="utf-8")
    argv = ["index", "--repos-file", str(repos_file), "--store-root", str(tmp_path / "store"),
            "--no-embed", "--json"]

    def indexed() -> dict[str, str]:
        code, out, err = run(argv, capsys)
        assert code == 0, err
        return {r["name"]: r["rev"] for r in json.loads(out)["repos"]}

    second = subprocess.run([*GIT, "rev-parse", "HEAD"], cwd=origin, check=True,
                            capture_output=True, text=True).stdout.strip()
    assert indexed() == {"head": second, "branch": second, "tag": tagged, "pinned": tagged}
    (origin / "pushed.py").write_text("def pushed():\n    return 2\n", encoding="utf-8")
    for args in (["add", "-A"], ["commit", "-q", "-m", "three"]):
        subprocess.run([*GIT, *args], cwd=origin, check=True, capture_output=True)
    third = subprocess.run([*GIT, "rev-parse", "HEAD"], cwd=origin, check=True,
                           capture_output=True, text=True).stdout.strip()
    assert indexed() == {"head": third, "branch": third, "tag": tagged, "pinned": tagged}
    checkouts = tmp_path / "store" / "checkouts"
    assert (checkouts / "head" / "pushed.py").is_file()
    assert not (checkouts / "tag" / "later.py").exists()


def test_a_cluster_without_ray_installed_is_one_line(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    code, _, err = run(["index", str(FIXTURES / "answer_repo"), "--cluster", "local",
                        "--store-root", str(tmp_path / "store")], capsys)
    assert code == 1 and err.strip().splitlines() == [
        "helix: --cluster needs Ray: pip install 'helix[cluster]'"]


def test_an_unreachable_or_malformed_cluster_address_is_one_line_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ray retries a dead address for minutes, logging as it goes: Helix checks it first."""
    import time

    from tests.net_helpers import free_port

    dead = f"127.0.0.1:{free_port()}"  # a loopback port nothing listens on
    for address, said in ((dead, f"cannot reach the Ray cluster at {dead}: "),
                          (f"ray://{dead}", "cannot reach the Ray cluster at ray://"),
                          ("nonsense", "is not a Ray address"),
                          ("host:99999", "is not a Ray address")):
        started = time.monotonic()
        code, _, err = run(["index", str(FIXTURES / "answer_repo"), "--cluster", address,
                            "--store-root", str(tmp_path / "store"), "--no-embed"], capsys)
        assert code == 1 and err.count("\n") == 1 and said in err, (address, err)
        assert time.monotonic() - started < 30, address


@pytest.mark.slow
def test_cluster_local_starts_a_cluster_of_its_own(tmp_path: Path) -> None:
    """`--cluster local` never joins the cluster RAY_ADDRESS (or a running `ray start`) names:
    here an address nothing listens on, which Ray's default would try to join."""
    import os
    import sys

    env = {**os.environ, "RAY_ADDRESS": "127.0.0.1:9", "HELIX_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-m", "helix.cli.main", "index",
                           str(FIXTURES / "answer_repo"), "--cluster", "local", "--no-embed",
                           "--store-root", str(tmp_path / "store"), "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["executor"] == "ray"


def test_several_paths_index_many_one_after_another_and_repo_twice_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["index", str(FIXTURES / "answer_repo"),
                          str(FIXTURES / "continuity_repo"), "--no-embed", "--json",
                          "--store-root", str(tmp_path / "store")], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["executor"] == "serial"
    assert [r["name"] for r in report["repos"]] == ["answer_repo", "continuity_repo"]
    code, _, err = run(["index", "--repo", str(FIXTURES / "answer_repo"), "--repo",
                        str(FIXTURES / "continuity_repo"), "--no-embed"], capsys)
    assert code == 2 and "one repository per command" in err
