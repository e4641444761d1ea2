"""Rows collected before the association table was retired train today's model: its columns
are dropped, and so are the candidates only it brought (as if it had never run); rows of any
other feature list are refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from controller.rank_features import FEATURES
from evals.corpus.mine import CorpusCase, Target
from evals.corpus.ranker_train import repo_groups
from helix.core.errors import ConfigError

OLD = [*FEATURES[:FEATURES.index("from_history") + 1], "from_assoc",
       *FEATURES[FEATURES.index("from_history") + 1:], "assoc_score", "assoc_hits"]


def _case() -> CorpusCase:
    return CorpusCase(id="r@1", repo="r", language="python", split="train", revision="R",
                      commit="1", parent="p", committed=0, message="fix the parser",
                      truncated=False, targets=(Target(path="a.py", qualname="parse",
                                                       kind="function", start=1, end=5),),
                      files=("a.py",), names_target=False, exact=True)


def _write(path: Path, names: list[str]) -> np.ndarray:
    x = np.arange(3 * len(names), dtype=np.float64).reshape(3, len(names)) + 1.0
    if "from_assoc" in names:
        x[:, names.index("from_assoc")] = [0.0, 1.0, 0.0]  # the second: the table's alone
    np.savez_compressed(path.with_name(path.name + ".npz"), x=x,
                        y=np.asarray([1, 0, 0], dtype=np.int32),
                        group=np.asarray([3], dtype=np.int64))
    side = {"features": names, "cases": [{"id": "r@1", "targets": 1, "in_pool": 1,
                                          "candidates": [["a.py", "parse", 1, 5],
                                                         ["b.py", "tokens", 1, 9],
                                                         ["c.py", "lex", 1, 4]]}]}
    path.with_name(path.name + ".json").write_text(json.dumps(side), encoding="utf-8")
    return x


def test_rows_with_the_association_table_read_as_rows_without_it(tmp_path: Path) -> None:
    x = _write(tmp_path / "r", OLD)
    groups = repo_groups(tmp_path / "r", {"r@1": _case()})
    assert list(groups.group) == [2] and groups.files == [["a.py", "c.py"]]
    assert groups.x.shape == (2, len(FEATURES))
    columns = [OLD.index(f) for f in FEATURES]
    assert np.array_equal(groups.x, x[[0, 2]][:, columns])
    assert list(groups.y) == [1, 0] and list(groups.target_of) == [0, -1]


def test_rows_of_todays_list_read_as_they_are(tmp_path: Path) -> None:
    x = _write(tmp_path / "r", list(FEATURES))
    groups = repo_groups(tmp_path / "r", {"r@1": _case()})
    assert np.array_equal(groups.x, x) and list(groups.group) == [3]


def test_rows_of_another_list_are_refused(tmp_path: Path) -> None:
    _write(tmp_path / "r", [*FEATURES, "something_else"])
    with pytest.raises(ConfigError, match="another feature list"):
        repo_groups(tmp_path / "r", {"r@1": _case()})
