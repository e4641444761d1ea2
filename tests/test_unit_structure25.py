"""Unit denials by structure, round 21 (issue 32, meaning25): what fresh24 (speed in m/s)
showed the reading lacked, in wordings of no data set. A question in emphasis is read with
the line that answers it; an evaluative label may carry a time before its mark ("Deprecated
since 2.4:"); full-width marks of Chinese and Japanese text are the marks they write; "never"
and "not" as Spanish, Russian and Chinese lines say them; a past cue's sequels ("originally
psi, then kPa in 2.1, ... since 3.0") are over with it; and another unit in arithmetic the
reader is told to do ("Multiply by 1000 for MPa") or in a question no one answers yes is no
second answer. Each case fails on the code before meaning25."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit, unit_name

QUANTITY = ("tile pressure",)


@pytest.mark.parametrize(("text", "states"), [
    # a question in emphasis, answered on the next line
    ("**Q: Is the tile pressure reported in GPa?**\nA: No. It is in kilopascals.", False),
    ("*Is tile pressure in GPa?*\nNo, kPa.", False),
    # a label with a time before its mark
    ("Deprecated since 3.1: passing tile pressure in GPa.", False),
    ("Obsolete as of v2: tile pressure in GPa.", False),
    # Chinese and Japanese marks; Chinese, Russian and Spanish negations
    ("瓦片压力：不是 GPa。", False),
    ("压力以 GPa 为单位，而不是 MPa。", True),
    ("圧力の単位は GPa です（MPa ではありません）。", True),
    ("Давление плитки задаётся не в GPa.", False),
    ("La presión de la baldosa se expresa en GPa, nunca en MPa.", True),
    ("La presión de la baldosa nunca se expresa en GPa.", False),
    # the past and what followed it, until what holds now
    ("Originally reported in psi, then kPa in 2.1, the tile pressure has been GPa since 3.0.",
     True),
    # arithmetic the reader does; a question nobody answers yes
    ("Tile pressure is returned in GPa. Multiply by 1000 for MPa.", True),
    ("Tile pressure is in GPa; divide by 1000 if you need TPa.", True),
    ("ValueError: tile pressure must be in GPa (0 < p <= 9), got 4000 -- did you pass MPa?",
     True),
])
def test_the_structure_decides(text: str, states: bool) -> None:
    assert states_unit(text, "GPa", QUANTITY) == states, text


def test_what_is_reckoned_or_asked_is_still_a_second_answer_where_it_is_stated() -> None:
    """Guards: the clause after the arithmetic states a unit of its own; a question answered
    yes states what it asks; a clause before the question's clause is no part of it."""
    assert not states_unit("The old setting was GPa (meaning tile pressure), multiply by "
                           "1000 — the setting now takes MPa.", "GPa", QUANTITY)
    assert not states_unit("Tile pressure is in GPa. Is the gauge in MPa? Yes.", "GPa", QUANTITY)
    assert not states_unit("Tile pressure is in kPa, did you mean GPa?", "GPa", QUANTITY)
    assert stated_instead("Tile pressure is in kPa, did you mean GPa?", "GPa", QUANTITY) == "kPa"


@pytest.mark.parametrize("text", [
    "The anemometer gives the wind speed in knots, not m/s.",
    "Wind speed: kn (never m/s).",
    "Die Windgeschwindigkeit ist nicht in m/s, sondern in Knoten.",
    "La velocidad del viento se da en nudos, no en m/s.",
])
def test_a_knot_is_a_speed_named_instead(text: str) -> None:
    """A knot is a nautical mile per hour (units.toml's named compounds): the unit a line
    denying m/s gives instead, in the names lines in English, German and Spanish use."""
    instead = stated_instead(text, "m/s", ("wind speed",))
    assert instead is not None and unit_name(instead) == unit_name("knots") == "nmi/h", text
    assert not states_unit(text, "m/s", ("wind speed",))
