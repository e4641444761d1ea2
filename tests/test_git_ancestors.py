"""History.ancestors over a history with merges (helix.core.git_history): the bit sets give
the same answer as walking the parents."""

from __future__ import annotations

from helix.core.git_history import Commit, History


def _walk(history: History, sha: str) -> set[str]:
    by_sha = {c.sha: c for c in history.commits}
    seen: set[str] = set()
    stack = [sha]
    while stack:
        current = stack.pop()
        if current in seen or current not in by_sha:
            continue
        seen.add(current)
        stack.extend(by_sha[current].parents)
    return seen


def test_ancestors_of_a_history_with_merges() -> None:
    # a - b - c - m - e (m merges side branch d, itself from a); f is a root of its own; the
    # oldest commit's parent "z" was not read
    parents = {"e": ("m",), "m": ("c", "d"), "d": ("a",), "c": ("b",), "b": ("a",),
               "a": ("z",), "f": ()}
    commits = [Commit(sha=s, parents=parents[s], time=10 - i, subject=s)
               for i, s in enumerate(["e", "m", "d", "c", "b", "a", "f"])]
    history = History(commits=commits, changes={})
    for sha in parents:
        got = history.ancestors(sha)
        assert {c.sha for c in commits if c.sha in got} == _walk(history, sha), sha
    assert "d" in history.ancestors("e") and "d" not in history.ancestors("c")
    assert "z" not in history.ancestors("a") and "x" not in history.ancestors("x")
