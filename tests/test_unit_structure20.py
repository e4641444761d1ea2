"""Classes of unit line (issue 32, meaning20), read from the sentence's structure and the unit
tables: a reply and its label inside markdown emphasis ("**A:** No.") answer a question no; a
unit's one-letter name stands as a unit where the sentence puts one (quoted alone, named a
unit, set beside a unit of its dimension, the complement of "is" ending its clause, a capital
letter a verb of giving a unit takes); a level against a milliwatt (dBm) is a power and an
energy per a time ("BTU/h") one too, as pint's dimensions have them; a clause a sequel opens
after a past one ("was mW in 1.x, then kW in 2.0, and since 2.1 it's W") is past too; the unit
named instead may be the one the sentence before states. Wordings of no data set; the cases
marked `main` fail on main, the others guard what each class must leave alone."""

from __future__ import annotations

import pytest

from controller.unit_names import identity, rival
from controller.units import stated_instead, states_unit

QUANTITY = ("supply voltage", "heater power", "charge current")


@pytest.mark.parametrize(("line", "unit", "states"), [
    ("**Q:** Is the supply voltage given in V?\n**A:** No.", "V", False),  # main: True
    ("__Q:__ Does the heater power come in watts?\n__A:__ Nope, milliwatts.", "W", False),
    ("**Q:** Is the supply voltage given in V?\n**A:** Yes.", "V", True),
    ("// the unit is V; keep it", "V", True),  # main: False (no mention)
    ("The ADC measures mV internally, but `supply()` returns V after scaling.", "V",
     True),  # main: False
    ("The heater power was mW in v1, then kW for one release, and since v3 it is W.", "W",
     True),  # main: False (kW a second answer)
    ("The heater power was mW in v1, then W for one release, and since v3 it is kW.", "W",
     False),
    ("A unit test checks the charge current.", "A", False),  # an article, no unit
])
def test_whether_the_line_states_the_unit(line: str, unit: str, states: bool) -> None:
    assert states_unit(line, unit, QUANTITY) is states


@pytest.mark.parametrize(("line", "unit", "instead"), [
    ('The panel label says "V", but the stored supply voltage is mV.', "V", "mV"),  # main: None
    ("Unit: mV (the old V unit is gone).", "V", "mV"),  # main: None
    ("Supply voltage, in 0.5 µV steps (neither V nor mV).", "V", "µV"),  # main: None
    ("FIXME: this used to take V; since 3.1 it's mV.", "V", "mV"),  # main: None
    ("Voltages are logged in millivolts. Older builds sent V; newer builds do not.", "V",
     "millivolts"),  # main: None (the sentence before)
    ("The heater power is set in dBm (not watts).", "W", "dBm"),  # main: None
    ("Give the heater power in BTU/h rather than watts.", "W", "BTU/h"),  # main: None
    ("Give the heater power in kW, not W.", "W", "kW"),
])
def test_the_unit_named_instead(line: str, unit: str, instead: str) -> None:
    assert stated_instead(line, unit, QUANTITY) == instead


def test_the_tables_read_a_power_level_and_an_energy_rate_as_powers() -> None:
    assert identity("dBm") == ("power", "dBm") and rival("dBm", "W")  # main: a level
    assert identity("BTU/h") == ("power", "BTU/h") and rival("J/s", "kW")  # main: energy/time
    assert identity("dB") == ("level", "dB") and not rival("dB", "W")  # a ratio's level
    assert identity("MB/s") == ("data/time", "MB/s")  # a rate of anything else stays a rate
