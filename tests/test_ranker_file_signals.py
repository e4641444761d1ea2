"""The file-level signals tried for the learned ranker (`evals.corpus.file_signals`,
`benchmarks/ranker_file_signals.py`): a file's own history of commits (renames followed,
deletions dropped, never a commit after the revision: only the log the history field read),
its share of the question's BM25 mass, and the files that import, call and test it."""

from __future__ import annotations

import math

from evals.corpus.file_signals import SIGNALS, file_degrees, file_log, signal_columns


def _col(rows: list[list[float]], name: str) -> list[float]:
    return [r[SIGNALS.index(name)] for r in rows]


LOG = [  # newest first
    ("c4", [("src/new.py", "src/new.py")]),
    ("c3", [("src/old.py", "src/new.py"), ("gone.py", None)]),
    ("c2", [("src/old.py", "src/old.py"), ("gone.py", "gone.py")]),
    ("c1", [(None, "src/old.py"), (None, "b.py")]),
]
WORDS = {"c4": frozenset({"retry", "timeout"}), "c3": frozenset({"rename"}),
         "c2": frozenset({"retry", "backoff"}), "c1": frozenset({"initial"})}


def test_a_files_history_follows_renames_and_drops_deleted_files() -> None:
    log = file_log(LOG, WORDS)
    assert log.touched == {"src/new.py": (0, 1, 2, 3), "b.py": (3,)}
    assert "gone.py" not in log.touched and "src/old.py" not in log.touched
    assert log.words["src/new.py"] == frozenset({"retry", "timeout", "rename", "backoff",
                                                 "initial"})
    assert log.last["b.py"] == frozenset({"initial"}) and log.total == 4


def test_signal_columns_per_candidate_file() -> None:
    log = file_log(LOG, WORDS)
    degrees = file_degrees([("file:b.py", "file:src/new.py", "imports"),
                            ("def:b.py::f", "def:src/new.py::g", "calls"),
                            ("def:src/new.py::g", "def:src/new.py::h", "calls"),
                            ("file:src/new.py", "def:src/new.py::g", "contains")])
    assert degrees == {"src/new.py": (1, 1, 0)}
    paths = ["b.py", "src/new.py", "b.py", "c.py"]
    out = signal_columns([1.0, 2.0, 1.0, 0.0], paths, frozenset({"retry", "timeout"}), log,
                         degrees)
    assert len(out) == 4 and all(len(r) == len(SIGNALS) for r in out)
    assert _col(out, "g_commits") == [math.log1p(1), math.log1p(4), math.log1p(1), 0.0]
    assert _col(out, "g_since") == [math.log1p(3), 0.0, math.log1p(3), math.log1p(4)]
    assert _col(out, "g_cov") == [0.0, 1.0, 0.0, 0.0]
    assert _col(out, "g_last_cov") == [0.0, 1.0, 0.0, 0.0]
    assert _col(out, "g_bm25_top") == [0.0, 1.0, 0.0, 0.0]
    assert _col(out, "g_bm25_rr") == [0.0, 1.0, 0.0, 0.0]
    # b.py holds half the question's BM25 mass (two candidates of 1.0), src/new.py the other
    assert _col(out, "f_mass") == [0.5, 0.5, 0.5, 0.0]
    assert _col(out, "f_mass_rr") == [1.0, 0.5, 1.0, 0.0]
    assert _col(out, "f_imports_in") == [0.0, math.log1p(1), 0.0, 0.0]
    assert _col(out, "f_calls_in") == [0.0, math.log1p(1), 0.0, 0.0]


def test_no_history_and_no_graph_give_zero_history_columns() -> None:
    out = signal_columns([0.0, 0.0], ["a.py", "a.py"], frozenset({"x"}), None, {})
    assert out == [[0.0] * len(SIGNALS)] * 2
