"""A unit's power as a text writes it: "m³", "ft²" (a compound's first unit also with a plain
digit, "m3/h", "ft3/min"); and a unit times a unit of time to the power minus one ("L·min⁻¹",
"m³ h⁻¹", "kg·h⁻¹"), as SI writes a quotient, read as the compound it is
(`controller.unit_names.join_compounds`). Pure.

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


@lru_cache(maxsize=4)
def _pattern(join: str, power: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z_°" + join + r"])(°?[A-Za-zµ]+" + power + r")[·⋅ ]([A-Za-z]+)"
                      + INVERSE + r"(?![\w°])")


def join_inverse(text: str, identity: Callable[[str], tuple[str, str] | None], join: str,
                 power: str) -> str:
    def joined(match: re.Match[str]) -> str:
        found = identity(f"{match.group(1)} {match.group(2)}")
        if found is None or "/" not in found[1]:  # "N·m⁻¹" is no unit per a unit of time
            return match.group()
        return match.group(1) + join + match.group(2) + " " * len(INVERSE)

    return _pattern(join, power).sub(joined, text)
