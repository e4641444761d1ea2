"""Units by the structure of a line (issue 32, meaning13): the classes fresh14's misses were,
in new wordings of other quantities (no data set's text): struck-out markup retracts a unit
and what follows the strike replaces it; a two-letter name typed in lower case ("kv") where a
unit stands; an identifier whose last part is a mixed-case unit name (`rail_kV`) kept whole;
the correction after "but" and a value's comment naming a one-letter unit instead; a share
("a percentage of ...") as the unit instead of any dimension's."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit, unit_lines, unit_name

RAIL = ("supply rail voltage",)
COOLING = ("cooling temperature",)
PRESSURE = ("tile pressure",)


@pytest.mark.parametrize(("line", "unit", "quantity", "instead"), [
    ("The cooling temperature is reported in <del>mK</del> K.", "mK", COOLING, "K"),
    ("The cooling temperature is ~~in mK~~ (see the changelog).", "mK", COOLING, None),
    ("| supply rail voltage | <s>kV</s> V |", "kV", RAIL, "V"),
])
def test_a_struck_out_unit_is_retracted_and_replaced(line: str, unit: str,
                                                     quantity: tuple[str, ...],
                                                     instead: str | None) -> None:
    assert not states_unit(line, unit, quantity)
    assert stated_instead(line, unit, quantity) == instead


def test_a_strike_elsewhere_in_the_line_retracts_nothing() -> None:
    assert states_unit("~~Old note.~~ The tile pressure is in GPa.", "GPa", PRESSURE)
    assert states_unit("The cooling temperature is in ~~K~~ mK now.", "mK", COOLING)


def test_a_two_letter_name_in_lower_case_where_a_unit_stands() -> None:
    assert states_unit("the supply rail voltage is in kv", "kV", RAIL)
    assert states_unit("rail at 12 kv", "kV", RAIL)
    assert stated_instead("the supply rail voltage isnt in kv, its in V", "kV", RAIL) == "V"
    assert not unit_lines("run mv to rename the kv file", "mV", RAIL)
    # a lower-cased name that folds to two units names neither ("mw": mW or MW)
    assert unit_name("mw") is None and unit_name("kv") == "kV"


def test_an_identifier_ending_in_a_mixed_case_unit_names_it() -> None:
    from controller.unit_identifiers import identifier_words

    assert identifier_words("rail_kV") == ["rail", "kV"]
    assert identifier_words("cacheLifetimeHours") == ["cache", "Lifetime", "Hours"]
    # a negation about something else in the line does not reach the name's unit
    assert states_unit("const uint16_t rail_kV = 12; // never changed at runtime", "kV", RAIL)
    assert stated_instead("float rail_kV = 0.4;  // not in V", "V", RAIL) == "kV"


@pytest.mark.parametrize(("line", "instead"), [
    ("Not mK but K: `cooling_temperature = 4`", "K"),
    ("cooling_temperature: 4.2  # K, not mK", "K"),
])
def test_a_one_letter_unit_as_the_correction(line: str, instead: str) -> None:
    assert not states_unit(line, "mK", COOLING)
    assert stated_instead(line, "mK", COOLING) == instead


def test_a_share_is_the_unit_instead_whatever_the_dimension() -> None:
    line = "The tile pressure is set as a fraction of the rated load, not in GPa."
    assert stated_instead(line, "GPa", PRESSURE) == "fraction"
    assert stated_instead("The cooling temperature isn't in mK; it's a percentage of the "
                          "limit.", "mK", COOLING) == "percentage"
    # a share asked about is no share instead of another share
    assert stated_instead("It is a fraction, not a percentage.", "percent", PRESSURE) in (
        None, "fraction")


def test_centivolts_are_a_unit_of_voltage() -> None:
    assert unit_name("centivolts") == "cV" and unit_name("cV") == "cV"
