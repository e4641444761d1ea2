"""Every written unit-line set (issue 32), tune sets included: no line that denies the unit is
answered "the evidence gives it in <unit>" or gated `confirmed`, and every line that states it
still is. unit_lines_tune7.json (99 denials, 36 statements) was written by the absence5 helper
in structures the earlier sets lacked; on the code before it, 4 of its denials were confirmed
and 1 statement was not, and unit_lines_fresh6.json had 2 and 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.units import stated_instead, states_unit, unit_name
from evals.unit_lines import judge
from helix.core.config import HelixConfig

MEANING = Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning"
SETS = sorted(MEANING.glob("unit_lines*.json"))
THRESHOLD = HelixConfig().retrieval.coverage_threshold
QUANTITY = ("tile pressure",)


def _lines() -> list[tuple[str, dict[str, str]]]:
    out = []
    for path in SETS:
        data = json.loads(path.read_text(encoding="utf-8"))
        out += [(data["quantity"], line) for line in data["lines"]]
    return out


LINES = _lines()
DENIALS = [(q, line) for q, line in LINES if line["reading"] == "denies"]
STATES = [(q, line) for q, line in LINES if line["reading"] == "states"]
# a statement left unconfirmed (the safe side): a second unit stated in the line for another
# use makes neither unit confirmed (controller/units.py: two answers)
# (meaning7) fresh8, measured held apart with 3 statements missed, now a tune set: one is left
# ("any unit but GPa" is an exception inside "can't" that the clause boundary at "but" cuts off)
# (meaning8) fresh9, measured held apart with 1 statement missed (a misspelt unit, now one of
# its names in units.toml), now a tune set
# (meaning9) fresh10, measured held apart with 5 statements missed (hours: a name's suffix,
# "hrs"/"hr", a "(s)" plural mark read as seconds, "can't ... below one hour"), now a tune
# set: meaning9 confirms all five (tests/test_unit_lookalikes.py)
# (absence10) fresh11 (rotation angle in degrees), measured after the lead's angle units with
# 8 statements missed, now a tune set: absence10 confirms six (a function named after a unit,
# `math.radians(x)`, is no rival; nor a unit after a number's format specifier, "%.4f rad";
# "even though" opens a clause about another subject; an identifier made of words of the
# quantity and the unit, `angle_deg`, `ROTATION_IN_DEGREES`); two are left (a second unit
# shown for display, "no longer rounded to whole degrees")
# (meaning11) fresh12 (bandwidth limit in Mbit/s), measured held apart by the lead with 13
# statements missed and 9 denials confirmed (the units table knew no data-rate unit), now a
# tune set: meaning11 reads all of them (data rates and a unit shown for display,
# controller/unit_names.py; a bound on a value, "can't go below 1 Mbit/s"; a demonstrative
# naming back the sentence before, helix/core/negation.py), and fresh11's and
# unit_lines.json's unit shown for display
LEFT = {"You can't pass tile pressure in any unit but GPa.",
        "Changed in 3.2: the rotation angle is no longer rounded to whole degrees; fractional "
        "degrees such as 12.5 are kept."}
# (meaning12) fresh13 (sample rate in kHz), measured held apart by the lead after meaning11
# with 2 statements missed and 1 denial confirmed, now a tune set: meaning12 reads all three
# (a clause naming the quantity with an auxiliary alone, "..., but sample_rate does", "the
# sample rate, however, is not"; an instruction opening a clause after a dash)
# (meaning13) fresh14 (battery cutoff voltage in mV), measured held apart by the lead before
# and after meaning12 with 2 statements missed and 1 denial confirmed, now a tune set:
# meaning13 reads all three (a two-letter name in lower case, "in mv"; an identifier ending in
# a mixed-case unit, `cutoff_mV`; struck-out markup, "~~mV~~ V": tests/test_unit_structure.py)
# (meaning14) fresh15 (a weight in kg), measured held apart by the lead before meaning12 and
# after meaning12 and meaning13 with 4 statements missed and 2 -> 2 -> 1 denial confirmed, now
# a tune set: meaning14 reads all five (a question answered past a blank line; "KG" typed in
# capitals; "kilogrammes"; a unit in a concession, "despite what ... said about grams"; a unit
# converted from, "convert lb with ...": tests/test_unit_wordings.py)
# (meaning15) fresh16 (a length in mm), measured held apart by the lead before and after
# meaning14 with 4 statements missed and 6 -> 5 denials confirmed, now a tune set: left as
# measured at the rotation; meaning15 reads two of the denials (pint's units, "points", "dots":
# controller/units_library.toml, tests/test_unit_library.py); meaning17 reads "MARGIN_MM = 12.7
# # half an inch, expressed in mm" (a unit after a number in words and an article is a value)
# meaning24 reads the German and French ones (the metric units' names in those languages,
# controller/units.toml: tests/test_unit_flow.py)
LEFT |= {"#define NOZZLE_DIA_MM 0.4f  // don't change without recalibrating"}
# meaning17 reads its three confirmed denials (a fronted contrast clause, a question answered
# in another unit, a unit's definition: tests/test_unit_structure17.py)
CONFIRMED_LEFT: set[str] = set()
# (meaning16) fresh17 (a monetary amount in cents), measured held apart by the lead before and
# after meaning15 with 5 statements missed and 6 -> 6 denials confirmed (no unit of money in
# the vocabulary), now a tune set: meaning16 reads all but one (units of money,
# controller/units_money.toml; a question in emphasis ends before its reply; a currency before
# a value or saying whose the cent is: tests/test_unit_money.py); left: a constant named after
# the unit alone, not the quantity
LEFT |= {"#define MAX_CHARGE_CENTS 50000  /* $500.00 */"}
# (meaning17) fresh18 (an electric current in mA), measured held apart by the lead before and
# after meaning16 with 0 statements missed and 1 -> 1 denial confirmed, now a tune set:
# meaning17 reads the denial (a one-letter unit after "is" ending its clause)
# (meaning18) fresh19 (energy in kWh), measured held apart by the lead before and after
# meaning17 with 5 -> 5 statements missed and 1 -> 1 denial confirmed, now a tune set:
# meaning18 reads all six (a unit's name spelled from the table's, "kilowatt-hours"; a past
# subject set against a present one; a number's format placeholder a value:
# tests/test_unit_structure18.py)
# (meaning20) fresh20 (power in W), measured held apart by the lead before and after round 16
# with 3 -> 3 statements missed and 1 -> 1 denial confirmed, now a tune set: meaning20 reads
# all four (a reply's label in emphasis, "**A:** No."; a one-letter name where the sentence
# puts a unit, "the unit is W;", "returns W"; a past clause's sequel, "then kW briefly":
# tests/test_unit_structure20.py)
# (meaning21) fresh21 (gain in dB), measured held apart by the lead before and after meaning20
# with 6 -> 6 statements missed and 8 -> 8 denials confirmed (the real unit a linear factor,
# in no unit table), now a tune set: meaning21 reads all fourteen (a level's dimensionless
# rivals and the decibel's names in the table; a mark inside inline code no boundary; a
# reported question, "asked whether ... . It isn't."; a negation after what it denies,
# "dB ではなく"; a comment's line no sentence with the code after it:
# tests/test_unit_structure21.py)
# (meaning22) fresh22 (torque in N·m), measured held apart by the lead before c9c7efa and after
# meaning21 with 40 of 40 statements missed and 61 of 61 denials confirmed (the question parser
# read no middle dot), 10 and 10 after the lead's 29ecd2b, now a tune set: meaning22 reads
# units written as products (controller/units.toml's torque, `unit_names.dotted`:
# tests/test_unit_products.py); left: a label set against the values ("shows an Nm label but
# the values are ft-lbs"), a denial ending in a conversion to the unit, a statement set after
# a history of rivals or beside a rival's conversion, and "anything but N·m"
# meaning32 reads "The servo listing says 20 kg-cm and people keep treating it as 20 Nm. It is
# not Nm; ..." (a construal a reply denies: tests/test_unit_structure32.py)
# units29 reads "Torque wrench profile shows an Nm label but the values are ft-lbs" (a
# rebuttal ends the clause a display word excuses: tests/test_unit_structure29.py)
LEFT |= {
    "/// Peak torque in newton-metres. Callers working in lbf·ft should use "
    "`Torque::from_lbft`."}
# meaning33 reads "History: 1.0 used kgf·cm, 2.0 switched to lbf·in, and since 3.0 every torque
# value is N·m." (a rival in a clause of the past before a cue of what holds now:
# controller/unit_history.py, tests/test_unit_structure33.py)
# meaning31 reads "... 29.5 is the ft-lb conversion printed on the box" and fresh24's "the km/h
# label on the old chart" (a unit right before "label" or "conversion" names what is shown:
# controller/units.toml labelling)
# meaning23 reads "You can't set torque in anything but N·m; there is no unit option." (a
# boundary word inside a cue phrase, "anything but", is no clause boundary: an exception
# inside a negation states the unit; tests/test_negation.py)
# (meaning24) fresh23 (flow rate in L/min), measured held apart by the lead before 01ef952 and
# after bd14958 with 6 -> 6 statements missed and 4 -> 4 denials confirmed (the table had no
# unit of volume per time but L/min and gal/min, "l" for the litre, "m³", nor a negation in
# French, Italian, Dutch or Portuguese), now a tune set: meaning24 reads all but one (volume
# flow units, "m³"/"m3", per-words and minute/hour in other languages, "L·min⁻¹", "non",
# "niet", "não": tests/test_unit_flow.py); left: a negated stop of sending after a quoted
# commit title naming another unit
LEFT |= {'Revert "treat flow as L/h": the firmware never stopped sending L/min'}
# (meaning25) fresh24 (speed in m/s), measured held apart by the lead before ff15bda and after
# d20da2d with 10 -> 9 statements missed and 6 -> 3 denials confirmed, now a tune set:
# meaning25 reads all three denials and seven of the statements (a question in emphasis read
# with the line answering it; a label's time before its mark, "Deprecated since 2.4:";
# full-width marks; "nunca", "不是", "而不是", "не"; a past cue's sequels; arithmetic the
# reader does and a question no one answers yes no second answer:
# tests/test_unit_structure25.py); left: a double negation set beside a label in another unit
# ("the km/h label on the old chart"), and a Russian line (the table has no Cyrillic names)
# meaning34 reads it (a unit in Cyrillic letters: tests/test_unit_scripts34.py)
# (meaning26) fresh25 (acceleration in m/s²), measured held apart by the lead before 96a4152
# and after 1d97432 with 13 -> 12 statements missed and 11 -> 9 denials confirmed (the table
# read no power but "m³"/"ft³": "m/s^2", "m/s**2", "metres per second squared", "Meter pro
# Quadratsekunde" were no unit; no acceleration; "g" only the gram; no French "pas"), now a
# tune set: meaning26 reads every line (a power in any notation for every unit, a length per
# a time squared an acceleration, "g"/"mg" standard gravity where one is asked, "pas", "mais",
# "en g": tests/test_unit_notation.py); none left
# (meaning27) fresh26 (data size in MiB), measured held apart by the lead before 60c05ef and
# after 4fdc1af with 4 -> 4 statements missed and 3 -> 3 denials confirmed, now a tune set:
# left as measured at the rotation (the commits after it read what they read)
# meaning27 reads two of the denials and every statement (the byte's French names, a Latin
# name inside CJK text a word of its own: tests/test_unit_scripts27.py; "only look like", a
# past tense opening an aside, a past clause's end and its verbless sequels, a condition on
# what the reader means: tests/test_unit_structure27.py); left: a bug title's participle of
# misreading, "`memory_target: 80` treated as 80 MiB instead of 80% of host RAM" ("X treated
# as Y instead of Z" states Y where a sentence with a subject says it)
# meaning28 reads it (a headline of a misreading: tests/test_unit_structure28.py)
# (meaning28) fresh27 (liquid volume in mL), measured held apart by the lead before and after
# round 23's merges with 5 -> 5 statements missed and 7 -> 6 denials confirmed, now a tune set:
# left as measured at the rotation (the commits after it read what they read)
# meaning30 reads both (a refuted report; a unit after "expecting":
# tests/test_unit_structure30.py)
# meaning28 reads the four statements in German, Japanese, Spanish and Portuguese (the metric
# units in other languages and scripts, katakana a word of its own) and two denials (a
# liquid's units in words, "US fluid ounces": tests/test_unit_languages28.py) and a reply that
# ends with a pronoun's negated auxiliary ("... it definitely isn't") and a quoted one-letter
# unit after a verb of taking it ("only accepts 'L'"), and the last statement ("no longer"
# says what holds now: tests/test_unit_structure28.py)
# (round 25) fresh28 (font size in pt), measured held apart by the lead before and after
# round 24's merges with 4 -> 5 statements missed and 6 -> 6 denials confirmed, now a tune set:
# left as measured at the rotation (the commits after it read what they read)
# meaning32 reads "Note that the number you enter in the Size box, which most people assume
# works like the point sizes in Word, is not that: ..." (tests/test_unit_structure32.py)
CONFIRMED_LEFT |= {
    'ConfigError: "body.size" = "12pt" - units are not allowed here, give a '
    "unitless multiplier of the base size",
    "Bug: `--size 12` produces 12 mm tall text, expected 12 pt",
}
# meaning30 reads "def test_font_size_is_not_interpreted_as_points():" (an identifier with a
# negation among its words: tests/test_unit_structure30.py)
# units29 reads two of the denials (a manner contrary to fact, "as if they were points"; a unit
# in a concession, "Despite the 'pt' suffix in the UI dropdown, ...") and
# three of the statements (a unit a tooltip says is for display; a history that
# ends in what holds "from 3.0 on"; an evaluative before a noun a negated verb takes, "do not
# confuse it with the legacy pixel Size field": tests/test_unit_structure29.py)
# meaning32 reads the two statements left here, "// Schriftgröße in Punkt, nicht in Pixel"
# and "// フォントサイズはポイント(pt)単位です。ピクセルではありません。" (the point and
# the pixel in other languages; a full-width full stop ends a sentence:
# tests/test_unit_structure32.py)
# (round 26) fresh29 (display luminance in nits), measured held apart by the lead before and
# after round 25's merges with 3 -> 3 statements missed and 12 -> 12 denials confirmed, now a tune
# set: left as measured at the rotation (the commits after it read what they read)
CONFIRMED_LEFT |= {
    "# helderheid is een stapwaarde (0-7), geen nits",
}
# meaning30 reads the other ten (a refuted report names back the report; a unit a label, a
# display or a look shows, then a rebuttal; a question whose reply denies the same unit; a
# negated comparison called; a Chinese negation inside a run of characters:
# tests/test_unit_structure30.py); left: a look after the requirement it breaks, and Dutch
# "geen" (one set)
LEFT |= {
    "// ピーク輝度（単位：ニト）",
}
# meaning34 reads "# пиковая яркость в нитах (кд/м²)" (a unit in Cyrillic letters with a case
# ending: tests/test_unit_scripts34.py)
# meaning31 reads "luminanza di picco espressa in nit" (pint's nit, a luminance:
# controller/units_library.toml) and fresh30's "Don't convert area to hectares: it's already m²"
# (pint's hectare, an area: a conversion's unit, no second answer; tests/test_unit_library31.py)
# (round 27) fresh30 (area in m²), measured held apart by the lead before and after round 26's
# merges with 4 -> 4 statements missed and 4 -> 2 denials confirmed, now a tune set: left as
# measured at the rotation (the commits after it read what they read)
# meaning32 reads "// surface_habitable : en m² ? Non, c'est en pieds carrés ..." (a question
# answered no in French: tests/test_unit_structure32.py)
# meaning32 reads "`area` has been documented as m² in the wiki, ...; none of them are right
# about the unit." (a quantifier over what the clause before names, refuted:
# tests/test_unit_structure32.py)
# meaning31 reads its three statements naming square metres in Japanese, Chinese and Korean
# (a language's word for a unit's square bound to the unit's name: controller/units_languages.toml,
# tests/test_unit_library31.py)
# (round 28) fresh31 (pixel density in dpi), measured held apart by the lead before and after
# round 27's merges with 3 -> 5 statements missed and 6 -> 6 denials confirmed, now a tune set:
# left as measured at the rotation (the commits after it read what they read)
CONFIRMED_LEFT |= {
    "Exported PDF says 300 dpi but the value is actually ppi",
    "`dpi` (deprecated since 2.3): the option is now interpreted as ppi; use `--ppi` explicitly.",
    "Q: Is the Resolution slider in dpi?\nA: No. It sets the output width in pixels; the dpi "
    "tag is left untouched.",
}
# meaning32 reads two of the denials (a refuted assumption, "... assuming ... dpi setting. ...
# that assumption simply isn't true"; a reading a reply denies, "Many users read that as the
# photo's dpi. It is not: ...") and three statements (a unit with a symbol of its own spelled
# out as a quotient, "dots per inch") and "nit: this isn't dpi, ... Please rename `dpi` to `dpr`
# ..." (a renamed name: tests/test_unit_structure32.py)
LEFT |= {
    "Not ppi, not dots/mm: the value is plain dpi.",
    "Originally stored in dots per mm, then in ppi for a while, the resolution is now stored "
    "in dpi.",
}

# (round 29) fresh32 (CO2 concentration in ppm), measured held apart by the lead at round 27's
# start and after rounds 27 and 28 with 5 -> 5 -> 5 denials confirmed and 4 -> 4 -> 4 statements
# missed, now a tune set: left as measured at the rotation
CONFIRMED_LEFT |= {
    "People keep reading the 412 in the `co2` field as ppm. It looks right, the magnitude is "
    "plausible for outdoor air, and the v1 docs said so. None of that holds any more: the field "
    "is a 10-bit ADC count.",
    "  co2_target: 0.08   # vol-% (so 800 ppm is written 0.08; do not put 800 here)",
    "ppm is what most people expect for indoor CO2, and the label in the mobile app even says so. "
    "The API, though, has always sent something else: percent by volume, since the first release. "
    "The app label was simply never correct.",
}
# meaning33 reads "... must be given in mg/m3, got a ppm-sized value" and fresh29's "... must be
# a percentage (0-100); got 1500, which looks like nits." (an error message's report of the input
# it rejects, after a requirement: tests/test_unit_structure33.py) and "The old greenhouse panel
# showed percent, ... That is no longer an issue: every CO2 value ... is in ppm." (a history
# before what holds now: controller/unit_history.py) and "CO2 value shown as 'ppm' in the app is
# actually the sensor's millivolt output" (a display's participle, then "actually":
# controller/units.toml appearances)
LEFT |= {
    "/// CO2 concentration in parts per million. Not calibrated until ABC has run for 7 days.",
    "def test_co2_reported_in_ppm_not_percent():",
    "If the sensor reports percent, the driver converts it, so `co2` is always ppm by the time it "
    "reaches the API.",
}

# (round 30) fresh33 (blood glucose in mmol/L), measured held apart by the lead at round 28's
# start and after rounds 28 and 29 with 4 -> 3 -> 3 denials confirmed and 4 -> 3 -> 3 statements
# missed, now a tune set: left as measured at the rotation (meaning35: the HTTP 422 denial and
# the "ммоль/л" statement read right once SI prefixes make "mmol/L" a unit, unit_prefixed.py)
CONFIRMED_LEFT |= {
    "We briefly thought the sensor firmware reports mmol/L, and two issues were filed on that "
    "premise, but after checking with the vendor: no, it doesn't.",
    "Export writes mg/dL numbers into a column headed mmol/L",
}
LEFT |= {
    "Hypo alarm doesn't fire at 3.8 mmol/L",
    "Bug: glucose in mmol/L is shown with a dot instead of a comma in the German locale",
}

# (round 31) fresh34 (dynamic viscosity in cP), measured held apart by the lead in rounds 29-30
# with 6 -> 6 -> 6 denials confirmed and 2 -> 2 -> 2 statements missed, now a tune set: left as
# measured at the rotation (python benchmarks/unit_denials.py --data
# data/evals/meaning/unit_lines_fresh34.json)
CONFIRMED_LEFT |= {
    "// viscosityMilliPas holds mPa·s. We deliberately don't treat it as cP anywhere.",
    "Revert \"treat slurry viscosity as cP\": it isn't, see #231",
    "Far from being centipoise, as the old README suggested, the `vis` field on every oil record "
    "holds kinematic viscosity in cSt.",
    "RheologyError: `eta0` is in poise, but the value you passed is labelled \"cP\"; convert it "
    "or fix the label.",
    "Hydraulic fluid picker labels kinematic viscosity (cSt) as cP",
}
# meaning36 reads "Older firmware reported viscosity in centipoise; since 2.0 the `VISC` register
# holds poise instead." (pint's poise a dynamic viscosity, a rival of cP:
# tests/test_unit_library36.py) and "# viscosité dynamique en centipoises" (the plural)
LEFT |= {
    "The gauge shows centipoise; the secondary readout in Pa·s is just a conversion for SI "
    "users.",
}

# (round 32) fresh35 (air pressure in hPa), measured held apart by the lead in rounds 30-31 with
# 1 -> 1 -> 1 denials confirmed and 5 -> 5 -> 5 statements missed, now a tune set: left as
# measured at the rotation (python benchmarks/unit_denials.py --data
# data/evals/meaning/unit_lines_fresh35.json)
CONFIRMED_LEFT |= {
    "Q: Is the `baro` value in hPa? A: No - it's tenths of a hectopascal, so 10132 means 1013.2 "
    "hPa.",
}
LEFT |= {
    "La presión se muestra en hectopascales.",
    "The feed used inHg until 2019, then kPa for a few months, and has been hPa ever since.",
    "/// Pressure in hPa. CoreMotion gives kPa, so we multiply by 10 first.",
    "// la pressione è espressa in ettopascal",
    "Давление указано в гПа.",
}


def test_the_sets_hold_thirty_denials_of_the_new_wordings() -> None:
    tune7 = json.loads((MEANING / "unit_lines_tune7.json").read_text(encoding="utf-8"))
    assert sum(line["reading"] == "denies" for line in tune7["lines"]) >= 30


def test_a_denial_is_never_answered_in_the_unit_nor_confirmed() -> None:
    """Every denial of every set (one test: the lines that fail are reported together)."""
    assert len(DENIALS) >= 500
    wrong = []
    for quantity, line in DENIALS:
        judged = judge(line, quantity, THRESHOLD)
        if (judged["gives_unit"] or judged["confirmed"]) and line["text"] not in CONFIRMED_LEFT:
            wrong.append(judged)
    assert not wrong, wrong


def test_every_statement_but_the_named_one_is_still_confirmed() -> None:
    missed = {line["text"] for q, line in STATES
              if not judge(line, q, THRESHOLD)["confirmed"]}
    assert missed <= LEFT, missed - LEFT


@pytest.mark.parametrize(("text", "states"), [
    ("Q: Does tile pressure come out in GPa?  A: No.", False),  # a labelled reply
    ("GPa? Definitely not, for tile pressure.", False),
    ("Values are megapascals (older docs say GPa, they are wrong).", False),  # "they" judged
    ("Mentions of GPa for tile pressure are a leftover and incorrect.", False),
    ("Tile pressure in GPa is no longer supported.", False),  # validity judges the subject
    ("Tile pressure: GPa not accepted.", False),  # a telegraphic validity predicate
    ("GPa values for tile pressure are rejected by the validator.", False),
    ("Values in GPa are not rounded.", True),  # any other predicate does not
    ("Is tile pressure in GPa? Not since 2.0.", False),  # a reply of time, what follows it
    ("| tile_pressure | GPa | deprecated |", False),  # a table cell judges the one before
    ("If anyone tells you tile pressure is in GPa, they're mistaken.", False),
    ("The GPa figure for tile pressure is bogus.", False),
    ("Tile pressure moved off GPa in 2.0.", False),
    ("Tile pressure switched to GPa; MPa is gone.", True),
    ("Assuming GPa for tile pressure will break the solver.", False),  # harm judges its subject
    ("Tile pressure in GPa? That was the old API.", False),
    ("The doc claiming GPa for tile pressure is out of date.", False),
    ("We no longer use MPa for the tile pressure; it is GPa now.", True),
    ("It is not true that tile pressure is in MPa; it is in GPa.", True),
    ("# Note: keep GPa for tile pressure, the MPa migration was cancelled", True),
])
def test_negation_scope_by_structure(text: str, states: bool) -> None:
    assert states_unit(text, "GPa", QUANTITY) == states


def test_an_alias_names_the_unit_instead() -> None:
    assert unit_name("megapascals") == unit_name("MPa") == "MPa"
    assert stated_instead("GPa was dropped in v2; it has returned megapascals ever since.",
                          "GPa") == "megapascals"


# Units other than GPa (meaning7, issue 32): every name of the asked unit is read by the same
# structure, in wordings of no data set; each case fails on the code before meaning7 (which
# matched only the asked spelling and had no °C, msec or megabytes).
@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("The flush interval is kept in milliseconds.", "ms", "flush interval", True),
    ("The flush interval is kept in miliseconds.", "ms", "flush interval", True),  # meaning8
    ("The flush interval is never given in msec; it is whole seconds.", "ms", "flush interval",
     False),
    ("Quota: 500 megabytes per user.", "MB", "quota", True),
    ("The quota isn't in megabytes but in GiB.", "MB", "quota", False),
    ("Oven temperature in degrees Celsius.", "°C", "oven temperature", True),
    ("oven_temp = 180  # degC", "°C", "oven temperature", True),
    ("oven_temp = 180  # C", "°C", "oven temperature", True),  # one letter after a value
    ("The oven temperature is in °F, not degC.", "°C", "oven temperature", False),
    ("Write C code for the oven temperature in kelvin.", "°C", "oven temperature", False),
    # a row of a list names its own quantity: the unit there is not the asked one's
    ("- oven temp: K\n- room temp: °C", "°C", "oven temperature", False),
    ("| oven_temp | °C |\n| room_temp | K |", "°C", "oven temperature", True),
    # the unit in parentheses right after the quantity's name, whatever is said of it
    ("Anything over the quota (in MB) is refused.", "MB", "quota", True),
    # a harm after a conditional: what the condition supposes is wrong
    ("If you pass the quota in MB, the uploader will fail.", "MB", "quota", False),
    # a clause a contrast word opens about another subject names that subject's unit
    ("The flush interval is in ms, whereas the retry delay is in seconds.", "ms",
     "flush interval", True),
    ("The flush interval is logged in ms, whereas it is configured in seconds.", "ms",
     "flush interval", False),
    # the angle's usual short names (deg, °) name the degree: the first three fail on the
    # table before them, which listed only "degree(s)"
    ("The heading is measured in degrees, clockwise from north.", "deg", "heading", True),
    ("heading = 270  # deg", "degrees", "heading", True),
    ("The heading is stored as 270°.", "deg", "heading", True),
    ("The heading is in radians rather than deg.", "deg", "heading", False),
    ("The heading is in milliradians, not degrees.", "deg", "heading", False),
    # (absence10) a function named after another unit converts, it states no unit; a unit
    # after a number's format specifier is a value's; "though" opens a clause about another
    # subject; an identifier of the quantity's words and the unit names it: each fails before
    ("theta = math.radians(heading)  # heading is kept in degrees", "deg", "heading", True),
    ('log.info("heading %.1f degrees (%.3f rad)", h, r)', "deg", "heading", True),
    ("The flush interval is in ms even though the scheduler works in seconds.", "ms",
     "flush interval", True),
    ("The flush interval is never in ms, although the retry delay is.", "ms",
     "flush interval", False),
    ("interval_ms = 250", "ms", "flush interval", True),
    ("FLUSH_IN_MS = 250", "ms", "flush interval", True),
    ("retry_ms = 250", "ms", "flush interval", False),
])
def test_any_name_of_a_unit_other_than_gpa(text: str, unit: str, quantity: str,
                                            states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("Q: Is the quota in MB?\nA: No, it is in GiB.", "MB", "GiB"),  # the answer's sentence
    ("- oven temp: K\n- room temp: °C", "°C", "K"),  # the asked quantity's row
    ("The oven temperature isn't Celsius. Kelvin, throughout.", "°C", "Kelvin"),
    ("oven_temp = 450  # kelvin rather than C", "°C", "kelvin"),  # "than C" names a unit
    ("The oven temperature moved from degC to K in 3.0.", "°C", "K"),  # "to K" names a unit
])
def test_the_unit_named_instead_is_of_the_same_dimension(text: str, unit: str,
                                                          instead: str) -> None:
    quantity = ("quota",) if unit == "MB" else ("oven temperature",)
    assert stated_instead(text, unit, quantity) == instead, text


def test_a_question_asked_in_degrees_is_a_unit_check_and_the_code_span_names_the_quantity(
        ) -> None:
    from controller.route import route_question
    from helix.core.config import RetrievalSettings

    plan = route_question("Is the oven temperature in °C?", routing=RetrievalSettings().routing)
    assert plan.intent.route == "value_check" and plan.unit == "°C"
    judged = judge({"text": "oven_temp = 180  # degrees Celsius", "kind": "code", "unit": "°C",
                    "reading": "states"}, "oven temperature", THRESHOLD)
    assert judged["confirmed"] and judged["gives_unit"], judged



# (meaning12) a clause that names the quantity with an auxiliary alone takes the clause
# before's predicate, negated or not; a clause opening with an instruction after a dash is
# about the quantity's value. Wordings of no data set; the first five but the °C one fail
# on main (which reads that one right already).
@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("The modulus is given in GPa; the tile pressure, however, is not.", "GPa",
     "tile pressure", False),
    ("The retry delay is in ms but the flush interval isn't.", "ms", "flush interval", False),
    ("No other setting takes MB, but the quota does.", "MB", "quota", True),
    ("The room sensor reports °C, and the oven temperature does too.", "°C",
     "oven temperature", True),
    ("Never round the flush interval -- just pass the ms figure as is.", "ms",
     "flush interval", True),
    # what was already read stays: another subject's ellipsis, a negation of the quantity
    # alone, a clause of another subject after the dash
    ("The quota is in MB; the upload cap, however, is not.", "MB", "quota", True),
    ("MB is for the cache, not for the quota.", "MB", "quota", False),
    ("Never round the flush interval -- the retry delay is in ms.", "ms", "flush interval",
     False),
])
def test_an_elided_predicate_and_an_instruction_by_structure(text: str, unit: str,
                                                             quantity: str,
                                                             states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


def test_hertz_in_lower_case_is_hertz() -> None:
    # (meaning12) "hz" as written in code and hurried docs ("in hz, not khz"): None on main
    assert unit_name("hz") == "Hz"
    assert stated_instead("the refresh rate is in hz, not khz", "kHz",
                          ("refresh rate",)) == "hz"


@pytest.mark.parametrize(("text", "unit", "quantity", "instead"), [
    # (meaning12) an identifier named after the quantity whose last word is another unit of
    # the dimension names the unit instead (None on main); a denied one, or another
    # quantity's, does not
    ("The heading is never in degrees. Store it in heading_rad.", "deg", "heading", "rad"),
    ("Don't pass Celsius here; OVEN_TEMP_K is what the controller reads.", "°C",
     "oven temperature", "K"),
    ("Don't pass Celsius here, and don't use oven_temp_k either.", "°C", "oven temperature",
     None),
    ("Don't pass Celsius here; room_temp_k is read.", "°C", "oven temperature", None),
])
def test_an_identifier_of_the_quantity_names_the_unit_instead(text: str, unit: str,
                                                              quantity: str,
                                                              instead: str | None) -> None:
    assert stated_instead(text, unit, (quantity,)) == instead, text
