"""Four structures of a line that denies the asked unit without a negation reaching it
(issue 32, meaning17), each a class read from the sentence's structure: a contrast clause
fronted before the main one ends at its comma ("Although the UI shows mm, the stored value is
in micrometres"); a one-letter unit as the complement of "is" ("the setting is V"); a
definition of one unit by another ("1 mm = 36000 EMU") states nothing of the quantity; a
question whose reply names another unit of its dimension ("Q: ..., mm?\\nA: Points."). The
cases that deny fail on main (read there as stating the unit); the ones that state guard the
wordings each structure must leave alone. Wordings of no data set."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit

QUANTITY = ("tile pressure", "supply voltage", "current", "frame size")


@pytest.mark.parametrize(("text", "unit", "instead"), [
    # a fronted contrast clause: the unit of the main clause after its comma is a second answer
    ("Note: although the panel shows kPa, the saved value is in bar.", "kPa", "bar"),
    ("Whereas the old form took kPa, the stored value is psi.", "kPa", "psi"),
    # a one-letter unit after "is"
    ("VREF = cfg['vref']  # this value is V; the mV figure is only for display", "mV", "V"),
    ("The supply voltage is V, and the mV label on the chart is wrong.", "mV", "V"),
    # a definition of the asked unit by another
    ("Frame size: in cells, not mm. 1 mm = 4 cells.", "mm", "cells"),
    ("Drive current: in steps, not mA. 4 steps = 1 mA.", "mA", "steps"),
    # a question answered with another unit, no "no"
    ("Q: the tile pressure, GPa?\nA: Bar. Always bar.", "GPa", "Bar"),
    ("Current in mA?\nAmps, as the driver reads it.", "mA", "Amps"),
])
def test_the_line_denies_the_unit(text: str, unit: str, instead: str) -> None:
    assert not states_unit(text, unit, QUANTITY)
    assert stated_instead(text, unit, QUANTITY) == instead


@pytest.mark.parametrize(("text", "unit"), [
    ("The request timeout is in ms, while the retry delay is in seconds.", "ms"),
    ("Although the dashboard displays bar, the stored tile pressure is GPa.", "GPa"),
    ("Although it looks odd, the tile pressure is in GPa.", "GPa"),
    ("The current limit is in mA (the UI shows A, e.g. 1500 mA = 1.5 A).", "mA"),
    ("Tile pressure is in GPa (1 GPa = 1000 MPa).", "GPa"),
    ("Q: the tile pressure, GPa?\nA: GPa, yes; MPa only on the chart.", "GPa"),
    ("Is the current in mA? Yes.", "mA"),
    ("This is A grade steel; the current is in mA.", "mA"),
])
def test_the_line_still_states_the_unit(text: str, unit: str) -> None:
    assert states_unit(text, unit, QUANTITY)


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("The fee is in pounds rather than pence.", "pence", "pounds"),
    ("Fees are charged in pounds, not cents.", "cents", "pounds"),
    ("The parcel weight is in kilograms, not pounds.", "pounds", "kilograms"),
])
def test_a_name_of_two_dimensions_is_read_in_the_asked_one(text: str, unit: str,
                                                           instead: str) -> None:
    """"pounds" is a mass in the table and the pound sterling where money is asked (units.toml
    [elsewhere]; main named no unit instead of pence or cents)."""
    assert not states_unit(text, unit, QUANTITY)
    assert stated_instead(text, unit, QUANTITY) == instead


def test_a_value_in_pounds_is_no_second_answer_for_money() -> None:
    assert states_unit("The fee is in pence; the parcel weighs 2 pounds.", "pence", QUANTITY)


@pytest.mark.parametrize("text", [
    "PRESSURE_GPA = 0.05  # about half a bar short of the limit, in GPa",
    "Tile pressure is reported in GPa; one psi is a tiny fraction of it.",
])
def test_a_unit_after_a_number_in_words_and_an_article_is_a_value(text: str) -> None:
    """"half a bar" is a value, as "0.5 bar" is: no second answer (main read a rival)."""
    assert states_unit(text, "GPa", QUANTITY)
