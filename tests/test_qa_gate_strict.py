"""Round 25's added gate rules (`benchmarks/qa_gate.py --strict`): no pooled measure lower on
either set, and the measures a candidate cannot move unchanged question for question."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from qa_gate import extended, per_repo, strict


def _case(i: int, file: int, span: int | None, symbol: int | None, recall: bool) -> dict:
    return {"id": i, "helix_file_rank": file, "helix_span_rank": span,
            "helix_symbol_rank": symbol, "helix_recall": recall, "gold_spans": ["x"],
            "gold_symbols": ["x"]}


def _result(rows: list[tuple[int, int | None, int | None, bool]]) -> dict:
    return {"results": {"proj": {"cases": [_case(i, *r) for i, r in enumerate(rows)]}}}


HAND = _result([(1, 1, 1, True), (2, 7, 7, True), (1, 3, 9, True), (1, 9, 9, False)])
# span@5 +1 (question 1), symbol@5 -1 (question 0): the sum is level, symbol lower
SYMBOL_LOWER = _result([(1, 1, 9, True), (2, 3, 7, True), (1, 3, 9, True), (1, 9, 9, False)])
# span@5 +1 and symbol@5 +1 (question 1)
BETTER = _result([(1, 1, 1, True), (2, 3, 3, True), (1, 3, 9, True), (1, 9, 9, False)])
# as BETTER, but recall trades question 3 for question 4: the pooled count is level
RECALL_TRADED = _result([(1, 1, 1, True), (2, 3, 3, True), (1, 3, 9, False),
                         (1, 9, 9, True)])


def _gate(cand: dict, val_cand: dict, fixed: tuple[str, ...] = ()) -> dict:
    hand, c, vc = per_repo(HAND), per_repo(cand), per_repo(val_cand)
    return strict(extended(hand, c, hand, vc), [(hand, c, HAND, cand), (hand, vc, HAND,
                                                                         val_cand)], fixed)


def test_a_candidate_better_on_every_measure_of_both_sets_passes() -> None:
    gate = _gate(BETTER, BETTER, ("file@1", "recall"))
    assert gate["rule_4_no_measure_lower"] and gate["rule_5_fixed_unchanged"]
    assert gate["promote"]


def test_a_lower_measure_on_either_set_fails_rule_4() -> None:
    assert not _gate(BETTER, SYMBOL_LOWER)["rule_4_no_measure_lower"]
    assert not _gate(BETTER, SYMBOL_LOWER)["promote"]
    assert not _gate(SYMBOL_LOWER, BETTER)["promote"]


def test_a_fixed_measure_traded_question_for_question_fails_rule_5() -> None:
    gate = _gate(BETTER, RECALL_TRADED, ("recall",))
    assert gate["pooled_delta_by_set"]["recall"] == [0, 0]  # the counts alone do not see it
    assert not gate["rule_5_fixed_unchanged"] and not gate["promote"]
    assert _gate(BETTER, RECALL_TRADED)["promote"]  # not a fixed measure: only the counts
