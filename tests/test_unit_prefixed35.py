"""A unit written as an SI prefix on a unit that takes one, read by construction (meaning35,
issue 32, controller/unit_prefixed.py): every prefix of the SI brochure on its base and derived
units, in symbols as written and in spelled names, so a set that picks a new quantity is not
unreadable for want of a table row. Suggested by fresh33 ("mmol/L", which the tables lacked);
each case below is another quantity, and fails on the code before."""

from __future__ import annotations

import time

import pytest

from controller.unit_names import identity, join_compounds, same_unit, unit_name
from controller.units import denies_unit, stated_instead, states_unit


@pytest.mark.parametrize(("text", "unit", "quantity"), [
    ("Column feed is logged in kilomoles per hour by the plant historian.", "kmol/h",
     "molar flow"),
    ("Feed rate: 12 kmol/h.", "kilomoles per hour", "molar flow"),
    ("The dosimeter's daily total is kept in milligray.", "mGy", "absorbed dose"),
    ("# conductivity of the rinse water, uS/cm", "µS/cm", "conductivity"),
    ("Serum sodium is stored in millimoles per litre.", "mmol/L", "sodium level"),
])
def test_a_prefixed_unit_no_table_lists_is_stated(text: str, unit: str, quantity: str) -> None:
    assert states_unit(text, unit, (quantity,)), text


@pytest.mark.parametrize(("text", "unit", "instead", "quantity"), [
    ("Conductivity is reported in µS/cm, not mS/cm.", "mS/cm", "µS/cm", "conductivity"),
    ("The coil value is in nanofarads, not microfarads.", "µF", "nF", "capacitance"),
    ("The survey meter logs dose rate in mSv/h rather than Sv/h.", "Sv/h", "mSv/h",
     "dose rate"),
    ("The HbA1c value is in mmol/mol, not %.", "%", "mmol/mol", "HbA1c"),
    ("Stiffness is given in mPa, not MPa.", "MPa", "mPa", "stiffness"),
])
def test_the_denied_prefixed_unit_names_the_stated_one(text: str, unit: str, instead: str,
                                                       quantity: str) -> None:
    assert denies_unit(text, unit, (quantity,)), text
    found = stated_instead(text, unit, (quantity,))
    assert found is not None and unit_name(found) == unit_name(instead) is not None, found


def test_the_prefix_is_read_in_its_case_and_the_litre_in_either() -> None:
    assert unit_name("mPa") != unit_name("MPa") == "MPa"  # a millipascal is no megapascal
    assert same_unit(join_compounds("mmol/l"), "mmol/L")
    assert same_unit(join_compounds("millimoles per liter"), "mmol/l")
    assert unit_name("kmol") != unit_name("mmol") is not None


def test_a_quotient_of_one_unit_prefixed_is_a_ratio() -> None:
    assert identity(join_compounds("mg/kg")) is not None
    assert identity(join_compounds("°C/°F")) is None  # units of one dimension: alternatives


@pytest.mark.parametrize("word", ["pH", "mdpi", "mlx", "klm", "Ms", "Mm", "TV", "min",
                                  "Paris", "mcd", "dam", "ms"])
def test_a_word_that_only_looks_like_a_prefixed_unit_is_no_new_unit(word: str) -> None:
    before = {"min": ("time", "minute"), "ms": ("time", "ms"), "Mm": None}
    assert identity(word) == before.get(word), word


@pytest.mark.timeout(10)
def test_a_long_line_of_prefixed_units_is_read_word_by_word_from_tables() -> None:
    """Each word is a lookup in tables built once: a line of 100 KB of unit-like words (an
    untrusted file) is joined and every word read in well under the timeout."""
    line = "5 mmol/l, 3 µS/cm and 2 kmol/h in mGy or mPa; xkmol qmGy " * 1_750  # ~100 KB
    start = time.perf_counter()
    words = join_compounds(line).split()
    found = [identity(w.strip(",;")) for w in words]
    assert sum(f is not None for f in found) == 5 * 1_750
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(("text", "unit", "quantity"), [
    ("ValueError: pressure 0.0 kPa is not a valid reading", "kPa", "pressure"),
    ("Warning: 16 GB is not enough for the build cache", "GB", "cache size"),
])
def test_a_negated_predicate_of_a_value_does_not_deny_its_unit(text: str, unit: str,
                                                                quantity: str) -> None:
    """The number before the unit makes the subject a value: what is not valid is it."""
    assert states_unit(text, unit, (quantity,)), text


@pytest.mark.parametrize("text", ["Pressure in kPa is no longer supported.",
                                  "kPa is not the unit of the pressure."])
def test_a_negated_predicate_of_the_unit_alone_still_denies_it(text: str) -> None:
    assert denies_unit(text, "kPa", ("pressure",)), text
