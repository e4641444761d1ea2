"""Classes of unit line (issue 32, meaning21), read from the sentence's structure and the unit
tables: a level in decibels has dimensionless rivals (a linear factor, a multiplier, a ratio,
raw counts: controller/units.toml `level`) and its names in words and other languages; a mark
inside inline code is the code's, no clause boundary ("a mistake to read `gain: 6` as dB"); a
sentence that reports a question ("asked whether ...") is answered no by a next sentence as
after "?"; a negation written after what it denies (Japanese "ではなく") denies the words
before it; a code comment's line is no sentence with the code line after it. Wordings of no
data set; the cases marked `main` fail on main, the others guard what each class must leave
alone."""

from __future__ import annotations

import pytest

from controller.unit_names import rival, share, unit_name
from controller.units import stated_instead, states_unit
from helix.core.negation import read

QUANTITY = ("input trim", "boost")


@pytest.mark.parametrize(("line", "states"), [
    # a mark inside inline code: the evaluative infinitive reaches past it (main: True)
    ("It is wrong to take `trim: -3` as -3 dB; it is a factor.", False),
    ("Set `trim: -3` for a cut; the input trim is given in dB.", True),
    # a reported question answered no (main: True)
    ("People often ask whether the input trim is in decibels. It is not.", False),
    ("People often ask whether the input trim is in decibels. It is.", True),
    ("The input trim is in decibels, whether or not the meter shows it.", True),
    # a comment's line and the code after it (main: False)
    ("# input trim in dB, not clamped here\ninput_trim_db = -3.0", True),
    ("# the input trim is not\n# given in dB but as a factor", False),
])
def test_whether_the_line_states_decibels(line: str, states: bool) -> None:
    assert states_unit(line, "dB", QUANTITY) is states, line


@pytest.mark.parametrize(("line", "unit", "instead"), [
    # dimensionless rivals of a level (main: None for each)
    ("The boost is a plain multiplier, not dB.", "dB", "multiplier"),
    ("boost: ratio (never decibels)", "dB", "ratio"),
    ("Le boost est un facteur, pas des décibels.", "dB", "facteur"),
    ("The fader reads raw counts rather than dB.", "dB", "counts"),
])
def test_a_level_is_denied_against_a_dimensionless_factor(line: str, unit: str,
                                                          instead: str) -> None:
    assert stated_instead(line, unit, QUANTITY) == instead, line
    assert unit_name(instead) in ("linear", "counts")


def test_the_names_of_a_decibel_and_of_a_factor_are_data() -> None:
    assert unit_name("decibels") == unit_name("Dezibel") == unit_name("décibels") == "dB"
    assert unit_name("multiplier") == unit_name("V/V") == "linear"
    # (meaning27) raw counts are a count a quantity of any dimension is given in instead, a
    # share of a level as of a voltage (controller/units.toml `count`), no rival of dB alone
    assert rival("factor", "dB") and share("counts", "dB") and share("counts", "mV")
    assert not rival("factor", "GPa")  # a factor rivals a level only
    assert not states_unit("The boost is in GPa, a factor of the base pressure.", "dB",
                           QUANTITY)


@pytest.mark.parametrize(("text", "word", "denied"), [
    ("`boost` は dB ではなく倍率です。", "dB", True),  # main: False
    ("`boost` は dB です。", "dB", False),
    ("ゲインは dB ではなく線形です。", "ゲインは", False),  # the topic is not denied
])
def test_a_negation_written_after_what_it_denies(text: str, word: str, denied: bool) -> None:
    reading = read(text)
    assert reading.denied_at(text.index(word)) is denied


def test_a_japanese_denial_is_no_statement() -> None:
    assert not states_unit("`boost` は dB ではなく倍率です。", "dB", QUANTITY)  # main: True
    assert states_unit("`boost` の単位は dB です。", "dB", QUANTITY)
