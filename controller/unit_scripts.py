"""Units written in the Cyrillic script, read as the Latin names they spell (pure).

A Russian line writes the metric units with Cyrillic letters that spell their Latin symbols and
names letter for letter ("м/с" m/s, "мг/дл" mg/dl, "ммоль/л" mmol/l, "в нитах" in nits, with a
case ending): each such word of a line is written as its transliteration, so the unit tables
read it, and every other word (the negation "не", the quantity's name) is kept as written.

    latin_units(text, known) -> `text` with each Cyrillic word that spells a unit (`known`) in
                                Latin letters

"см" is read both ways: "s" by sound, "c" by shape. A word of one or two letters spells a
unit only where a unit stands: after a number, beside a "/" of a quotient, after the
preposition "в" (in); else "на" (on) would be read as the nanoampere and "у" (at) as the hour.
A longer word may carry a case ending ("нитах", "миллиметров"): it is read without it when the
whole word spells no unit.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_LETTERS = dict(zip("абвгдеёзийклмнопрстуфцыэ", "abvgdeezijklmnoprstufcye", strict=True))
_LETTERS |= {"ж": "zh", "х": "kh", "ч": "ch", "ш": "sh", "щ": "shch", "ю": "yu", "я": "ya",
             "ъ": "", "ь": ""}
_WORD = re.compile(r"[А-Яа-яЁё]+")
_IN = frozenset({"в", "во"})  # the preposition a unit follows ("в м/с", "в нитах")
_SHORT = 2  # a word this long spells a unit only where a unit stands
_ENDINGS = ("ами", "ями", "ах", "ях", "ов", "ев", "ам", "ям", "ом", "ем", "ой", "ей",
            "а", "я", "у", "ю", "е", "ы", "и")  # Russian case endings, longest first
_STEM = 3  # letters a word keeps without its ending
_LONGEST = 24  # no unit's name is longer ("миллиметрами"): a longer word is left unread
# Russian unit words whose letters spell another unit, never read: "га" the hectare (not the
# gigaampere "ga"), "кв" square ("45 кв. м", not the kilovolt: that is "кВ"), "ст" of "мм рт.
# ст." and "ст. л." (not the cent "ct")
_OTHER_UNITS = frozenset({"га", "кв", "ст"})


def _latin(word: str, looks: bool = False) -> str:
    """`word` in Latin letters by sound; with `looks`, "с" as the "c" it looks like ("см" cm,
    "сд" cd: a symbol is written with the Latin letter's shape)."""
    out = []
    for letter in word:
        low = letter.lower()
        spelt = "c" if looks and low == "с" else _LETTERS.get(low, low)
        out.append(spelt.upper() if letter != low and len(spelt) == 1 else spelt)
    return "".join(out)


def _unit_stands(text: str, start: int, end: int) -> bool:
    """A unit stands at `start`..`end`: after a number, beside a quotient's "/", after "в"."""
    before, after = text[max(0, start - 24):start], text[end:end + 1]
    if after == "/" or before.endswith("/") or re.search(r"\d\s?$", before):
        return True
    previous = _WORD.findall(before)
    return bool(previous) and before.rstrip().endswith(previous[-1]) \
        and previous[-1].lower() in _IN


def latin_units(text: str, known: Callable[[str], bool]) -> str:
    """`text` with each Cyrillic word that spells a unit `known` reads in Latin letters."""
    if not _WORD.search(text):
        return text

    def spelt(match: re.Match[str]) -> str:
        word = match.group()
        if word in _OTHER_UNITS or len(word) > _LONGEST or (len(word) <= _SHORT
                                    and not _unit_stands(text, match.start(), match.end())):
            return word
        for latin in (_latin(word), _latin(word, looks=True)):
            if known(latin):
                return latin
        for ending in _ENDINGS if len(word) > _SHORT else ():
            if word.lower().endswith(ending) and len(word) - len(ending) >= _STEM:
                stem = _latin(word[:-len(ending)])
                if known(stem):
                    return stem
        return word

    return _WORD.sub(spelt, text)
