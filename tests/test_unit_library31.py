"""Units of any quantity by pint's registry (meaning31): controller/units_library.toml holds
every unit of pint's default registry, its dimension named by its structure where the table has
no word for it ("length²", "length/length"), and a unit per a unit of any other dimension is
read as one unit. Own wordings, on quantities no unit set used."""

from __future__ import annotations

import pytest

from controller.unit_names import identity, join_compounds
from controller.units import stated_instead, states_unit, unit_name

DENIALS = [
    # (line, asked unit, the unit named instead)
    ("Parcel size is not recorded in acres; the land registry stores hectares.", "acres",
     "hectare"),
    ("The backlight level isn't measured in nits but in lamberts.", "nits", "lambert"),
    ("The scan resolution is not in dpi, it is given in px/cm.", "dpi", "px/cm"),
    ("Do not read the dose column as Gy: it holds sieverts.", "Gy", "sievert"),
    ("The scanner never reports pixels per centimetre; its resolution is in dots per inch.",
     "pixels per centimetre", "dpi"),
    ("The scan resolution is not in dpi but in dots per millimetre.", "dpi", "px/mm"),
]


@pytest.mark.parametrize(("line", "unit", "instead"), DENIALS)
def test_the_unit_named_instead_is_a_library_unit(line: str, unit: str, instead: str) -> None:
    found = stated_instead(line, unit)
    assert found is not None and unit_name(found) == unit_name(instead) is not None


def test_a_library_quotient_and_its_spelled_name_are_one_unit() -> None:
    assert unit_name("pixels per centimetre") == unit_name("px/cm") is not None
    assert unit_name("dots per inch") == unit_name("DPI") is not None
    assert states_unit("The scan resolution is given in dots per inch (dpi).", "dpi")


def test_alternatives_and_letters_are_no_quotients() -> None:
    for text in ("°C/°F", "pence/cents", "kg/lb", "N/A", "A/B"):
        assert identity(join_compounds(text)) is None, text
    assert identity(join_compounds("km/h")) is not None


@pytest.mark.parametrize("line", [
    "Pressure is in kPa, with psi in brackets for US users.",
    "Wind speed is kept in km/h; the app adds mph in parentheses.",
])
def test_a_unit_given_alongside_in_brackets_is_no_second_answer(line: str) -> None:
    assert states_unit(line, line.split(" in ")[1].split()[0].rstrip(",;"))


def test_a_hyphenated_product_is_not_its_second_unit() -> None:
    """"foot-lamberts" is no lambert (on main neither was a unit: its first half a guard)."""
    assert stated_instead("Luminance is not in nits; the projector reports foot-lamberts.",
                          "nits") is None
    assert unit_name(stated_instead("Luminance is not in nits; the projector reports lamberts.",
                                    "nits") or "") == unit_name("lambert") is not None



@pytest.mark.parametrize(("line", "unit"), [
    ("# 断面積は平方ミリメートルで指定します", "mm²"),
    ("// 截面积：单位为平方毫米", "mm²"),
    ("// 단면적은 제곱밀리미터 단위입니다", "mm²"),
    ("# 敷地面積（平方キロメートル）", "km²"),
])
def test_a_square_written_in_cjk_is_the_unit_squared(line: str, unit: str) -> None:
    assert states_unit(line, unit)


def test_a_han_unit_is_a_unit_only_squared() -> None:
    assert identity("毫米") is None and identity("米") is None  # "大米" is rice
    assert identity("平方米") == identity("m²") is not None


@pytest.mark.parametrize(("line", "unit"), [
    ("The flow is reported in L/min; the gal/min label on the old gauge is just decoration.",
     "L/min"),
    ("Pressure is kPa; the psi conversion on the housing is for reference.", "kPa"),
])
def test_a_unit_naming_a_label_or_conversion_is_no_second_answer(line: str, unit: str) -> None:
    assert states_unit(line, unit)
