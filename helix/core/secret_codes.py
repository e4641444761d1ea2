"""A code typed on a keypad or a phone, found by its name and its digits where a password's
rules see too few characters:

- a PIN or a PUK (a SIM's, a phone's, a device's), its name a word or an identifier's last
  word (`PUK: 30917264`, `sim_pin = 6174`, `"device_pin": "5830"`): four to eight digits, not
  one digit repeated, quoted when its name is (`"pin": 8091`, a JSON number, is a tokenizer's
  vocabulary's ID, a count);
- a code keyed in after a `<word> code` name (`door code: 8153#`, `access code: *4609#`), a
  few words maybe naming what it opens between the name and its colon (`code for the side
  door: 4411#`): four to eight digits with a keypad's `*` before them or `#` after them (a
  phone's DTMF tones, a door's keypad). Plain digits after such a name are too often a
  number of another kind (`zip code: 80331`, `error code: 4040`).

The value said with a colon, `=` or `is`, maybe quoted, backticked or bold (`**7046#**`), and
its digits end there (no `.5`, `-2`, `/3`, letter or digit after them).

    code_values(text, lowered) -> [(start, end, kind)]

The prefilter wakes a line by CODE_TRIGGERS: a PUK's name, a digit and `#`, a colon and `*`
and a digit (a PIN's name and `passcode` wake their line already: KEYWORDS).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.english import PURPOSE_PREPOSITIONS, word_alternation
from helix.core.secret_structure import Found

__all__ = ["CODE_TRIGGERS", "code_values"]

# (no `\b`: each one adds a word-boundary flag to the set's DFA states; a PIN's name and
# `passcode` wake their line already, KEYWORDS; no counted run of digits: it grew the plain
# set's DFA)
CODE_TRIGGERS = (r"(?i)puk", r"[0-9]#|:[ \t]?\*[0-9]")
_SAID = r"[\"']?[ \t]*(?:[:=]|[ \t]is\b)[ \t]*"
# (each pattern matched where its name's word stands, found by `str.find`: a pattern opening
# with a class or a case-blind word is tried at every character by `re`)
# (a quoted name's unquoted digits are a JSON number, an ID or a count: a tokenizer's
# vocabulary maps `"pin": 8091`; a code in JSON is a string)
_PIN = re.compile(r"(?i)(?:pin|puk|passcode)(?![A-Za-z0-9])([\"']?)[ \t]*"
                  r"(?:[:=]|[ \t]is\b)[ \t]*(\*\*|[\"'`])?([0-9]{4,8})(?![\w\-/:#]|\.[0-9])")
# `<word> code`, then a few words naming what it opens (`for the side door`), then the value
_KEYED = re.compile(r"(?i)codes?(?![A-Za-z0-9])"
                    r"(?:[ \t]+(?:" + word_alternation(PURPOSE_PREPOSITIONS) + r")"
                    r"(?:[ \t]+[\w.\-]{1,30}){1,5}?)?"
                    + _SAID + r"(\*\*|`)?(\*?[0-9]{4,8}#?)(?![\w\-/:#]|\.[0-9])")
_WORD_BEFORE = re.compile(r"[A-Za-z]{2,20}[ \t_\-]$")  # the word naming the code, its joint
_KEYPAD = re.compile(r"[0-9]#|\*[0-9]")
_NAMES = ("pin", "puk", "passcode")


_LETTER_OR_DIGIT = re.compile(r"(?i)[A-Za-z0-9]")  # (case-blind: `İ` and `K`, the Kelvin sign, too)


def _ascii_alnum(char: str) -> bool:
    return _LETTER_OR_DIGIT.match(char) is not None


def _starts(text: str, lowered: str, word: str) -> Iterator[int]:
    """Where `word` starts in the text, case-blind, after no ASCII letter or digit."""
    if len(lowered) != len(text):  # (a character whose lower case is longer: offsets differ)
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    at = lowered.find(word)
    while at != -1:
        if at == 0 or not _ascii_alnum(text[at - 1]):
            yield at
        at = lowered.find(word, at + 1)


def _named(text: str, at: int) -> bool:
    """A word of 2-20 ASCII letters and a space, `_` or `-` right before `at`, and no letter
    or digit before that word."""
    start = max(0, at - 22)
    word = _WORD_BEFORE.search(text, start, at)
    return word is not None and (word.start() == 0 or not _ascii_alnum(text[word.start() - 1]))


def _pins(text: str, lowered: str) -> Iterator[Found]:
    for name in _NAMES:
        for at in _starts(text, lowered, name):
            match = _PIN.match(text, at)
            if match is None:
                continue
            quoted_name, opened, value = match.group(1, 2, 3)
            if len(set(value)) > 1 and not (quoted_name and opened not in ('"', "'")):
                yield Found(match.start(3), match.end(3), "keyword")


def _keyed(text: str, lowered: str) -> Iterator[Found]:
    for at in _starts(text, lowered, "code"):
        match = _KEYED.match(text, at) if _named(text, at) else None
        if match is None:
            continue
        value = match.group(2)
        if (value.startswith("*") or value.endswith("#")) and len(set(value.strip("*#"))) > 1:
            yield Found(match.start(2), match.end(2), "keyword")


def code_values(text: str, lowered: str) -> Iterator[Found]:
    """(`lowered`: the text in lower case)"""
    if "pin" in lowered or "puk" in lowered or "passcode" in lowered:
        yield from _pins(text, lowered)
    if "code" in lowered and _KEYPAD.search(text) is not None:
        yield from _keyed(text, lowered)
