"""Metric units in other languages and scripts, and the units of a liquid's volume (issue 32,
meaning28). A unit the table names with an English prefix and base ("milligram") is named by
each language's prefix and base run together ("Milligramm", "миллиграммах", "ミリグラム",
"밀리그램"; the bases alone where words stand apart: controller/units_languages.toml,
`controller.unit_table.translated`); a run of katakana inside kanji and hiragana is a word of
its own, so a Japanese negation after a borrowed unit reaches it ("キログラムではなく":
helix/core/negation_tokens.py); the litre's parts as a label writes them ("cL", "µL") and the
customary units of a drink ("US fl oz", "UK gallons", "cups") are the table's. fresh27 (a
liquid's volume in mL, now a tune set) had 5 of 43 statements missed and 19 of 63 units named
instead right; 1 and 36 after these. Every case is a wording of no data set; each fails on the
code before this but the guards marked so (they hold there and must still hold)."""

from __future__ import annotations

import pytest

from controller.unit_names import unit_name
from controller.units import stated_instead, states_unit

DOSE = ("dose",)
CABLE = ("cable length",)


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("Die Dosis wird in Mikrogramm angegeben.", "µg", DOSE, True),
    ("Die Leistung des Heizers ist in Kilowatt.", "kW", DOSE, True),  # (a guard)
    ("La potencia del calentador se expresa en kilovatios.", "kW", DOSE, True),
    ("Мощность нагревателя указана в киловаттах.", "kW", DOSE, True),
    ("La dosis se expresa en miligramos por defecto.", "mg", DOSE, True),
    ("Длина кабеля указана в километрах.", "km", CABLE, True),
    ("ケーブル長の単位はキロメートルです。", "km", CABLE, True),
    ("케이블 길이는 킬로미터 단위로 입력합니다.", "km", CABLE, True),
    # a borrowed word holding a unit's name is no mention of it ("プログラム": program)
    ("プログラムが返す用量はミリグラム単位です。", "mg", DOSE, True),
    # guards (they hold before, where the unit was no word at all): a Japanese negation after
    # the unit, now a word of its own, reaches it; a vessel is no unit; a unit's own line
    ("ケーブル長はキロメートルではありません。", "km", CABLE, False),
    ("Die Dosis ist nicht in Milligramm, sondern in Mikrogramm angegeben.", "mg", DOSE, False),
    ("WARNING: dose 1200 mL exceeds cup capacity (1000 mL); clamping.", "mL", DOSE, True),
    ("The dose is given in millilitres.", "mL", DOSE, True),
])
def test_a_unit_named_in_another_language_or_script(text: str, unit: str,
                                                    quantity: tuple[str, ...],
                                                    states: bool) -> None:
    assert states_unit(text, unit, quantity) is states, text


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("ケーブル長はメートルではなく、キロメートルで指定します。", "m", "km"),
    ("Die Dosis ist nicht in Milligramm, sondern in Mikrogramm angegeben.", "mg", "µg"),
    ("Длина кабеля задаётся в метрах, а не в километрах.", "km", "m"),
    ("The dose is in µL rather than mL.", "mL", "µL"),
    ("Each dose is measured in US fluid ounces, not millilitres.", "mL", "US fl oz"),
    ("The dose is in UK gallons (not litres).", "L", "imp gal"),
    ("Doses are recorded in cL, never mL.", "mL", "cL"),
])
def test_the_unit_named_instead_in_another_language_or_a_label(text: str, unit: str,
                                                               instead: str) -> None:
    found = stated_instead(text, unit, DOSE if unit != "m" and unit != "km" else CABLE)
    assert found is not None and unit_name(found) == instead, (text, found)


def test_korean_names_only_prefixed_units_and_a_cup_alone_is_none() -> None:
    assert unit_name("밀리리터") == "mL" and unit_name("킬로미터") == "km"
    # "리터럴" is a literal, "파라미터" a parameter: the bases alone name nothing in Korean
    assert unit_name("리터") is None and unit_name("미터") is None
    assert unit_name("cup") is None and unit_name("pint") is None
    assert unit_name("cups") == "cups" and unit_name("imperial pints") == "imp pt"
