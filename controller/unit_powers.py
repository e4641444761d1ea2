"""A unit's power as a text writes it: "m³", "ft²" (a compound's first unit also with a plain
digit, "m3/h", "ft3/min"); and a unit times a unit of time to the power minus one or two
("L·min⁻¹", "m³ h⁻¹", "kg·h⁻¹", "m·s⁻²", "m s^-2"), as SI writes a quotient, read as the
compound it is
(`controller.unit_names.join_compounds`); and a power however a text writes it ("s^2",
"s**2", "m/s2", "second squared", "seconde carrée", "square metres") as the superscript after
the unit, same length. Pure.

    superscripts(text, join, named) -> `text` with each power written as its superscript,
        the characters it frees as spaces after it ("m/s^2" -> "m/s² "); a phrase `named`
        says is a unit's own name kept ("cubic metres")

    join_inverse(text, identity, join, power) -> `text` with each such unit written as a
        joined compound of the same length ("Lˍmin  "), where `identity` names a unit per a
        unit of time
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

POWER = "²³"  # a unit's square or cube, written after it
CUBED = "[" + POWER + "23]?"  # a compound's first unit, its power as written or a plain digit
INVERSE = "⁻¹"  # to the power minus one
# a negative power as a text writes it after a unit ("s⁻¹", "s⁻²", "s^-2"): the power it is of
# the quotient's second unit ("m·s⁻²": metres per second squared)
_NEGATIVE = {"⁻¹": "", "⁻²": "²", "^-1": "", "^-2": "²"}
NEGATIVE_MARKS = ("⁻", "^-")
_SUPER = {"2": "²", "3": "³"}
# a word after a unit naming its square or cube ("metres per second squared", "mètres par
# seconde carrée", "metri al secondo quadrato", "metros por segundo cuadrado")
SQUARED = ("squared", "carrée", "carré", "carrées", "carrés", "quadrato", "quadrati",
           "cuadrado", "cuadrados", "quadrado", "quadrados")
CUBED_WORDS = ("cubed",)
_CARET = re.compile(r"(?<=[A-Za-zµ])(\^|\*\*)([23])(?!\d|\.\d)")
# a plain digit after a unit of a quotient's second part ("m/s2", "ft/sec2"): "m3" alone is
# the table's own name of a volume
_DIGIT = re.compile(r"(?<=/)([A-Za-z]{1,4})([23])(?!\w|\.\d)")
_WORDS = re.compile(r"(?<=[A-Za-zé])([ \t]+)(" + "|".join(SQUARED + CUBED_WORDS) + r")(?![\w])",
                    re.IGNORECASE)


# a word before a unit naming its square or cube ("square metres", "cubic feet", "sq ft")
_BEFORE = re.compile(r"(?<![\w])(square|sq|cubic)[ \t]+([A-Za-z]+)(?![\w²³])", re.IGNORECASE)


def superscripts(text: str, join: str, named: Callable[[str], bool] = lambda _: False) -> str:
    if not any(c in text for c in "^*/") and not _WORDS.search(text) \
            and not _BEFORE.search(text):
        return text

    def before(match: re.Match[str]) -> str:  # "square metres" -> "metres²      "
        if named(match.group()):  # the table's own name ("cubic metres", "cu ft")
            return match.group()
        power = "³" if match.group(1).lower() == "cubic" else "²"
        return match.group(2) + power + " " * (len(match.group()) - len(match.group(2)) - 1)

    text = _BEFORE.sub(before, text)
    text = _CARET.sub(lambda m: _SUPER[m.group(2)] + " " * len(m.group(1)), text)
    text = _DIGIT.sub(lambda m: m.group(1) + _SUPER[m.group(2)], text)

    def worded(match: re.Match[str]) -> str:
        power = "³" if match.group(2).lower() in CUBED_WORDS else "²"
        return power + " " * (len(match.group()) - 1)

    return _WORDS.sub(worded, text)


@lru_cache(maxsize=4)
def _pattern(join: str, power: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z_°" + join + r"])(°?[A-Za-zµ]+" + power + r")[·⋅ ]([A-Za-z]+)("
                      + "|".join(map(re.escape, _NEGATIVE)) + r")(?![\w°])")


def join_inverse(text: str, identity: Callable[[str], tuple[str, str] | None], join: str,
                 power: str) -> str:
    def joined(match: re.Match[str]) -> str:
        second = match.group(2) + _NEGATIVE[match.group(3)]  # "s⁻²": per second squared
        found = identity(f"{match.group(1)} {second}")
        if found is None or "/" not in found[1]:  # "N·m⁻¹" is no unit per a unit of time
            return match.group()
        return match.group(1) + join + second + " " * (len(match.group(3))
                                                        - len(second) + len(match.group(2)))

    return _pattern(join, power).sub(joined, text)
