"""The learned unit judge measured against the rules (units29, evals/unit_train.py): the line
as the encoder sees it, the veto's arithmetic, the pre-stated shipping rule, and the recorded
leave-one-set-out result (benchmarks/results/unit_judge_loso.json) against the data it names."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from evals.unit_train import OUT, cost, errors, marked, ships, training_files
from helix.core.hashing import digest_file


def test_the_line_is_marked_so_the_head_reads_no_unit_names() -> None:
    assert marked("The `fontSize` option is in CSS pixels, not points.", "pt") == \
        "The `fontSize` option is in CSS [other], not [unit]."
    assert marked("Torque is 20 kgf·cm, never N·m.", "N·m") == "Torque is 20 [other], never [unit]."
    assert marked("Values in GPa are not rounded.", "GPa") == "Values in [unit] are not rounded."


def test_a_veto_takes_a_line_from_confirmed_and_costs_a_statement() -> None:
    rules = np.array([[True, True], [True, True], [True, False]])  # given/confirmed
    y = np.array([1.0, 0.0, 1.0])  # a denial, a statement, a denial given but not confirmed
    assert errors(np.array([False, False, False]), rules, y) == (2, 0)
    assert errors(np.array([True, True, True]), rules, y) == (0, 1)
    assert cost((2, 0)) == 4 and cost((0, 1)) == 1


def test_the_head_ships_only_if_the_left_out_cost_falls_and_no_set_loses_more_than_one() -> None:
    before = {"a": [1, 0], "b": [0, 0]}
    assert ships({"cost_before": 2, "cost_after": 1, "before": before,
                  "after": {"a": [0, 0], "b": [0, 1]}})
    assert not ships({"cost_before": 2, "cost_after": 2, "before": before,
                      "after": {"a": [0, 0], "b": [0, 2]}})
    assert not ships({"cost_before": 4, "cost_after": 2, "before": {"a": [2, 0], "b": [0, 0]},
                      "after": {"a": [0, 0], "b": [0, 2]}})  # b is 2 worse


def test_the_recorded_result_is_of_the_sets_there_are_and_adds_up() -> None:
    result = json.loads(Path(OUT).read_text(encoding="utf-8"))
    assert result["training_data"] == {p.name: digest_file(p) for p in training_files()}, \
        "a unit-line set changed or was added: run `python -m evals.unit_train`"
    loso = result["leave_one_set_out"]
    assert len(loso["before"]) == len(training_files())
    for key in ("before", "after"):
        assert loso[f"cost_{key}"] == sum(cost(c) for c in loso[key].values())
    assert loso["cost_chosen_elsewhere"] == sum(cost(c) for c in loso["chosen_elsewhere"].values())
    assert result["head"]["ships"] == ships(loso)
    assert sum(result["lines"].values()) == sum(
        len(json.loads(p.read_text(encoding="utf-8"))["lines"]) for p in training_files())
