"""A unit check answers what the quoted line says (issue 32): a line that denies the unit is
never answered "the evidence gives it in <unit>" nor gated `confirmed`, and "are you sure?"
does not say otherwise; a line that states the unit still is, and still confirms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from talk_fixtures import Talk

from controller.continuity.recall import meta_answer
from evals.unit_lines import judge
from helix.core.config import HelixConfig

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning"
                   / "unit_lines.json").read_text(encoding="utf-8"))
DENIALS = [line for line in DATA["lines"] if line["reading"] == "denies"]
STATES = [line for line in DATA["lines"] if line["reading"] == "states"]
THRESHOLD = HelixConfig().retrieval.coverage_threshold


@pytest.mark.parametrize("line", DENIALS, ids=[line["text"][:60] for line in DENIALS])
def test_a_line_that_denies_the_unit_is_answered_and_gated_as_it_says(line: dict[str, str]
                                                                      ) -> None:
    judged = judge(line, DATA["quantity"], THRESHOLD)
    assert not judged["gives_unit"], judged["lead"]
    assert judged["truth_mode"] == "limited", judged
    if line["instead"]:
        assert judged["lead"].startswith(
            f"The evidence gives the tile pressure in {line['instead']}, not in "
            f"{line['unit']}, in "), judged["lead"]
    else:
        assert judged["lead"].startswith(
            f"The evidence says the tile pressure is not in {line['unit']}, in "), judged["lead"]


@pytest.mark.parametrize("line", STATES, ids=[line["text"][:60] for line in STATES])
def test_a_line_that_states_the_unit_is_still_confirmed(line: dict[str, str]) -> None:
    judged = judge(line, DATA["quantity"], THRESHOLD)
    assert judged["gives_unit"] and judged["truth_mode"] == "confirmed", judged


TILES = '''"""Casimir tiles and the pressure between them."""


def tile_pressure(gap: float) -> float:
    """The Casimir tile pressure between two plates.

    The tile pressure is returned in pascal; it is never expressed in GPa.
    """
    return 1.3e-27 / gap ** 4
'''


def test_the_issue_conversation_answers_limited_and_are_you_sure_agrees(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "lumen").mkdir(parents=True)
    (root / "lumen" / "tiles.py").write_text(TILES, encoding="utf-8")
    talk = Talk(root)
    turn = talk("Is the tile pressure in GPa?")
    assert turn.envelope is not None
    lead = next(line for line in turn.answer.splitlines() if line.startswith("The evidence"))
    assert lead.startswith("The evidence gives the tile pressure in pascal, not in GPa, in "), (
        turn.answer)
    gate = talk.state().coverage_gate_state
    assert (gate.truth_mode, gate.coverage_status) == ("limited", "partial")
    assert "missing:unit_or_value" in gate.reason_codes
    answer, truth = meta_answer(turn, "are you sure?")
    assert truth == "limited" and "unit_or_value missing" in answer
    # asked in the conversation itself: the same, and the gate does not turn `confirmed`
    sure = talk("are you sure?")
    assert "unit_or_value missing" in sure.answer and "confirmed" not in sure.answer.lower()
    assert talk.state().coverage_gate_state.truth_mode == "limited"
