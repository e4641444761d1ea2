"""What an identifier or a label says of the asked quantity and its unit (pure; split from
controller/units.py): a name made of the quantity's words and a unit (`cutoff_mV`,
`CACHE_LIFETIME_HOURS`, `rotation_rad`), and whether a text names the quantity at all.

    identifier_words(name)        -> an identifier's words, a unit name kept whole ("cutoff_mV"
                                     -> cutoff, mV; "cacheLifetimeHours" -> cache, Lifetime, Hours)
    suffixed(text, unit, quantity) -> identifiers named after the quantity ending in `unit`
    suffixed_rival(reading, text, unit, quantity) -> the other unit such an identifier ends with
    names_quantity(text, quantity) -> `text` names one of the quantity's phrases
    renamed_rival(reading, unit)  -> the other unit of `unit`'s dimension the new name of a
                                     rename ends with ("rename max_ma -> max_a": A)
"""

from __future__ import annotations

import re

from controller.unit_names import aliases as _aliases
from controller.unit_names import identity, names, rival
from helix.core.negation import Reading
from helix.core.negation_cues import cues

_SHORT_WORD = 3  # a word cut short still has three letters ("max", "temp")

# an identifier's words: snake_case, SCREAMING_CASE, camelCase ("cacheLifetimeHours")
_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w])"
                         r"|(?<![\w.])[a-z]+(?:[A-Z][a-z0-9]*)+(?![\w])")


def identifier_words(name: str) -> list[str]:
    """An identifier's words: split at "_" and where a lower-case letter meets a capital,
    but a part that is a unit's name as written stays whole (`cutoff_mV` -> cutoff, mV;
    `rate_kHz` -> rate, kHz; `cacheLifetimeHours` -> cache, Lifetime, Hours)."""
    out: list[str] = []
    for part in name.split("_"):
        whole = identity(part) is not None and not part.islower()
        out += [part] if whole else re.split(r"(?<=[a-z0-9])(?=[A-Z])", part)
    return [w.strip() for w in out if w.strip()]


def suffixed(text: str, unit: str, quantity: tuple[str, ...]) -> list[re.Match[str]]:
    """Identifiers named after the asked quantity with the unit as their last word
    (`CACHE_LIFETIME_HOURS`, `request_timeout_ms`, `cacheLifetimeHours`): the unit's mention
    is that last word."""
    names = {n.lower() for n in _aliases(unit)}
    out = []
    for match in _IDENTIFIER.finditer(text):
        words = identifier_words(match.group())
        if len(words) > 1 and words[-1].lower() in names \
                and _named_by_part(words[:-1], quantity):
            last = match.end() - len(words[-1])
            found = re.compile(re.escape(words[-1])).match(text, last)
            if found is not None:
                out.append(found)
    return out


def suffixed_rival(reading: Reading, text: str, unit: str, quantity: tuple[str, ...]
                   ) -> str | None:
    """The other unit of `unit`'s dimension an identifier named after the asked quantity ends
    with, outside every negation (`rotation_rad`, `COOLING_TEMP_F`, `tile_pressure_mpa`): what
    a line denying `unit` names instead."""
    for match in _IDENTIFIER.finditer(text):
        words = identifier_words(match.group())
        if len(words) > 1 and rival(words[-1], unit, elliptic=True) \
                and _named_by_part(words[:-1], quantity) \
                and not reading.denied_at(match.start()):
            return words[-1]
    return None


def _named_by_part(words: list[str], quantity: tuple[str, ...]) -> bool:
    """An identifier's words name the quantity: its phrase, or only words of it, connectors
    aside (`angle_deg`, `ROTATION_IN_DEGREES` for "rotation angle"; not `session_ttl_h`)."""
    if names_quantity(" ".join(words), quantity):
        return True
    said = [w.lower() for w in words if w.lower() not in names().connectors]
    return bool(said) and any(all(any(q == w or (len(w) >= _SHORT_WORD and q.startswith(w))
                                      for q in re.findall(r"[a-z0-9]+", phrase.lower()))
                                  for w in said) for phrase in quantity)


def names_quantity(text: str, quantity: tuple[str, ...]) -> bool:
    """`text` names one of the quantity's phrases, each word whole or cut short ("max upload
    size", "`max_upload_size`", "cooling_temp" for "maximum upload size", "cooling temperature")."""
    for phrase in quantity:
        words = re.findall(r"[a-z0-9]+", phrase.lower())
        found = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower())
        for at in range(len(found) - len(words) + 1):
            if words and all(w == t or (len(t) >= _SHORT_WORD and w.startswith(t))
                             for w, t in zip(words, found[at:at + len(words)], strict=True)):
                return True
    return False


def _as_unit(word: str) -> str | None:
    """An identifier's last word as a unit's name, in the cases a name is typed in ("a" -> A,
    "mw" -> mW)."""
    for spelt in (word, word[:1] + word[1:].upper(), word.upper()):
        if identity(spelt) is not None:
            return spelt
    return None


def renamed_rival(reading: Reading, unit: str) -> str | None:
    """The new name of a rename (`renames`, then "to" or an arrow: "rename max_ma -> max_a",
    "`max_draw_w` was renamed to `max_draw_mw`") whose last word is another unit of `unit`'s
    dimension: the unit the line names instead (meaning33, as fresh18 and fresh20 write it)."""
    tokens, c = reading.tokens, cues()
    for i, token in enumerate(tokens):
        if token.lower not in c.renames:
            continue
        after = [j for j in range(i + 1, len(tokens)) if tokens[j].sentence == token.sentence]
        target = next((j for j in after if tokens[j].lower in c.change_to
                       or tokens[j].text in c.rename_arrows or tokens[j].text == ">"), None)
        name = next((tokens[j].text for j in after if target is not None and j > target
                     and _IDENTIFIER.fullmatch(tokens[j].text)), None)
        words = identifier_words(name) if name else []
        spelt = _as_unit(words[-1]) if len(words) > 1 else None
        if spelt is not None and rival(spelt, unit, elliptic=True):
            return spelt
    return None
