"""Units of a dimension the hand table never held (issue 32, meaning37): the library
(controller/units_library.toml) is generated from every dimension of pint's registry, with the
SI prefixes on pint's SI units ("mSv", "µF", "uF", "mH") and their one-letter symbols ("H",
"S"), so a repository that states a quantity nobody wrote into controller/units.toml is read
as the tune sets are: a line that denies the unit is not confirmed, one that states it is, and
the unit named instead is named. Invented lines on an inductance, a resistance and a
potential (no data set's quantity); the cases fail on main 97f55460. The library test needs
pint (the generator's; not a Helix dependency) and is skipped without it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from controller.unit_names import LIBRARY_FILE, identity, rival, unit_name
from evals.unit_lines import judge
from helix.core.config import HelixConfig

THRESHOLD = HelixConfig().retrieval.coverage_threshold
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

# (quantity, unit asked, line, reading, the unit named instead): each fails on main (a
# one-letter symbol, an ohm's sign or a Gaussian unit unknown: the denial confirmed, the unit
# named instead missing, the statement unread)
CASES = [
    ("coil inductance", "mH", "The inductance is stored as H; mH is only shown in the UI.",
     "denies", "H"),
    ("coil inductance", "mH",
     "inductance = 0.0047  # 4.7 mH would be wrong here: the value is in H", "denies", "H"),
    ("resistance", "kΩ", "Resistance is 470 Ω, not kΩ.", "denies", "Ω"),
    ("potential", "statV", "Potential is in statvolts.", "states", None),
]
@pytest.mark.parametrize(("quantity", "unit", "text", "reading", "instead"), CASES)
def test_a_quantity_nobody_added_is_read_by_its_line(
        quantity: str, unit: str, text: str, reading: str, instead: str | None) -> None:
    row = judge({"text": text, "kind": "doc", "unit": unit, "reading": reading}, quantity,
                THRESHOLD)
    if reading == "denies":
        assert not row["confirmed"] and not row["gives_unit"], row["lead"]
        assert instead is not None and row["instead"] is not None
        assert unit_name(row["instead"]) == unit_name(instead)
    else:
        assert row["confirmed"] and row["gives_unit"], row["lead"]


def test_the_si_units_are_rivals_of_their_dimension() -> None:
    assert rival("Gy", "mSv") and rival("µSv", "mSv") and rival("uF", "nF")
    assert rival("Ω", "kΩ") and rival("statvolt", "mV")  # pint's Gaussian context: a volt
    assert identity("uF") == identity("µF") == identity("microfarad")
    assert not rival("mSv", "nF")  # a dose is no capacitance


def test_a_one_letter_symbol_is_its_unit_beside_the_tables_letters() -> None:
    assert unit_name("H") == "henry" and identity("h") == ("time", "h")
    assert unit_name("S") == "siemens" and identity("s") == ("time", "s")


def test_the_library_is_what_the_generator_writes() -> None:
    pytest.importorskip("pint")
    sys.path.insert(0, str(SCRIPTS))
    from units_from_pint import generate

    first = generate()
    assert first == generate() == LIBRARY_FILE.read_text(encoding="utf-8")
