"""(units29) Two general causes of fresh28's missed statements, in wordings of no data set;
the first two cases of the
first group and the first three of the second fail on main.

- A history that ends in what holds now: a past tense is over when its sentence says from
  which version or time the present holds ("from 3.0 on", "from release 2 onwards", "as of
  3.1"), as it already was with "since" or "now".
- What a label, a tooltip or a log line says is a unit for display, no second answer ("is in
  ms but the log line says seconds"); a rebuttal opens a clause of its own, so a display in
  the clause across it does not excuse the unit stated there ("the tooltip shows ms but the
  timeout is in seconds": two answers, neither confirmed).
"""

from __future__ import annotations

import pytest

from controller.units import states_unit


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("The delay was given in seconds in 1.x; from release 2 onwards it is milliseconds.", "ms",
     "delay", True),
    ("Lengths were inches in 1.x and feet in 2.x; from 3.0 on they are metres.", "m",
     "length", True),
    ("The cache size was in KiB before; as of 3.1 it is bytes.", "B", "cache size", True),
    # the past unit is still denied
    ("The delay was in ms in 1.x; from 2.0 on it is seconds.", "ms", "delay", False),
    # what holds from a version on is stated as before
    ("The delay is in ms from 3.0 on.", "ms", "delay", True),
])
def test_a_history_ending_in_the_present(text: str, unit: str, quantity: str,
                                         states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("The timeout is in ms but the log line says seconds.", "ms", "timeout", True),
    ("The upload quota is in MB, yet the settings page says GiB.", "MB", "upload quota", True),
    ("The tooltip shows ms but the timeout is in seconds.", "ms", "timeout", False),
    # a display in the unit's own clause is read as before
    ("The timeout is in ms; the dashboard shows seconds.", "ms", "timeout", True),
])
def test_what_a_label_says_and_a_rebuttal_clause(text: str, unit: str, quantity: str,
                                                  states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


# A manner contrary to fact: what follows "as if" / "as though" in a clause is only supposed
# ("the renderer was passed half-points as if they were points"), as after "if you mean". The
# first two fail on main.
@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("Callers pass the quota as though it were MB.", "MB", "quota", False),
    ("The retry delay behaves as if it were given in ms.", "ms", "retry delay", False),
    ("Old clients sent tenths of a second as if they were milliseconds.", "ms", "delay", False),
    # a supposition about something else leaves the unit stated
    ("The uploader reads the quota as MB, as if it mattered.", "MB", "quota", True),
    ("As if that were not enough, the quota is in MB.", "MB", "quota", True),
])
def test_a_manner_contrary_to_fact(text: str, unit: str, quantity: str, states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


# A unit in a concession ("despite the MB in the header") is granted and set aside: no more
# stated than another unit there already was. The first three fail on main.
@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("Despite the MB in the column header, the quota is a count of pages.", "MB", "quota",
     False),
    ("In spite of the ms suffix, the retry delay is a number of scheduler slots.", "ms",
     "retry delay", False),
    ("Despite the ms label on the chart, the retry delay is counted in ticks.", "ms",
     "retry delay", False),
    # the unit outside the concession is stated as before
    ("The quota is in MB, despite the old docs.", "MB", "quota", True),
    ("Despite its name, the quota is in MB.", "MB", "quota", True),
])
def test_a_unit_in_a_concession(text: str, unit: str, quantity: str, states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


# An evaluative word before a noun ("the deprecated GPa field", "the legacy seconds setting")
# that a negation reaches is no double negation: it qualifies what the negated verb takes, and
# the unit stays denied ("don't use the deprecated GPa field"), as a rival there does ("do not
# confuse it with the legacy seconds field"); a negated predicate is still one ("not wrong to
# read it as GPa"). The first three fail on main.
@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("Don't use the deprecated GPa field for the tile pressure.", "GPa", "tile pressure",
     False),
    ("The tile pressure is not in the deprecated GPa.", "GPa", "tile pressure", False),
    ("The flush interval is in ms. Never mix it up with the obsolete seconds setting.", "ms",
     "flush interval", True),
    ("It is not wrong to read the tile pressure as GPa.", "GPa", "tile pressure", True),
    ("GPa is not deprecated.", "GPa", "tile pressure", True),
])
def test_a_negated_verb_and_an_evaluative_before_a_noun(text: str, unit: str, quantity: str,
                                                         states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text
