"""Units by the structure of a line (issue 32, meaning14): the classes of fresh15's misses, in
new wordings of other quantities (no data set's text). A question is answered by the next
line with text, past blank lines and a quote's marks alone; a code comment's marks ("/*",
"//") open a clause of their own, and a one-letter unit after a value's "/*" is the value's; a
unit's name in another spelling ("milligrammes", German "Milligramm") and a German negation
("nicht"); a two-letter name typed in capitals ("KM", "MS") where a unit stands or its clause
calls it a unit; another unit in what a concession sets aside ("despite what ... said about
X") or in what a value is converted from ("convert miles with ...") is no second answer."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit, unit_lines, unit_name

FLUSH = ("flush interval",)
QUOTA = ("quota",)
OVEN = ("oven temperature",)
DOSE = ("dose",)
ROUTE = ("route length",)


@pytest.mark.parametrize(("text", "unit", "quantity", "instead"), [
    ("> Is the flush interval in ms?\n>\n> No, whole seconds.", "ms", FLUSH, "seconds"),
    ("### Is the quota in MB?\n\nNo. It is counted in GiB.", "MB", QUOTA, "GiB"),
])
def test_a_question_is_answered_past_a_blank_line(text: str, unit: str,
                                                 quantity: tuple[str, ...],
                                                 instead: str) -> None:
    assert not states_unit(text, unit, quantity), text
    assert stated_instead(text, unit, quantity) == instead, text


def test_a_question_answered_yes_past_a_blank_line_still_states() -> None:
    assert states_unit("> Is the quota in MB?\n>\n> Yes, MB throughout.", "MB", QUOTA)


@pytest.mark.parametrize(("text", "unit", "quantity", "instead"), [
    ("#define OVEN_LIMIT 450 /* C, not K */", "K", OVEN, "C"),
    ('const char *FLUSH_UNIT = "sec"; // was "ms" before 3.0', "ms", FLUSH, "sec"),
    ('QUOTA_UNIT = "GiB"  /* was "MB" until 2.0 */', "MB", QUOTA, "GiB"),
])
def test_a_code_comment_is_a_clause_of_its_own(text: str, unit: str,
                                               quantity: tuple[str, ...], instead: str) -> None:
    assert not states_unit(text, unit, quantity), text
    assert stated_instead(text, unit, quantity) == instead, text


def test_another_spelling_of_a_name_and_a_german_negation() -> None:
    assert unit_name("milligrammes") == unit_name("Milligramm") == "mg"
    assert unit_name("programme") is None
    assert states_unit("The dose is given in milligrammes, rounded down.", "mg", DOSE)
    line = "Die Dosis ist in Milligramm, nicht in Gramm."
    assert not states_unit(line, "g", DOSE)
    assert stated_instead(line, "g", DOSE) == "Milligramm"


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("MS is the only unit the flush interval accepts.", "ms", FLUSH, True),
    ("route_length: 12 KM", "km", ROUTE, True),
    ("The route length is in KM, never in miles.", "km", ROUTE, True),
    # a word that only looks like one is no unit: not where a unit stands, nor called one
    ("Ask the MS Teams channel about the flush interval.", "ms", FLUSH, None),
    ("The flush interval of the US cluster is 5 seconds.", "us", FLUSH, None),
])
def test_a_two_letter_name_typed_in_capitals(text: str, unit: str, quantity: tuple[str, ...],
                                             states: bool | None) -> None:
    found = unit_lines(text, unit, quantity)
    assert (any(f.states for f in found) if found else None) == states, text


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("The oven temperature is in kelvin, despite what the old manual said about Celsius.",
     "K", OVEN, True),
    ("In spite of the °C on the dial, the oven temperature is logged in kelvin.", "K", OVEN,
     True),
    # the concession ends with its clause: a unit after it is a second answer
    ("The oven temperature is in kelvin despite the manual; the dial gives Celsius.", "K",
     OVEN, False),
    ("Enter the route length in km; convert miles with `mi * 1.609`.", "km", ROUTE, True),
    ("The route length is in km; converting the old miles values is up to you.", "km", ROUTE,
     True),
    # what a value is converted to is a second answer
    ("The route length is in km; the app converts it to miles.", "km", ROUTE, False),
])
def test_a_unit_set_aside_or_converted_from_is_no_second_answer(
        text: str, unit: str, quantity: tuple[str, ...], states: bool) -> None:
    assert states_unit(text, unit, quantity) == states, text
