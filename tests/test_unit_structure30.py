"""Unit denials by sentence structure (issue 32, meaning30), in wordings of no data set and
other quantities and units than the sets that showed each cause (fresh27-fresh29): a refuted
report, a unit a label or a look shows with a rebuttal after it, a question whose reply denies
the same unit, a negated comparison or identifier in code, a Chinese negation inside a run of
characters, a unit someone was expecting. Every denial case fails on the code before meaning30;
the statements beside them hold on both."""

from __future__ import annotations

import pytest

from controller.units import states_unit


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    # a refuted demonstrative names back the report before it when the clause it follows
    # reports nothing (fresh27, fresh29)
    ("Colleagues keep saying the `heat_out` field is in kW. I checked the meter myself, and "
     "that just isn't true.", "kW", "heat output", False),
    ("Somebody wrote on the forum that the heat output is given in kW. I asked the "
     "manufacturer: that is not the case, it is a share of the rated output.", "kW",
     "heat output", False),
    ("The old wiki says the heat output is in BTU/h. I checked it with the vendor, and that "
     "isn't true: it is in kW.", "kW", "heat output", True),
    # what a label, a display or a look shows, then a rebuttal saying what it is (fresh27,
    # fresh29; fresh6-fresh26 with a second unit named)
    ("The gauge label says 'bar' but the register actually holds a raw ADC count.", "bar",
     "line pressure", False),
    ("The web console labels the line pressure as bar though the API returns sensor ticks.",
     "bar", "line pressure", False),
    ("line_pressure=40 looks like bar, but this field expects a fraction of the relief "
     "setting.", "bar", "line pressure", False),
    ("The panel shows psi but the line pressure register is in bar.", "bar", "line pressure",
     True),
    ("The gauge shows bar, and the register holds the line pressure in bar too.", "bar",
     "line pressure", True),
    # a question whose reply names the same unit only where a negation reaches it (fresh29's
    # two; a reply in another unit was read before)
    ("Is that really kWh? I don't believe `e_tot` is in kWh at all.", "kWh", "stored energy",
     False),
    ("Is that really kWh? Yes, the stored energy is in kWh.", "kWh", "stored energy", True),
    # a negated comparison called, or an identifier with a negation among its words (fresh28,
    # fresh29)
    ("self.assertNotEqual(gauge.unit, 'bar')", "bar", "line pressure", False),
    ("def test_line_pressure_is_not_given_in_bar():", "bar", "line pressure", False),
    ("self.assertEqual(gauge.unit, 'bar')", "bar", "line pressure", True),
    # a Chinese negation inside a run of characters is a word of its own (fresh18, fresh27,
    # fresh29)
    ("# 这里不是千瓦（kW），而是额定功率的百分比", "kW", "heat output", False),
    ("# 热输出的单位为千瓦（kW）", "kW", "heat output", True),
    # a unit right after "expecting" is what someone expected (fresh4, fresh8, tune9b, fresh27)
    ("Typing 80 into the box expecting kPa sets the line pressure to 80 bar.", "kPa",
     "line pressure", False),
])
def test_a_unit_denied_by_structure(text: str, unit: str, quantity: str, states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text
