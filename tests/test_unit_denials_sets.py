"""Every written unit-line set (issue 32), tune sets included: no line that denies the unit is
answered "the evidence gives it in <unit>" or gated `confirmed`, and every line that states it
still is. unit_lines_tune7.json (99 denials, 36 statements) was written by the absence5 helper
in structures the earlier sets lacked; on the code before it, 4 of its denials were confirmed
and 1 statement was not, and unit_lines_fresh6.json had 2 and 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.units import stated_instead, states_unit, unit_name
from evals.unit_lines import judge
from helix.core.config import HelixConfig

MEANING = Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning"
SETS = sorted(MEANING.glob("unit_lines*.json"))
THRESHOLD = HelixConfig().retrieval.coverage_threshold
QUANTITY = ("tile pressure",)


def _lines() -> list[tuple[str, dict[str, str]]]:
    out = []
    for path in SETS:
        data = json.loads(path.read_text(encoding="utf-8"))
        out += [(data["quantity"], line) for line in data["lines"]]
    return out


LINES = _lines()
DENIALS = [(q, line) for q, line in LINES if line["reading"] == "denies"]
STATES = [(q, line) for q, line in LINES if line["reading"] == "states"]
# a statement left unconfirmed (the safe side): a second unit stated in the line for another
# use makes neither unit confirmed (controller/units.py: two answers)
LEFT = {"Tile pressure is stored in GPa; MPa is only used for display."}


def test_the_sets_hold_thirty_denials_of_the_new_wordings() -> None:
    tune7 = json.loads((MEANING / "unit_lines_tune7.json").read_text(encoding="utf-8"))
    assert sum(line["reading"] == "denies" for line in tune7["lines"]) >= 30


@pytest.mark.parametrize(("quantity", "line"), DENIALS,
                         ids=[line["text"][:50] for _, line in DENIALS])
def test_a_denial_is_never_answered_in_the_unit_nor_confirmed(quantity: str,
                                                               line: dict[str, str]) -> None:
    judged = judge(line, quantity, THRESHOLD)
    assert not judged["gives_unit"] and not judged["confirmed"], judged


def test_every_statement_but_the_named_one_is_still_confirmed() -> None:
    missed = {line["text"] for q, line in STATES
              if not judge(line, q, THRESHOLD)["confirmed"]}
    assert missed <= LEFT, missed - LEFT


@pytest.mark.parametrize(("text", "states"), [
    ("Q: Does tile pressure come out in GPa?  A: No.", False),  # a labelled reply
    ("GPa? Definitely not, for tile pressure.", False),
    ("Values are megapascals (older docs say GPa, they are wrong).", False),  # "they" judged
    ("Mentions of GPa for tile pressure are a leftover and incorrect.", False),
    ("Tile pressure in GPa is no longer supported.", False),  # validity judges the subject
    ("Tile pressure: GPa not accepted.", False),  # a telegraphic validity predicate
    ("GPa values for tile pressure are rejected by the validator.", False),
    ("Values in GPa are not rounded.", True),  # any other predicate does not
    ("Is tile pressure in GPa? Not since 2.0.", False),  # a reply of time, what follows it
    ("| tile_pressure | GPa | deprecated |", False),  # a table cell judges the one before
    ("If anyone tells you tile pressure is in GPa, they're mistaken.", False),
    ("The GPa figure for tile pressure is bogus.", False),
    ("Tile pressure moved off GPa in 2.0.", False),
    ("Tile pressure switched to GPa; MPa is gone.", True),
    ("Assuming GPa for tile pressure will break the solver.", False),  # harm judges its subject
    ("Tile pressure in GPa? That was the old API.", False),
    ("The doc claiming GPa for tile pressure is out of date.", False),
    ("We no longer use MPa for the tile pressure; it is GPa now.", True),
    ("It is not true that tile pressure is in MPa; it is in GPa.", True),
    ("# Note: keep GPa for tile pressure, the MPa migration was cancelled", True),
])
def test_negation_scope_by_structure(text: str, states: bool) -> None:
    assert states_unit(text, "GPa", QUANTITY) == states


def test_an_alias_names_the_unit_instead() -> None:
    assert unit_name("megapascals") == unit_name("MPa") == "MPa"
    assert stated_instead("GPa was dropped in v2; it has returned megapascals ever since.",
                          "GPa") == "megapascals"
