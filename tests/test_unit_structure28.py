"""Negation scope by sentence structure (issue 32, meaning28): a question about the unit answered
by a sentence that ends with a pronoun's negated auxiliary, whatever leads to it and an adverb
between them ("Is `water_ml` really millilitres? Looking at the values it definitely isn't."),
answers no, as a reply that opens with "It isn't." does (helix/core/negation_tokens.py
`replied_no`); and a headline reporting a misreading, a participle of construal after its
subject and what it should have been after it, no finite verb ("`dose: 5` treated as 5 mL
instead of 5 µL"), denies its sentence as a bug's title does (`misread_headlines`;
helix/core/negation.toml `misreadings`, `misread_corrections`, `headline_finite`); and a
one-letter unit in quotes after a verb of taking or giving a unit is a unit as it is unquoted
("the API only takes 'L'", "expected `L`": controller/units.py, the word before the quote is
the one before the unit). fresh27 (a liquid's volume in mL, now a tune set) had 6 of 65 denials
confirmed, 4 after tests/test_unit_languages28.py, 3 after the reply, 2 after the quote;
fresh26 1 (its "X treated as 80 MiB instead of 80% of host RAM"), 0 after the headline;
fresh27's 1 statement missed, 0 after "no longer" says what holds now (helix/core/negation.toml
`superseded_by`: a past clause before it is over); Italian "ma" ends a negation's scope as "but"
does, only as written in lower case or capitalized ("mA" is the milliampere: helix/core/
negation.toml `as_written`); a unit times a unit of time to the power minus two, as SI writes a
quotient ("m·s⁻²", "m s^-2"), is the unit per that unit squared, as "L·min⁻¹" was a unit per
minute (controller/unit_powers.py). Every
case is a wording of no data set; each denial fails on the code before it, the statements guard
what the readings must leave alone."""

from __future__ import annotations

import pytest

from controller.unit_names import unit_name
from controller.units import stated_instead, states_unit

DOSE = ("dose",)


@pytest.mark.parametrize(("text", "states"), [
    ("Is the dose really in mL? Judging by the sample values (2, 4, 8), it clearly isn't.",
     False),
    ("Is the dose in mL? From the schema alone it is not.", False),
    ("Does `dose` come in mL? After reading the driver twice, they don't.", False),
    # the sentence goes on after the negation, or the reply says yes: it states
    ("Is the dose in mL? Yes, and the log says it isn't rounded.", True),
    ("Is the dose in mL? It is, though the legacy field it replaced was not.", True),
    ("Is the dose in mL? Yes; the old field was not, but it is.", True),
])
def test_a_reply_ending_in_a_negated_auxiliary_answers_no(text: str, states: bool) -> None:
    assert states_unit(text, "mL", DOSE) is states, text


@pytest.mark.parametrize(("text", "states"), [
    ("`dose: 5` treated as 5 mL instead of 5 µL", False),
    ("Pump dose interpreted as mL instead of microlitres on firmware 2.3", False),
    ("Bolus misread as mL instead of units (#4821)", False),
    # a finite verb, what holds now, no correction, a label's definition: it states
    ("Doses are treated as mL instead of cL since 3.0.", True),
    ("Dose now parsed as mL instead of cL.", True),
    ('log.warn("dose %f treated as mL, not cL", d)', True),
    ("Dose values: read as mL instead of the pump's raw counts.", True),
])
def test_a_headline_of_a_misreading_denies_its_sentence(text: str, states: bool) -> None:
    assert states_unit(text, "mL", DOSE) is states, text


@pytest.mark.parametrize(("text", "instead"), [
    ("HTTP 400: got 'mL' for `dose`; the pump API only takes 'L'.", "L"),
    ("TypeError: dose unit 'mL' given, expected `L`", "L"),
    ('Rejected "mL": this field accepts "L" and nothing else.', "L"),
])
def test_a_quoted_one_letter_unit_after_a_verb_of_taking_it(text: str, instead: str) -> None:
    assert not states_unit(text, "mL", DOSE), text
    found = stated_instead(text, "mL", DOSE)
    assert found is not None and unit_name(found) == instead, (text, found)


@pytest.mark.parametrize(("text", "unit", "states"), [
    # "no longer" says what holds now: the past clause before it is over
    ("The dose was litres in firmware 2; it is no longer litres, it is mL.", "mL", True),
    ("The dose was microlitres in firmware 2; it is no longer microlitres: mL.", "mL", True),
    ("The dose was litres in firmware 2; it is no longer litres, it is mL.", "L", False),
])
def test_no_longer_says_what_holds_now(text: str, unit: str, states: bool) -> None:
    assert states_unit(text, unit, DOSE) is states, text


@pytest.mark.parametrize(("text", "unit", "states"), [
    ("La dose non è in centilitri ma in millilitri.", "mL", True),
    ("La dose non è espressa in litri ma in mL.", "mL", True),
    # the milliampere is no "but", in any case
    ("The pump current is in A, not mA.", "mA", False),
    ("The pump current is not in mA but in A.", "mA", False),
    ("PUMP CURRENT: NOT IN MA, IN A.", "mA", False),
])
def test_italian_ma_ends_a_negations_scope(text: str, unit: str, states: bool) -> None:
    assert states_unit(text, unit, ("dose", "pump current")) is states, text


@pytest.mark.parametrize(("text", "unit", "states"), [
    ("Pump acceleration is reported in m·s⁻².", "m/s²", True),
    ("Pump acceleration: m s^-2 (SI), never g.", "m/s²", True),
    ("Pump acceleration is in ft·s⁻², not m/s².", "m/s²", False),
    ("Pump acceleration is in ft·s⁻², not m/s².", "ft/s²", True),
])
def test_a_negative_power_of_a_unit_of_time_is_a_quotient(text: str, unit: str,
                                                          states: bool) -> None:
    assert states_unit(text, unit, ("pump acceleration",)) is states, text
