"""The history field is on by default (`index.history_commits = 1000`, with the learned ranker
it was trained with): a repository without git or with a shallow clone's history still indexes
and answers (the field empty, never an error), and an index built with the field off is rebuilt
with it, never served stale."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helix.core.config import load_config
from indexers.build import ensure_index, index_status
from indexers.history import grafted
from tests.history_helpers import EPOCH, commit, git

A1 = "def parse(text):\n    return text\n\n\ndef render(node):\n    return node\n"
A2 = "def parse(text):\n    return text.strip()\n\n\ndef render(node):\n    return node\n"
A3 = "def parse(text):\n    return text.strip()\n\n\ndef render(node):\n    return [node]\n"
LEXICAL = {"index.embed_enabled": False}


def _origin(tmp_path: Path) -> Path:
    repo = tmp_path / "origin"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, "initial wombat parser", {"src/a.py": A1}, EPOCH)
    commit(repo, "strip whitespace in the tokenizer", {"src/a.py": A2}, EPOCH + 10)
    commit(repo, "render zebra lists", {"src/a.py": A3}, EPOCH + 20)
    return repo


def _clone(origin: Path, target: Path, depth: int) -> Path:
    subprocess.run(["git", "clone", "-q", f"--depth={depth}", origin.resolve().as_uri(),
                    str(target)], check=True, capture_output=True)
    return target


def _ask(root: Path, question: str) -> object:
    from helix.service import ask

    return ask(question, root=root, config=load_config(root, flags=LEXICAL),
               dry_run=True).envelope


def test_the_default_reads_history(tmp_path: Path, helix_home: Path) -> None:
    repo = _origin(tmp_path)
    config = load_config(repo, flags=LEXICAL)
    assert config.index.history_commits == 1000
    assert config.retrieval.ranker.mode == "learned"
    index, report = ensure_index(repo, config)
    assert report.history is not None and report.history["commits_read"] == 3
    docs = index.history_index().docs  # type: ignore[union-attr]
    assert {"wombat", "strip", "zebra"} <= docs["def:src/a.py::parse"] | docs[
        "def:src/a.py::render"]


def test_a_shallow_clone_indexes_and_answers_without_its_boundary(tmp_path: Path,
                                                                  helix_home: Path) -> None:
    """git shows a shallow clone's boundary commit as adding every file: its message would be
    every definition's history. Depth 1: the field is empty; depth 2: only the newest commit,
    on the definition it changed."""
    origin = _origin(tmp_path)
    one = _clone(origin, tmp_path / "depth1", 1)
    assert grafted(one, git(one, "rev-parse", "HEAD").strip())
    index, report = ensure_index(one, load_config(one, flags=LEXICAL))
    assert report.history is not None and report.history["defs"] == 0
    assert not any(index.history_index().docs.values())  # type: ignore[union-attr]
    envelope = _ask(one, "where are nodes rendered?")
    assert envelope.evidence  # type: ignore[attr-defined]
    two = _clone(origin, tmp_path / "depth2", 2)
    index, _ = ensure_index(two, load_config(two, flags=LEXICAL))
    docs = index.history_index().docs  # type: ignore[union-attr]
    assert "zebra" in docs["def:src/a.py::render"]
    assert not docs.get("def:src/a.py::parse")  # changed only by the boundary commit
    assert grafted(origin, git(origin, "rev-parse", "HEAD").strip()) == frozenset()


def test_a_directory_without_git_indexes_and_answers(tmp_path: Path, helix_home: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "src" / "a.py").write_text(A3, encoding="utf-8")
    index, report = ensure_index(plain, load_config(plain, flags=LEXICAL))
    assert report.history is None and index.history_index() is None
    envelope = _ask(plain, "parse fails on whitespace in the tokenizer, why?")
    assert envelope.evidence  # type: ignore[attr-defined]


def test_an_index_built_without_history_is_rebuilt_with_it(tmp_path: Path,
                                                           helix_home: Path) -> None:
    """An index written before the default changed (history_commits 0) is not current under
    the new default: status says so and the next build adds the field (parsed files reused)."""
    repo = _origin(tmp_path)
    old = load_config(repo, flags={**LEXICAL, "index.history_commits": 0})
    index, _ = ensure_index(repo, old)
    assert index.history_index() is None
    config = load_config(repo, flags=LEXICAL)
    status = index_status(repo, config)
    assert not status.fresh and status.problem == "indexing settings changed since the build"
    index, report = ensure_index(repo, config)
    assert not report.noop and report.history is not None
    assert "indexing settings changed; parsed files reused" in report.warnings
    assert "wombat" in index.history_index().docs["def:src/a.py::parse"]  # type: ignore[union-attr]
