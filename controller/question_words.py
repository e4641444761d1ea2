"""A question word misspelt, read as the word: "wot is it", "hoo calls that", "y does it fail".

The question words are a closed class (what, who, where, when, why, how, which), so a slip
of one is found by how it sounds or by one edit, never by a list of someone's spellings:

- by sound: each question word is its spoken consonants with the spellings its vowel sound
  takes in English ("what" is w-t with a, o or u between: "wot", "wut", "whut"; "who" is h
  with oo, u or ew: "hoo", "hu"; "why" is w with y, i, ai or ye, or the letter "y" said alone),
  a leading "wh" read as "w";
- by one edit: a swap of two letters ("waht", "wehn"), or a letter missing from a word of
  four letters or more ("wher", "wich"); a slip one edit from two question words ("hwo":
  how or who) is read as neither.

Only a word standing where a question word stands is read so: first in the message or in a
clause (after . , ; : ! ? or a dash), with a word after it ('s is the word "is"). A word
English has ("wat", "wen") is read so only before a word that follows a question word (an
auxiliary: "wen does it run"; "about": "wat about the pool"; a verb's third person: "wat
calls it"). Pure; the English word list is the packaged sentence model's
(`indexers.english_words.whole_words`).
"""

from __future__ import annotations

import re

from helix.core.english import AFTER_WHY, QUESTION_FOLLOWERS, looks_third_person
from indexers.english_words import whole_words

QUESTION_WORDS = ("what", "who", "where", "when", "why", "how", "which")
# the consonants each question word is said with, and the spellings of its vowel sound
_SOUNDS: dict[str, tuple[str, str, frozenset[str]]] = {
    "what": ("w", "t", frozenset({"a", "o", "u", "ha", "ho", "hu", "aa", "uu"})),
    "who": ("h", "", frozenset({"oo", "u", "uu", "ew"})),
    "where": ("w", "r", frozenset({"e", "ea", "ai", "ae", "he", "hai", "are", "ere", "air",
                                   "ear", "eir"})),
    "when": ("w", "n", frozenset({"e", "he", "eh"})),
    "why": ("w", "", frozenset({"y", "i", "ai", "ye", "hy", "hi", "ie", "hai"})),
    "how": ("h", "", frozenset({"ow", "ao", "au", "aw", "ou"})),
    "which": ("w", "ch", frozenset({"i", "hi", "e", "ii"})),
}
_CLAUSE_WORD = re.compile(
    r"(?:^|(?<=[.,;:!?]\s)|(?<=\s[-—–]\s))\s*(?P<word>[A-Za-z]+)"
    r"(?=(?P<clitic>['’]s)?\s+(?P<next>[A-Za-z]+))")


def _by_sound(word: str) -> str | None:
    spoken = "w" + word[2:] if word.startswith("wh") else word
    for question, (lead, tail, vowels) in _SOUNDS.items():
        if word == "y" and question == "why":
            return question
        if spoken.startswith(lead) and spoken.endswith(tail) and len(spoken) > len(lead) \
                and spoken[len(lead):len(spoken) - len(tail)] in vowels:
            return question
    return None


def _one_edit(word: str, question: str) -> bool:
    if len(word) == len(question):
        diff = [i for i, (a, b) in enumerate(zip(word, question, strict=True)) if a != b]
        return len(diff) == 2 and diff[1] == diff[0] + 1 \
            and word[diff[0]] == question[diff[1]] and word[diff[1]] == question[diff[0]]
    return len(question) >= 4 and len(word) == len(question) - 1 \
        and any(question[:i] + question[i + 1:] == word for i in range(len(question)))


def question_word(word: str, following: str = "") -> str | None:
    """The question word `word` misspells (by sound or one edit), or None: a question word
    itself, no such word, or a word English has not followed by a question word's follower
    (`following`: the next word, lower case)."""
    low = word.lower()
    if low in QUESTION_WORDS:
        return None
    found = _by_sound(low)
    if found is None:
        edits = [q for q in QUESTION_WORDS if _one_edit(low, q)]
        found = edits[0] if len(edits) == 1 else None
    if found is None:
        return None
    if low == "y":  # one letter: read as "why" only before what follows "why"
        return found if following in QUESTION_FOLLOWERS or following in AFTER_WHY else None
    known = whole_words()
    if len(low) > 1 and (not known or low in known):
        follows = following in QUESTION_FOLLOWERS or looks_third_person(following)
        return found if follows else None
    return found


def respelt_question_words(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(`text` with each misspelt question word at a clause's start read as the word, the
    (typed, read) pairs)."""
    read: list[tuple[str, str]] = []

    def fix(match: re.Match[str]) -> str:
        typed = match.group("word")
        following = "is" if match.group("clitic") else match.group("next").lower()
        found = question_word(typed, following)
        if found is None:
            return match.group(0)
        read.append((typed, found))
        word = found.capitalize() if typed[0].isupper() else found
        return match.group(0)[:match.start("word") - match.start()] + word

    out = _CLAUSE_WORD.sub(fix, text)
    return out, tuple(read)
