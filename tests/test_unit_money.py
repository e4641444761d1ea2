"""Units of money (issue 32, meaning16): the currencies of ISO 4217 with CLDR's names and
symbols and the minor units (controller/units_money.toml, generated once by
scripts/units_from_cldr.py). fresh17 (an amount in cents) showed that a quantity of money named
no unit: "in dollars, not cents" gave no unit instead and a second currency no rival. Cases of
other currencies than fresh17's (rupees and paise, kronor and öre, yen, pence): 19 of the 30
fail on main (the rest guard what is no unit or no second answer)."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit, unit_name


@pytest.mark.parametrize(("word", "unit"), [
    ("rupees", "INR"), ("₹", "INR"), ("kronor", "SEK"), ("yen", "JPY"), ("¥", "JPY"),
    ("paise", "paisa"), ("öre", "öre"), ("øre", "öre"), ("pence", "penny"),
    ("kopecks", "kopeck"), ("centimes", "cent"), ("¢", "cent"), ("TRY", "TRY"),
    ("ALL", "ALL"),
    # a code is matched as written: in any other case it is the word
    ("try", None), ("all", None), ("top", None),
    # the units table's names stay its own ("pounds" a mass)
    ("pounds", "lb"),
])
def test_currencies_and_minor_units_are_units(word: str, unit: str | None) -> None:
    assert unit_name(word) == unit  # each named one is None on main


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("The fare isn't in paise; it is in rupees.", "paise", "rupees"),
    ("Refunds are issued in kronor, never in öre.", "öre", "kronor"),
    ("The toll is never given in pence; it is GBP.", "pence", "GBP"),
])
def test_the_currency_named_instead(text: str, unit: str, instead: str | None) -> None:
    assert stated_instead(text, unit, ("fare", "refund", "ticket price", "toll")) == instead


@pytest.mark.parametrize(("text", "states"), [
    # another currency stated for the quantity is a second answer (fails on main)
    ("The fare is in paise. Callers that expect rupees must convert.", False),
    # a sign before a value, a template's placeholder, a currency saying whose the minor
    # unit is: no second answer
    ("The fare is in paise: send 4500 for ₹45.", True),
    ("fare = 4500  # paise, i.e. ₹45.00", True),
    ('log(`fare ${fare} paise`)', True),
    ("The fare is in INR paise.", True),
    ("The fare is in paise of the rupee.", True),
])
def test_a_second_currency_and_what_is_no_second_answer(text: str, states: bool) -> None:
    assert states_unit(text, "paise", ("fare",)) == states, text


@pytest.mark.parametrize(("text", "unit", "states"), [
    # a question set in bold ends its sentence before the reply (both fail on main: the
    # reply read as part of the question)
    ("**Is the fare in rupees?** No, it's paise.", "paise", True),
    ("**Is the fare in paise?** No. It's rupees.", "paise", False),
    ("_Is the fare in paise?_ Yes, always paise.", "paise", True),
])
def test_a_question_in_emphasis_ends_before_its_reply(text: str, unit: str, states: bool) -> None:
    assert states_unit(text, unit, ("fare",)) == states, text


@pytest.mark.parametrize(("question", "unit"), [
    ("Is the fare in ₹?", "₹"), ("is the tip in ¢?", "¢"), ("Is the toll in £?", "£")])
def test_a_question_asked_in_a_currency_sign_is_a_unit_check(question: str, unit: str) -> None:
    from controller.route import route_question
    from helix.core.config import RetrievalSettings

    plan = route_question(question, routing=RetrievalSettings().routing)
    assert plan.intent.route == "value_check" and plan.unit == unit  # a definition on main


def test_a_sign_asked_is_answered_by_the_units_name() -> None:
    from evals.unit_lines import judge
    from helix.core.config import HelixConfig

    threshold = HelixConfig().retrieval.coverage_threshold
    stated = judge({"text": "The fare is stored in rupees.", "kind": "doc", "unit": "₹",
                    "reading": "states"}, "fare", threshold)
    assert stated["confirmed"] and stated["gives_unit"], stated
    denied = judge({"text": "The fare is in paise, never rupees.", "kind": "doc", "unit": "₹",
                    "reading": "denies"}, "fare", threshold)
    assert not denied["confirmed"] and denied["instead"] == "paise", denied
