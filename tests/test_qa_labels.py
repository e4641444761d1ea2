"""The question model's round-12 training variants (`evals.corpus.qa_labels`): labels that
count what SWE-QA dev's gold counts, and rows without test candidates."""

from __future__ import annotations

import numpy as np

from controller.rank_bridge import QUESTION_FEATURES
from evals.corpus.qa_labels import overlap_labels, without_tests
from evals.corpus.ranker_train import Groups


def test_a_candidate_overlapping_a_named_class_or_a_cited_range_is_positive() -> None:
    candidates = [["pkg/a.py", "Box.get", 12, 20],  # a method of the named class Box
                  ["pkg/a.py", "", 40, 44],  # module text inside a cited range
                  ["pkg/a.py", "other", 50, 60],  # past both
                  ["pkg/b.py", "Box.get", 12, 20]]  # another file's lines
    spans = [("pkg/a.py", 10, 30), ("pkg/a.py", 42, 43)]
    assert overlap_labels(candidates, spans) == [1, 1, 0, 0]


def test_without_tests_drops_test_candidates_and_zeroes_the_column() -> None:
    test = list(QUESTION_FEATURES).index("is_test")
    x = np.zeros((5, len(QUESTION_FEATURES)))
    x[[1, 3], test] = 1.0
    x[:, 0] = np.arange(5)
    data = Groups(x, np.asarray([1, 0, 0, 0, 1]), np.asarray([3, 2]),
                  np.asarray([0, -1, -1, -1, 0]), np.asarray([1, 1]),
                  [["a.py", "tests/t.py", "b.py"], ["tests/u.py", "c.py"]], [["a.py"], ["c.py"]])
    kept = without_tests(data, QUESTION_FEATURES)
    assert kept.group.tolist() == [2, 1] and kept.files == [["a.py", "b.py"], ["c.py"]]
    assert kept.x[:, 0].tolist() == [0, 2, 4] and kept.y.tolist() == [1, 0, 1]
    assert not kept.x[:, test].any() and kept.target_of.tolist() == [0, -1, 0]
