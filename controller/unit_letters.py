"""Where a unit's one-letter name stands as a unit though no "in" or number comes before it
(pure): "W" is a unit, "A" an article, "s" a plural's letter, so a one-letter name is read
only where a unit stands (`units.toml` [mentions]); these are such places read from the
sentence around it, not from the letter.

    stands(text, start, end) -> the name at `start`..`end` is a unit there: quoted alone
                                ("the `W` in our header", 'the label says "W"'), named a unit
                                ("the old W unit"), set beside a unit of its dimension ("neither
                                W nor mW", "mW or W"), the complement of "is" ending its clause
                                ("the unit is W;"), or a capital letter a verb of giving a
                                unit takes ("used to take W", "we don't report W")
"""

from __future__ import annotations

import re

from controller.unit_names import identity, names

_QUOTES = {"`": "`", '"': '"', "“": "”", "'": "'", "‘": "’"}
_COORDINATED = r"(?:,|\bor\b|\bnor\b|\band\b|/)"
_CLAUSE_END = re.compile(r"\s*(?:[,;:.!?)\]|—–]|$)")


def _kin(word: str, name: str) -> bool:
    """`word` names another unit of the dimension `name` names ("mW" beside "W")."""
    other, own = identity(word), identity(name)
    return other is not None and own is not None and other[0] == own[0] and other != own


def stands(text: str, start: int, end: int) -> bool:
    name, before, after = text[start:end], text[:start], text[end:]
    table = names()
    opener = before[-1:]
    if opener in _QUOTES and after.startswith(_QUOTES[opener]):
        return True
    nouns = "|".join(map(re.escape, sorted(table.unit_nouns)))
    opens = not re.search(r"\w[^.!?\n]*$", before)  # first in its sentence: "A unit test"
    if not opens and re.match(r"\s+(?:" + nouns + r")\b", after, re.I):
        return True
    follows = re.match(r"\s*" + _COORDINATED + r"\s*([^\W\d_][\w°µ]*)", after)
    precedes = re.search(r"([^\W\d_][\w°µ]*)\s*" + _COORDINATED + r"\s*$", before)
    if any(m is not None and _kin(m.group(1), name) for m in (follows, precedes)):
        return True
    words = re.findall(r"[\w']+", before[-40:])
    previous = words[-1].lower() if words else ""
    if previous in table.complement_after and _CLAUSE_END.match(after):
        return True
    return name.isupper() and previous in table.unit_verbs
