"""Round 28's unit wordings (issue 32, meaning32), in wordings of no data set, each on a
quantity other than the set's that shows it: a claim that a later clause or sentence refutes
(fresh22, fresh28, fresh30, fresh31), and a unit named by a symbol of its own spelled out as a
quotient in words (fresh31's "dots per inch"). The denials and statements fail on the code
before meaning32; the guards pass on both."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    # a sentence of construal, then a reply that denies it alone in its clause
    ("Most testers read the spindle figure as rpm. It isn't: the display shows a duty cycle.",
     "rpm", "spindle speed", False),
    # ... or that denies one word of it
    ("Reviewers keep treating the quota as 500 MB. It is not MB; the limit counts files.",
     "MB", "quota", False),
    # a refuted assumption named back by a demonstrative and its noun
    ("Tickets keep arriving assuming the quota is counted in MB. It is a count of files, and "
     "that assumption simply isn't true.", "MB", "quota", False),
    # a quantifier over what the clause before names, refuted
    ("The quota has been documented as MB in the README, the FAQ and the wiki; none of these "
     "are correct.", "MB", "quota", False),
    # a negated predicate whose complement is a demonstrative naming back a belief
    ("The oven dial, which most cooks assume follows degrees Celsius, is not that: it is a "
     "step from 1 to 9.", "°C", "oven temperature", False),
    # guards: a claim the next sentence does not refute, or agrees with
    ("The docs say the quota is in MB. It is not rounded.", "MB", "quota", True),
    ("Users read the quota as MB, and they are right.", "MB", "quota", True),
    ("Reviewers treat the quota as MB. It is not a soft limit.", "MB", "quota", True),
    # a question answered no in another language (fresh30: "en m² ? Non, ...")
    ("Le quota en MB ? Non, en nombre de fichiers.", "MB", "quota", False),
    ("Ofentemperatur in °C? Nein, das ist die Stufe des Drehknopfs.", "°C", "oven temperature",
     False),
    # a name renamed with no "from": the old name is no statement (fresh31: "Please rename
    # `dpi` to `dpr`"; fresh18: "rename max_ma -> max_a")
    ("The retry delay isn't ms. Please rename `ms` to `delay` before the release.", "ms",
     "retry delay", False),
    ("Please rename `ms` to `ticks`: the retry delay counts scheduler ticks.", "ms",
     "retry delay", False),
    ("The retry delay is not in ms. TODO: rename ms -> s in the help text.", "ms",
     "retry delay", False),
    ("We renamed the column to `size_mb`; the quota is in MB.", "MB", "quota", True),
])
def test_a_claim_refuted_after_it(text: str, unit: str, quantity: str, states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("The scan density is in pixels per centimetre.", "PPCM", "scan density", True),
    ("# density: pixels per inch, e.g. 326 on a phone", "ppi", "screen density", True),
    ("The scan density is in pixels per millimetre, not pixels per centimetre.", "PPCM",
     "scan density", False),  # a guard: no mention on the code before
])
def test_a_named_quotient_spelled_out(text: str, unit: str, quantity: str,
                                      states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


# the typographic point and the pixel named in other languages (fresh16's "in Punkt, nicht in
# mm", fresh28's "in Punkt, nicht in Pixel" and "píxeles"), and a full-width full stop ending
# a sentence with no space after it (fresh24, fresh25, fresh28: "...です。ピクセルではありません。")
@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("Die Linienbreite wird in Punkt angegeben, nicht in Pixel.", "pt", "line width", True),
    ("Die Linienbreite wird in Pixel angegeben, nicht in Punkt.", "pt", "line width", False),
    ("O traço é medido em pontos, não em milímetros.", "pt", "stroke width", True),
    ("線幅の単位はピクセルです。ポイントではありません。", "px", "line width", True),
    ("描画幅はmm単位です。cmではありません。", "mm", "stroke width", True),
    ("描画幅はmm単位です。cmではありません。", "cm", "stroke width", False),  # a guard
])
def test_points_and_pixels_in_other_languages(text: str, unit: str, quantity: str,
                                              states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


def test_the_unit_named_instead_in_another_language() -> None:
    assert stated_instead("El grosor de línea está en píxeles, no en puntos.", "pt",
                          ("line width",)) == "píxeles"
    assert stated_instead("Die Ränder sind in Punkt, nicht in Millimetern.", "mm",
                          ("margin",)) == "Punkt"


def test_a_percentage_after_a_space_is_no_format_specifier() -> None:
    """"100 % of peak" (fresh22; fresh26 and fresh28 write "% of" too) is a percentage, no
    printf "% o" blanked away: it is what the line gives instead."""
    assert stated_instead("The fan speed goes from 0 to 100 % of the maximum. It is never rpm.",
                          "rpm", ("fan speed",)) == "%"
    from controller.unit_markup import blanked

    assert "%" not in blanked("printf('% d', n); printf('%5.1f', x)")  # a guard: specifiers


def test_dutch_writes_the_hour_u() -> None:
    """"km/u", "m³/u" (fresh23, fresh24): a rate per hour in Dutch names the unit instead."""
    assert stated_instead("Het verbruik staat in l/u, niet in l/min.", "L/min",
                          ("fuel use",)) == "l/u"
    assert states_unit("Wat doe je als u de pomp start? Het debiet is in L/min.", "L/min",
                       ("flow rate",))  # a guard: "u" a pronoun, no rival unit
