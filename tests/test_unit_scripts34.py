"""Units written in Cyrillic letters (meaning34, issue 32): a Russian line writes the metric
symbols and names letter for letter ("мм" mm, "мА" mA, "см" cm, "в нитах" in nits), and each is
read as the unit it spells (controller/unit_scripts.py). Written from fresh33's "ммоль/л"; it
carried to fresh24's "м/с" and fresh29's "в нитах" (statements that were missed). Each case
below is another quantity and unit, and fails on the code before."""

from __future__ import annotations

import pytest

from controller.unit_names import identity
from controller.unit_scripts import latin_units
from controller.units import denies_unit, stated_instead, states_unit


@pytest.mark.parametrize(("text", "unit", "quantity"), [
    ("Длина задаётся в мм, а не в см.", "mm", "length"),
    ("// ток в мА", "mA", "current"),
    ("Скорость потока в м/мин", "m/min", "speed"),
])
def test_a_unit_in_cyrillic_letters_is_stated(text: str, unit: str, quantity: str) -> None:
    assert states_unit(text, unit, (quantity,)), text


def test_the_denied_unit_in_cyrillic_names_the_stated_one_instead() -> None:
    text = "Длина задаётся в мм, а не в см."
    assert denies_unit(text, "cm", ("length",))
    assert stated_instead(text, "cm", ("length",)) == "mm"


@pytest.mark.parametrize("text", [
    "Данные на сервере",  # "на" (on) is no nanoampere where no unit stands
    "Ответ у сервера",  # "у" (at) is no hour
    "с другой стороны",  # "с" (with) is no second
])
def test_a_short_word_spells_a_unit_only_where_a_unit_stands(text: str) -> None:
    assert latin_units(text, lambda w: identity(w) is not None) == text


def test_a_case_ending_is_read_off_a_longer_word() -> None:
    assert latin_units("# яркость в нитах", lambda w: identity(w) is not None) == \
        "# яркость в nit"


@pytest.mark.timeout(10)
def test_a_long_word_is_left_unread() -> None:
    """A line of one Cyrillic word of 100,000 letters (an untrusted file) is read in linear time:
    unbounded, each word's transliteration was looked up letter-swap by letter-swap (25 s)."""
    word = "я" * 100_000
    assert latin_units(word, lambda w: identity(w) is not None) == word
    assert not states_unit(word + " в мм", "cm", ("length",))
