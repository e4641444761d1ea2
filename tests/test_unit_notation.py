"""A unit's power in every notation people write (issue 32, meaning26): "^2", "**2", "²", a
plain digit after a quotient's unit, "squared"/"cubed" after it, "square"/"cubic" before it, in
the languages the sets use, read as the same unit for every unit of the table; a length per a
time squared is an acceleration, and "g" is standard gravity where an acceleration is asked
(controller/unit_powers.py, controller/unit_names.py). fresh25 (acceleration in m/s², now a
tune set) had 9 of 65 denials confirmed, 12 of 44 statements missed and 0 of 64 units named
instead before this; 0, 0 and 42 after."""

from __future__ import annotations

import pytest

from controller.unit_names import identity, join_compounds, rival, unit_name
from controller.units import stated_instead, states_unit

ACCEL = ("acceleration",)


@pytest.mark.parametrize(("written", "unit"), [
    ("m/s^2", "m/s²"), ("m/s**2", "m/s²"), ("m/s2", "m/s²"), ("m/s²", "m/s²"),
    ("metres per second squared", "m/s²"), ("meters per second squared", "m/s²"),
    ("mètres par seconde carrée", "m/s²"), ("Meter pro Quadratsekunde", "m/s²"),
    ("ft/s^2", "ft/s²"), ("feet per second squared", "ft/s²"), ("mm/s**2", "mm/s²"),
    ("cm/s2", "cm/s²"),
    # every unit of the table, not the acceleration alone
    ("m^2", "m²"), ("m**2", "m²"), ("square metres", "m²"), ("sq ft", "ft²"),
    ("ft^2", "ft²"), ("Quadratmeter", "m²"),
    ("m^3", "m³"), ("cubic metres", "m³"), ("Kubikmeter", "m³"), ("ft**3", "ft³"),
    ("cubic centimetres", "cm³"), ("km^2", "km²"),
])
def test_a_power_in_any_notation_is_one_unit(written: str, unit: str) -> None:
    assert unit_name(written) == unit
    assert identity(join_compounds(written)) == identity(join_compounds(unit))


def test_a_volume_written_as_a_cube_is_the_tables_volume() -> None:
    assert identity("m³") == identity(join_compounds("m^3")) == identity("Kubikmeter")
    assert identity("m³")[0] == "volume"  # type: ignore[index]


def test_a_length_per_a_time_squared_is_an_acceleration() -> None:
    assert identity(join_compounds("m/s^2")) == ("acceleration", "m/s²")
    assert rival("ft/s²", "m/s²") and rival("mm/s²", "m/s²")
    assert not rival("m/s", "m/s²")  # a speed is another dimension


def test_g_is_standard_gravity_only_where_an_acceleration_is_asked() -> None:
    assert rival("g", "m/s²") and rival("mg", "m/s²")
    assert unit_name("g") == "g" and rival("g", "kg")  # still the gram where a mass is asked
    assert not rival("g", "ms")
    assert rival("gal", "m/s²") and rival("gal", "L")  # the galileo; the gallon where a volume


@pytest.mark.parametrize("text", [
    "The IMU reports acceleration in m/s^2.", "accel (float): acceleration, m/s**2.",
    "Acceleration is returned in metres per second squared.",
    "L'accélération est exprimée en mètres par seconde carrée.",
    "// accel is in m/s2 here", "Die Beschleunigung wird in Meter pro Quadratsekunde angegeben.",
])
def test_a_statement_in_any_notation_states_the_unit(text: str) -> None:
    assert states_unit(text, "m/s²", ACCEL)


@pytest.mark.parametrize(("text", "instead"), [
    ("Acceleration is in g, not m/s^2.", "g"),
    ("The accel field is never m/s**2; it is in g.", "g"),
    ("Values are not in metres per second squared but in ft/s².", "ft/s²"),
    ("Les valeurs ne sont pas en m/s² : elles sont en g.", "g"),
    ("The driver takes g, not m/s².", "g"),
    ("Strong-motion records are stored in gal instead of m/s².", "gal"),  # the galileo
])
def test_a_denial_in_any_notation_denies_and_names_the_unit_instead(text: str,
                                                                    instead: str) -> None:
    assert not states_unit(text, "m/s²", ACCEL)
    assert stated_instead(text, "m/s²", ACCEL) == instead


@pytest.mark.parametrize(("text", "unit", "states"), [
    ("The plot area is given in square metres.", "m²", True),
    ("The plot area is not in square metres.", "m²", False),
    ("Area: ft^2", "ft²", True),
    ("Le champ `puissance` n'est pas exprimé en watts mais en kilowatts.", "W", False),
])
def test_other_units_in_these_notations(text: str, unit: str, states: bool) -> None:
    assert states_unit(text, unit, ("area", "puissance")) == states


@pytest.mark.parametrize("text", [
    "a^2 + b^2 = c^2 in m/s^2 units", "x**2.5 in m/s**2", "accel [m/s^2]",
    "the error squared in m/s squared", "cubic metres per hour", "square metres",
])
def test_a_joined_text_keeps_its_length(text: str) -> None:
    assert len(join_compounds(text)) == len(text)
