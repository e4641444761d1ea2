"""(meaning22) A unit written as a product of two units (a torque's N·m, lbf·ft, kgf·cm; a
viscosity's Pa·s; an energy's kW·h): one unit however a text writes it ("N⋅m", "lb-ft",
"newton metres"), a rival of the other units of its dimension, and never a unit per a unit
("Pa/s" is no Pa·s). Wordings of no data set; each case fails on the code before meaning22,
which joined only "/" and "per" (a middle dot split "N·m" into a force and a length)."""

from __future__ import annotations

import pytest

from controller.unit_names import join_compounds, rival, shown, unit_name
from controller.units import stated_instead, states_unit


@pytest.mark.parametrize(("written", "unit"), [
    ("N·m", "N·m"), ("N⋅m", "N·m"), ("N-m", "N·m"), ("Nm", "N·m"), ("newton-metres", "N·m"),
    ("newton metres", "N·m"), ("Newtonmetern", "N·m"), ("lbf·ft", "lbf·ft"), ("ft-lb", "lbf·ft"),
    ("lb-ft", "lbf·ft"), ("foot-pounds", "lbf·ft"), ("in-lb", "lbf·in"),
    ("inch pounds", "lbf·in"), ("kg-cm", "kgf·cm"), ("oz·in", "oz·in"), ("Pa·s", "Pa·s"),
    ("kW·h", "kWh"), ("ftlb", "lbf·ft"), ("per-mille", "permille"),  # a name in two parts
])
def test_a_product_is_one_unit_however_written(written: str, unit: str) -> None:
    assert unit_name(written) == unit, written


def test_a_product_is_a_rival_and_shown_with_its_dot() -> None:
    assert rival("lbfˍft", "N·m") and rival("ozˍin", "N·m") and not rival("Nˍm", "N·m")
    assert shown(join_compounds("ft-lb")) == "ft·lb"
    # a unit per a unit of time stays a quotient ("Pa/s", "kW/h"), a product a product
    assert unit_name("Pa/s") != unit_name("Pa·s") and unit_name("kW/h") != "kWh"
    # "in" before a unit is a preposition, not the inch of "in-lb"
    assert "inˍlb" not in join_compounds("torque in lb·ft")


@pytest.mark.parametrize(("text", "unit", "quantity", "states", "instead"), [
    ("The bolt torque is given in lb-ft, not N·m.", "N·m", "bolt torque", False, "lb·ft"),
    ("The bolt torque is in in-lb rather than Nm.", "N·m", "bolt torque", False, "in·lb"),
    ("The bolt torque is in newton metres.", "N·m", "bolt torque", True, None),
    ("bolt_torque = 40  # N⋅m", "N·m", "bolt torque", True, None),
    ("The motor torque is in oz-in, never N·m.", "N·m", "motor torque", False, "oz·in"),
    ("The motor torque is in kgf·cm rather than N·m.", "N·m", "motor torque", False,
     "kgf·cm"),
    ("Viscosity is in mPa·s, not Pa·s.", "Pa·s", "viscosity", False, "mPa·s"),
    # a product unit the subject of a denying predicate (asked as written, "in kW·h?")
    ("kW·h is never used for the meter reading; it reports MJ.", "kW·h", "meter reading",
     False, "MJ"),
    ("The meter reading: kW·h not accepted.", "kW·h", "meter reading", False, None),
])
def test_a_product_unit_by_structure(text: str, unit: str, quantity: str, states: bool,
                                     instead: str | None) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text
    assert stated_instead(text, unit, (quantity,)) == instead, text
