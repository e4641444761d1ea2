"""Units of a dimension the hand table never held (issue 32, meaning37): the library
(controller/units_library.toml) is generated from every dimension of pint's registry, with the
SI prefixes on pint's SI units ("mSv", "µF", "uF", "mH") and their one-letter symbols ("H",
"S"), so a repository that states a quantity nobody wrote into controller/units.toml is read
as the tune sets are: a line that denies the unit is not confirmed, one that states it is, and
the unit named instead is named. Invented lines on a radiation dose, a capacitance and an
inductance (no data set's quantity); the cases fail on main 97f55460 (the units unknown)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from controller.unit_names import LIBRARY_FILE, identity, rival, unit_name
from evals.unit_lines import judge
from helix.core.config import HelixConfig

THRESHOLD = HelixConfig().retrieval.coverage_threshold
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

# (quantity, unit asked, line, reading, the unit named instead)
CASES = [
    ("radiation dose", "mSv", "The dose column is in Gy, not mSv.", "denies", "Gy"),
    ("radiation dose", "mSv", "The badge logs the dose in µSv rather than mSv.", "denies",
     "µSv"),
    ("radiation dose", "mSv", "Doses are recorded in millisieverts.", "states", None),
    ("radiation dose", "mSv", "The radiation dose is stored in mSv.", "states", None),
    ("capacitance", "nF", "The capacitance field is in µF, not nF.", "denies", "µF"),
    ("capacitance", "nF", "Capacitance is given in nanofarads.", "states", None),
    ("coil inductance", "mH", "The inductance is never in mH; it is stored in uH.", "denies",
     "uH"),
    ("coil inductance", "mH", "Coil inductance is in mH.", "states", None),
]


@pytest.mark.parametrize(("quantity", "unit", "text", "reading", "instead"), CASES)
def test_a_quantity_nobody_added_is_read_by_its_line(
        quantity: str, unit: str, text: str, reading: str, instead: str | None) -> None:
    row = judge({"text": text, "kind": "doc", "unit": unit, "reading": reading}, quantity,
                THRESHOLD)
    if reading == "denies":
        assert not row["confirmed"] and not row["gives_unit"], row["lead"]
        assert row["instead"] is not None and unit_name(row["instead"]) == unit_name(instead)
    else:
        assert row["confirmed"] and row["gives_unit"], row["lead"]


def test_the_prefixed_si_units_are_rivals_of_their_dimension() -> None:
    assert rival("Gy", "mSv") and rival("µSv", "mSv") and rival("uF", "nF")
    assert identity("uF") == identity("µF") == identity("microfarad")
    assert not rival("mSv", "nF")  # a dose is no capacitance


def test_a_one_letter_symbol_is_its_unit_beside_the_tables_letters() -> None:
    assert identity("H")[1] == "henry" and identity("h") == ("time", "h")
    assert identity("S")[1] == "siemens" and identity("s") == ("time", "s")


def test_the_library_is_what_the_generator_writes() -> None:
    pytest.importorskip("pint")
    sys.path.insert(0, str(SCRIPTS))
    from units_from_pint import generate

    first = generate()
    assert first == generate() == LIBRARY_FILE.read_text(encoding="utf-8")
