"""The file-level columns tried for the learned ranker (`evals.corpus.file_features`,
`benchmarks/ranker_file_features.py`): each candidate gets its file's place among the
question's candidate files, and the file's history of commits."""

from __future__ import annotations

import math

import pytest

from controller.rank_features import FEATURES
from evals.corpus.file_features import FILE_FEATURES, column_places, file_columns, file_history

PLACES = column_places(FEATURES)


def _row(**values: float) -> list[float]:
    row = [0.0] * len(FEATURES)
    for name, value in values.items():
        row[PLACES[name]] = value
    return row


def _col(rows: list[list[float]], name: str) -> list[float]:
    return [r[FILE_FEATURES.index(name)] for r in rows]


def test_file_places_follow_the_files_best_and_second_candidates() -> None:
    rows = [_row(bm25_q=0.9, file_bm25_q=0.2), _row(bm25_q=0.5, file_bm25_q=1.0),
            _row(bm25_q=0.6, file_bm25_q=1.0), _row(bm25_q=0.1, file_bm25_q=0.2)]
    paths = ["a.py", "b.py", "b.py", "a.py"]
    out = file_columns(rows, paths, PLACES, frozenset({"retry"}), None)
    assert len(out) == 4 and all(len(r) == len(FILE_FEATURES) for r in out)
    # whole-file BM25: b.py first; best candidate BM25: a.py first (0.9 > 0.6)
    assert _col(out, "f_bm25_rr") == [0.5, 1.0, 1.0, 0.5]
    assert _col(out, "f_best_bm25_rr") == [1.0, 0.5, 0.5, 1.0]
    assert _col(out, "f_best_bm25") == [0.9, 0.6, 0.6, 0.9]
    assert _col(out, "f_second_bm25") == [0.1, 0.5, 0.5, 0.1]
    # two candidates each: the tie keeps the first seen file first
    assert _col(out, "f_count_rr") == [1.0, 0.5, 0.5, 1.0]
    # no history: its columns are zero
    assert set(_col(out, "f_hist_bm25")) == {0.0} and set(_col(out, "f_hist_commits")) == {0.0}


def test_a_file_with_no_match_has_no_place() -> None:
    rows = [_row(path_cov=0.5), _row(path_cov=0.0)]
    out = file_columns(rows, ["retry/policy.py", "other.py"], PLACES, frozenset({"retry"}), None)
    assert _col(out, "f_path_rr") == [1.0, 0.0]


def test_file_history_counts_distinct_commits_and_scores_their_words() -> None:
    history = file_history(
        {"def:a.py::f": ["c1", "c2"], "def:a.py::g": ["c2", "c3"], "def:b.py::h": ["c4"],
         "def:c.py::k": ["c9"]},
        {"c1": frozenset({"retry"}), "c2": frozenset({"timeout"}), "c3": frozenset({"pool"}),
         "c4": frozenset({"parser", "retry"}), "c9": frozenset()})
    assert history.commits == {"a.py": 3, "b.py": 1}  # c.py: no words, no document
    assert history.words["a.py"] == {"retry", "timeout", "pool"}
    rows = [_row(), _row(), _row()]
    question = frozenset({"retry", "timeout"})
    out = file_columns(rows, ["b.py", "a.py", "c.py"], PLACES, question, history)
    assert _col(out, "f_hist_commits") == pytest.approx([math.log1p(1), math.log1p(3), 0.0])
    assert _col(out, "f_hist_cov") == [0.5, 1.0, 0.0]
    assert _col(out, "f_hist_bm25")[1] == 1.0  # a.py holds both words: the best file
    assert 0.0 < _col(out, "f_hist_bm25")[0] < 1.0
    assert _col(out, "f_hist_rr") == [0.5, 1.0, 0.0]


def test_the_same_rows_give_the_same_columns_in_any_candidate_order() -> None:
    rows = [_row(bm25_q=0.3, name_cov=0.5), _row(bm25_q=0.7), _row(body_score=0.2)]
    paths = ["x.py", "y.py", "x.py"]
    out = file_columns(rows, paths, PLACES, frozenset(), None)
    back = file_columns(rows[::-1], paths[::-1], PLACES, frozenset(), None)
    # a file's columns depend on its candidates, not their order (places: ties aside)
    assert out[0] == out[2] == back[0] and out[1] == back[1]
