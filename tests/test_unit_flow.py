"""Units of volume per time and lines in other languages (issue 32, meaning24): the cause of
fresh23's misses (flow rate in L/min) and of fresh16's two left statements, read by the table
and the structure, not by a set's lines. Every case is a wording of no data set; each fails on
the code before meaning24 (the table had no "l" for the litre, no cubic metre, no gpm/cfm/
lpm, no per-word but "per", no minute or hour in other languages, no "⁻¹", no unit of two
words before "per" or "/", no "non"/"niet"/"não" as negations, and no German or French name
of the millimetre)."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit, unit_name


@pytest.mark.parametrize(("word", "name"), [
    ("l/min", "L/minute"), ("lpm", "L/minute"), ("LPM", "L/minute"), ("l/h", "L/h"),
    ("lph", "L/h"), ("gpm", "gal/minute"), ("GPH", "gal/h"), ("cfm", "ft³/minute"),
    ("m³/h", "m³/h"), ("m3/h", "m³/h"), ("m³/s", "m³/s"), ("ft3/min", "ft³/minute"),
    ("Nm³/h", "Nm³/h"), ("SLPM", "sL/minute"), ("cubic metres per hour", "m³/h"),
    ("imperial gallons per minute", "imp gal/minute"), ("imp gal/min", "imp gal/minute"),
    ("normal cubic metres per hour", "Nm³/h"),
    ("litros por minuto", "L/minute"), ("Liter pro Stunde", "L/h"),
    ("litres par heure", "L/h"), ("litri al minuto", "L/minute"), ("m³·h⁻¹", "m³/h"),
    ("L·min⁻¹", "L/minute"), ("Millimetern", "mm"), ("centimètres", "cm"),
    ("kilogramos", "kg"), ("segundos", "s"),
])
def test_a_volume_per_time_and_a_name_in_another_language_name_their_unit(word: str,
                                                                          name: str) -> None:
    assert unit_name(word) == name, word


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("The coolant flow is reported in l/min.", "L/min", "coolant flow", True),
    ("Coolant flow: 40 lpm at full speed.", "L/min", "coolant flow", True),
    ("Der Kühlmittelfluss wird in Liter pro Minute gemessen.", "L/min", "coolant flow", True),
    ("Le débit de refroidissement est en litres par minute, et non en m³/h.", "L/min",
     "coolant flow", True),
    ("The coolant flow is logged in L·min⁻¹.", "L/min", "coolant flow", True),
    ("Il flusso del refrigerante è in m³/h, non in L/min.", "L/min", "coolant flow", False),
    ("De koelvloeistofstroom staat in m³/h, niet in L/min.", "L/min", "coolant flow", False),
    ("O fluxo de refrigerante é dado em gpm, e não em L/min.", "L/min", "coolant flow", False),
    ("Die Spaltbreite wird in Millimetern gespeichert.", "mm", "gap width", True),
    ("La largeur de fente est exprimée en millimètres.", "mm", "gap width", True),
])
def test_a_flow_line_is_read_by_its_structure(text: str, unit: str, quantity: str,
                                             states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "instead"), [
    ("The coolant flow is given in m³/h, not l/min.", "m³/h"),
    ("Coolant flow isn't L/min: the pump reports GPM.", "GPM"),
    ("The coolant flow is in m3/h rather than L/min.", "m3/h"),
    # a unit of two or three words before the per-word or the slash
    ("The coolant flow is in cubic metres per hour, not litres per minute.",
     "cubic metres per hour"),
    ("Coolant flow: imperial gallons per minute, never L/min.", "imperial gallons per minute"),
])
def test_the_flow_unit_named_instead(text: str, instead: str) -> None:
    assert stated_instead(text, "L/min", ("coolant flow",)) == instead, text
