"""Judging a change of the absence head's features at fixed settings (issue 32, absence29):
`python -m evals.absence_train --at-settings MANIFEST` scores the leave-one-writer-out table
with each held writer's setting (mode, ridge, threshold) taken from MANIFEST instead of chosen
again by the nested leave-one-writer-out, so a variant's table moves with its features only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evals.absence_train import (
    SettingsError,
    choose,
    compare,
    leave_one_writer_out,
    main,
    recorded_settings,
    table_cost,
)


def _rows() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Four writers of 30 answers each (half claims), one noisy feature and the rules' verdict
    wrong on a few answers of writer "b"."""
    rng = np.random.default_rng(11)
    writers = np.repeat(np.array(["a", "b", "c", "d"]), 30)
    y = (np.arange(120) % 2).astype(float)
    verdict = y > 0.5
    verdict[30:36] = ~verdict[30:36]
    x = np.column_stack([y + rng.normal(scale=0.8, size=120), verdict.astype(float)])
    return x, y, verdict, writers, np.zeros((120, 3), dtype=bool)


def test_a_fixed_setting_is_the_one_scored_for_its_writer() -> None:
    x, y, verdict, writers, post = _rows()
    nested = leave_one_writer_out(x, y, verdict, writers, post)
    # the settings the nested choice made, given back: the same table
    same = {wr: row["setting"] for wr, row in nested.items()}
    assert leave_one_writer_out(x, y, verdict, writers, post, same) == nested
    # writer "b" held out with no head at all: its table is the rules' own, whatever the
    # nested choice would pick; the others as given
    fixed = {wr: {"mode": "stack", "l2": 10.0, "threshold": 0.5} for wr in "acd"}
    fixed["b"] = {"mode": "none", "l2": 0.0, "threshold": 0.0}
    table = leave_one_writer_out(x, y, verdict, writers, post, fixed)
    assert {wr: row["setting"] for wr, row in table.items()} == fixed
    assert table["b"]["after"] == table["b"]["before"] == [3, 3]
    # "a" at a threshold its nested choice did not make: scored there, not re-chosen
    rest = writers != "a"
    chosen = choose(x[rest], y[rest], verdict[rest], writers[rest], post[rest])
    other = {**same, "a": {"mode": "stack", "l2": 1.0,
                           "threshold": 0.9 if chosen.get("threshold") != 0.9 else 0.1}}
    assert leave_one_writer_out(x, y, verdict, writers, post, other)["a"]["setting"] == \
        other["a"] != chosen


def test_compare_sums_the_cost_and_names_every_writer_that_moved() -> None:
    base = {"p": {"after": [2, 1]}, "q": {"after": [0, 3]}, "r": {"after": [1, 1]}}
    variant = {"p": {"after": [1, 1]}, "q": {"after": [1, 3]}, "r": {"after": [1, 1]}}
    assert table_cost(base) == {"p": 5, "q": 3, "r": 3}
    result = compare(base, variant)
    assert result["before"] == [3, 5, 11] and result["after"] == [3, 5, 11]
    assert result["moved"] == {"p": [5, 3], "q": [3, 5]}
    assert result["largest_rise"] == 2  # q rose by 2 although the sum held: not kept
    assert compare(base, base) == {"before": [3, 5, 11], "after": [3, 5, 11], "moved": {},
                                   "largest_rise": 0}


def test_a_manifest_missing_a_writer_is_a_one_line_error(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"leave_one_writer_out": {
        "a": {"setting": {"mode": "stack", "l2": 1.0, "threshold": 0.4}}}}), encoding="utf-8")
    assert recorded_settings(manifest, {"a"}) == {
        "a": {"mode": "stack", "l2": 1.0, "threshold": 0.4}}
    with pytest.raises(SettingsError):
        recorded_settings(manifest, {"a", "b"})
    with pytest.raises(SettingsError):
        recorded_settings(tmp_path / "absent.json", {"a"})
    # the trainer stops before computing any feature: every real writer is missing here
    assert main(["--out", str(tmp_path / "out"), "--at-settings", str(manifest)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err
    assert not (tmp_path / "out").exists()
