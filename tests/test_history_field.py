"""Words bridged through history (`indexers.history`): each definition carries the words of
the messages of the commits that changed it, before the indexed revision and never after;
lines are followed through later edits and renames; a moved HEAD reads only its new commits."""

from __future__ import annotations

from pathlib import Path

from evals.corpus.history_git import point_head
from evals.history.trees import TreeWriter
from helix.core.config import load_config
from indexers.build import ensure_index
from indexers.formats import DefRow
from indexers.history import attribute, parent_segments, read_commits
from tests.history_helpers import EPOCH, commit, git

F1 = "def parse(text):\n    return text\n\n\ndef render(node):\n    return node\n"
F2 = "def parse(text):\n    return text.strip()\n\n\ndef render(node):\n    return node\n"
F3 = ("# shifted\n# down\ndef parse(text):\n    return text.strip()\n\n\n"
      "def render(node):\n    return str(node)\n")
F4 = ("# shifted\n# down\ndef parse(text):\n    text = text or ''\n    return text.strip()\n"
      "\n\ndef render(node):\n    return str(node)\n")


def _repo(tmp_path: Path) -> tuple[Path, list[str]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = [commit(repo, "initial wombat parser", {"src/a.py": F1}, EPOCH),
            commit(repo, "strip whitespace in the tokenizer", {"src/a.py": F2}, EPOCH + 10),
            commit(repo, "render nodes as strings, header moved", {"src/a.py": F3}, EPOCH + 20)]
    git(repo, "mv", "src/a.py", "src/b.py")
    (repo / "src" / "b.py").write_text(F4, encoding="utf-8")
    git(repo, "add", "src/b.py")
    git(repo, "commit", "-q", "-m", "zebra guard against None input", when=EPOCH + 30)
    shas.append(git(repo, "rev-parse", "HEAD").strip())
    return repo, shas


def test_changed_lines_are_followed_to_heads_definitions(tmp_path: Path) -> None:
    repo, shas = _repo(tmp_path)
    commits, complete = read_commits(repo, shas[-1], 100)
    assert complete and [c.sha for c in commits] == shas[::-1]
    defs = {"src/b.py": [DefRow("parse", "parse", "function", "src/b.py", 3, 5, None, "p"),
                         DefRow("render", "render", "function", "src/b.py", 8, 9, None, "r")]}
    table = attribute(commits, defs, per_def=10)
    # parse: the rename commit, the strip commit, the first; render: the string commit, the first
    assert table == {"p": [shas[3], shas[1], shas[0]], "r": [shas[2], shas[0]]}
    assert attribute(commits, defs, per_def=2)["p"] == [shas[3], shas[1]]  # bounded per def


def test_a_patch_longer_than_many_reads_is_one_commit(tmp_path: Path) -> None:
    """A root commit adding a large file (its patch spans many pipe reads) is read whole, in
    time linear in its size, and the commits after it are still told apart."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    big = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(20000))
    shas = [commit(repo, "initial import of the big module", {"src/big.py": big}, EPOCH),
            commit(repo, "fix f7 off by one", {"src/big.py": big.replace(
                "return x + 7\n", "return x + 8\n", 1)}, EPOCH + 10)]
    commits, complete = read_commits(repo, shas[-1], 100)
    assert complete and [c.sha for c in commits] == shas[::-1]
    assert commits[1].files[0].hunks[0][3] == big.count("\n")  # every added line counted
    assert commits[0].files[0].hunks == [(30, 1, 30, 1)]


def test_line_maps_shift_and_drop_rewritten_lines() -> None:
    head = [(1, 100, 1)]
    # two lines inserted after old line 0, and old line 6 rewritten as new line 8
    parent = parent_segments(head, [(0, 0, 1, 2), (6, 1, 8, 1)])
    assert parent == [(1, 5, 3), (7, 98, 9)]


def _brute(segments: list[tuple[int, int, int]], hunks: list[tuple[int, int, int, int]],
           line: int) -> int | None:
    """HEAD line of old line `line`, one line at a time."""
    delta = 0
    for a, b, _c, d in sorted(hunks):
        if b > 0 and a <= line < a + b:
            return None
        if (b > 0 and line >= a + b) or (b == 0 and line > a):
            delta += d - b
    new = line + delta
    return next((h + new - s for s, e, h in segments if s <= new <= e), None)


def test_line_maps_match_a_line_by_line_walk() -> None:
    import random

    rng = random.Random(5)
    segments = [(1, 100, 1)]
    for _ in range(30):  # commits, newest first, each with a few hunks on a 100-line file
        hunks: list[tuple[int, int, int, int]] = []
        a, delta = 0, 0
        while len(hunks) < rng.randrange(1, 5):
            a += rng.randrange(1, 15)
            b, d = rng.randrange(0, 4), rng.randrange(0, 4)
            if b == 0 and d == 0:
                continue
            hunks.append((a, b, a + delta + (1 if b == 0 else 0), d))
            a += b
            delta += d - b
        parent = parent_segments(segments, hunks)
        for line in range(1, 120):
            mapped = next((h + line - s for s, e, h in parent if s <= line <= e), None)
            assert mapped == _brute(segments, hunks, line), (hunks, line)
        segments = parent


def _index(root: Path, history: int) -> object:
    config = load_config(root, flags={"index.embed_enabled": False,
                                      "index.history_commits": history})
    return ensure_index(root, config)


def test_the_index_never_reads_a_commit_after_its_revision(tmp_path: Path,
                                                           helix_home: Path) -> None:
    repo, shas = _repo(tmp_path)
    tree = tmp_path / "tree"
    writer = TreeWriter(repo / ".git", tree)
    writer.move_to(shas[2])  # R: the third commit; the fourth is its future
    point_head(tree, repo / ".git", shas[2])
    index, report = _index(tree, 100)  # type: ignore[misc]
    assert index.repo_rev == shas[2]  # clean at R
    assert report.model_dump()["history"]["commits_read"] == 3
    history = index.history_index()
    words = history.docs["def:src/a.py::parse"]
    assert {"wombat", "strip", "whitespace"} <= words
    assert "zebra" not in {w for doc in history.docs.values() for w in doc}
    assert history.search(frozenset({"whitespace", "tokenizer"}), 5)[0][0] == \
        "def:src/a.py::parse"

    # HEAD moves on to the fourth commit: only it is read, the rest is kept
    writer.move_to(shas[3])
    point_head(tree, repo / ".git", shas[3])
    index, report = _index(tree, 100)  # type: ignore[misc]
    info = report.model_dump()["history"]
    assert info["incremental"] and info["commits_read"] == 1
    words = index.history_index().docs["def:src/b.py::parse"]
    assert {"zebra", "wombat", "strip"} <= words


def test_history_is_off_by_default_and_outside_git(tmp_path: Path, helix_home: Path) -> None:
    repo, _shas = _repo(tmp_path)
    index, report = _index(repo, 0)  # type: ignore[misc]
    assert index.history_index() is None and report.history is None
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text(F1, encoding="utf-8")
    index, _report = _index(plain, 100)  # type: ignore[misc]
    assert index.history_index() is None


P1 = "def parse(text):\n    return text\n\n\ndef render(node):\n    return node\n"
P2 = "def parse(text):\n    return text.strip()\n\n\ndef render(node):\n    return node\n"
P3 = "def parse(text):\n    return text.lower()\n\n\ndef render(node):\n    return node\n"
P4 = "def parse(text):\n    return text.lower()\n\n\ndef render(node):\n    return [node]\n"


def _tables(tmp_path: Path, history: int) -> list[tuple[object, object]]:
    """(incremental, from scratch) history fields at each of three revisions: one tree moved
    forward commit by commit (its index refreshed), and a new tree per revision."""
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    shas = [commit(repo, "initial wombat parser", {"src/a.py": P1}, EPOCH),
            commit(repo, "strip whitespace first", {"src/a.py": P2}, EPOCH + 10),
            commit(repo, "lower case instead", {"src/a.py": P3}, EPOCH + 20),
            commit(repo, "render zebra lists", {"src/a.py": P4}, EPOCH + 30)]
    moved = tmp_path / "moved"
    writer = TreeWriter(repo / ".git", moved)
    out = []
    for n, sha in enumerate(shas[1:], start=1):
        writer.move_to(sha)
        point_head(moved, repo / ".git", sha)
        incremental, _ = _index(moved, history)  # type: ignore[misc]
        fresh_tree = tmp_path / f"fresh{n}"
        fresh_writer = TreeWriter(repo / ".git", fresh_tree)
        fresh_writer.move_to(sha)
        point_head(fresh_tree, repo / ".git", sha)
        fresh, _ = _index(fresh_tree, history)  # type: ignore[misc]
        out.append((incremental.history_index(), fresh.history_index()))
    return out


def test_a_moved_head_gives_the_table_a_new_build_gives(tmp_path: Path,
                                                        helix_home: Path) -> None:
    """The learned ranker was trained on history fields built from scratch at one revision;
    an index moved forward must serve the same: a commit whose lines a later one rewrote no
    longer counts ('strip whitespace first' once parse's body is rewritten), and the bound
    on commits holds across moves."""
    for history in (100, 2):
        for incremental, fresh in _tables(tmp_path / str(history), history):
            assert incremental.docs == fresh.docs  # type: ignore[attr-defined]
            assert incremental.commits == fresh.commits  # type: ignore[attr-defined]
    last_inc, _ = _tables(tmp_path / "again", 100)[-1]
    assert "whitespac" not in last_inc.docs["def:src/a.py::parse"]  # type: ignore[attr-defined]


M0 = "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    return a + b + c + x\n"
M_BRANCH = M0.replace("a = 1", "a = 10")
M_MAIN = M0.replace("c = 3", "c = 30")


def test_a_merged_branch_is_ordered_as_git_log_orders_it(tmp_path: Path,
                                                         helix_home: Path) -> None:
    """A branch's commit older than main's newest, merged: from the merge, `git log` lists
    main's commit first; the table moved forward to the merge keeps that order (with one
    commit per definition, the newest is main's), as a build from scratch does."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, "initial", {"src/m.py": M0}, EPOCH)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "walrus tenfold", {"src/m.py": M_BRANCH}, EPOCH + 20)
    git(repo, "checkout", "-q", "main")
    before = commit(repo, "yak thirtyfold", {"src/m.py": M_MAIN}, EPOCH + 30)
    git(repo, "merge", "-q", "--no-edit", "side", when=EPOCH + 40)
    merged = git(repo, "rev-parse", "HEAD").strip()
    flags = {"index.embed_enabled": False, "index.history_commits": 100,
             "index.history_per_def": 1}
    docs = []
    for name, revisions in (("moved", (before, merged)), ("fresh", (merged,))):
        tree = tmp_path / name
        writer = TreeWriter(repo / ".git", tree)
        for sha in revisions:
            writer.move_to(sha)
            point_head(tree, repo / ".git", sha)
            index, _ = ensure_index(tree, load_config(tree, flags=flags))
        docs.append(index.history_index().docs)
    assert docs[0] == docs[1]
    assert "yak" in docs[1]["def:src/m.py::f"]


def test_an_index_root_below_the_git_top_level_reads_its_own_paths(tmp_path: Path) -> None:
    """A package indexed inside a larger repository (a monorepo's subdirectory): the commits'
    paths are read relative to the index root, so their messages reach its definitions, and a
    commit that touched only files outside the root changes none of them."""
    repo = tmp_path / "mono"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = [commit(repo, "initial wombat parser", {"pkg/src/a.py": F1, "other/b.py": F1}, EPOCH),
            commit(repo, "strip whitespace in the tokenizer", {"pkg/src/a.py": F2}, EPOCH + 10),
            commit(repo, "outside only: quokka", {"other/b.py": F2}, EPOCH + 20)]
    root = repo / "pkg"
    commits, complete = read_commits(root, shas[-1], 100, paths=("*.py",))
    assert complete and [c.sha for c in commits] == [shas[1], shas[0]]
    assert {f.new for c in commits for f in c.files} == {"src/a.py"}
    defs = {"src/a.py": [DefRow("parse", "parse", "function", "src/a.py", 1, 2, None, "p"),
                         DefRow("render", "render", "function", "src/a.py", 5, 6, None, "r")]}
    assert attribute(commits, defs, per_def=10) == {"p": [shas[1], shas[0]], "r": [shas[0]]}


def test_committing_what_was_indexed_brings_its_message_in(tmp_path: Path,
                                                           helix_home: Path) -> None:
    """An edit indexed before it was committed: committing it moves HEAD without changing a
    file, and the next build reads the new commit (the index is not current at a new HEAD)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, "initial wombat parser", {"src/a.py": F1}, EPOCH)
    (repo / "src" / "a.py").write_text(F2, encoding="utf-8")  # edited, not committed
    index, report = _index(repo, 100)  # type: ignore[misc]
    assert "zebra" not in index.history_index().docs["def:src/a.py::parse"]
    git(repo, "commit", "-q", "-am", "zebra guard in the parser", when=EPOCH + 10)
    index, report = _index(repo, 100)  # type: ignore[misc]
    info = report.model_dump()
    assert not info["noop"] and info["history"]["commits_read"] == 1
    assert "zebra" in index.history_index().docs["def:src/a.py::parse"]
    _, report = _index(repo, 100)  # type: ignore[misc]
    assert report.model_dump()["noop"]  # current at this HEAD: nothing built again
