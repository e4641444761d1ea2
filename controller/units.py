"""Whether a line states a quantity in a unit, or says it is *not* in that unit (pure).

"is the modulus in GPa?" against "The modulus is given in pascal (not GPa)." must not read
as "in GPa": a mention of the unit right after a negation ("not", "rather than", "instead of",
"never", "no", "unlike", "vs") is a denial, not a statement, and the unit the line does state
("in pascal") is what the answer reports.
"""

from __future__ import annotations

import re
from functools import lru_cache

# a negation within a few words before the unit: "(not GPa)", "rather than in GPa", "no ms"
_NEGATION = re.compile(r"(?:\bnot|\bnever|\bno|n't|\brather\s+than|\binstead\s+of|\bunlike|"
                       r"\bvs\.?|\bversus|\bnor)\s+(?:(?:in|as|a|the)\s+)?[\"'`(]*\s*$", re.I)


@lru_cache(maxsize=256)
def _unit_pattern(unit: str) -> re.Pattern[str]:
    return re.compile(rf"(?i)(?<![\w]){re.escape(unit)}(?![\w])")


def _other_unit(unit: str) -> re.Pattern[str]:
    return re.compile(rf"(?i)\b(?:in|as)\s+(?:the\s+)?([A-Za-z][\w/^%.\-]*)\s*[,(;]?\s*"
                      rf"(?:not|rather\s+than|instead\s+of|never)\s+(?:in\s+)?[\"'`]*"
                      rf"{re.escape(unit)}(?![\w])")


def states_unit(line: str, unit: str) -> bool:
    """`line` names `unit` at least once other than right after a negation."""
    return any(not _NEGATION.search(line[:match.start()])
               for match in _unit_pattern(unit).finditer(line))


def denies_unit(line: str, unit: str) -> bool:
    """`line` names `unit` only right after a negation ("in pascal (not GPa)")."""
    found = list(_unit_pattern(unit).finditer(line))
    return bool(found) and not states_unit(line, unit)


def stated_instead(line: str, unit: str) -> str | None:
    """The unit a line states where it denies `unit`: "in pascal (not GPa)" -> pascal."""
    match = _other_unit(unit).search(line)
    return match.group(1) if match else None


def text_states_unit(text: str, unit: str) -> bool:
    return any(states_unit(line, unit) for line in text.splitlines())
