"""The unit a contrast gives instead of the one it denies, whatever the vocabulary knows (pure).

"in tokens, not characters", "tokens (not characters)", "in tokens rather than characters",
"tokens instead of characters", "not characters but tokens": the two words stand in the same
place of the sentence, one set against the other, so the one the contrast keeps is what the
quantity is in where the other is the asked unit, though neither is a unit of
`controller/units.toml` (a count, a currency the table lacks, a project's own unit). Read from
the sentence's structure: the contrast's marks and words (`units.toml` [contrast]) around the
asked unit's mention, never from a list of units. A word the vocabulary knows as a unit of
another dimension, a function word or a number is no such unit.

    contrast_instead(reading, unit, sentence) -> the word kept by a contrast that sets it
                                                 against the asked unit in `sentence`, or None
"""

from __future__ import annotations

from controller.unit_names import identity, is_number, names, same_unit, shown
from helix.core.english import FUNCTION_WORDS
from helix.core.negation import Reading

_PARTICIPLES = ("ed", "en", "wn")  # "used", "given", "shown": a predicate, no unit


def _word(reading: Reading, at: int, unit: str) -> str | None:
    """Token `at` as the unit kept: a word, not a function word, a number or a unit of
    another dimension than the asked one's."""
    if not 0 <= at < len(reading.tokens):
        return None
    token = reading.tokens[at]
    if not token.text[:1].isalpha() or token.lower in FUNCTION_WORDS or is_number(token.text) \
            or same_unit(token.text, unit):
        return None
    found, asked = identity(token.text), identity(unit)
    if found is not None and asked is not None and found[0] != asked[0]:
        return None
    return shown(token.text)


def _negation(word: str) -> bool:
    return word in names().contrast["negations"] or word.endswith(("n't", "n’t"))


def _placed(words: list[str], at: int) -> bool:
    """Word `at` stands where a unit does: first, or after a lead ("in tokens"), a label's
    mark ("quota: tokens") or a form of "be" ("is pages"; not a participle there, "is given",
    unless the vocabulary knows it)."""
    table = names().contrast
    if at > 0 and words[at - 1] in table["predicates"]:  # "is pages", not "is given"
        return identity(words[at]) is not None or not words[at].endswith(_PARTICIPLES)
    return at == 0 or words[at - 1] in table["leads"] or words[at - 1] in table["placers"]


def contrast_instead(reading: Reading, unit: str, sentence: int) -> str | None:
    """The word a contrast in `sentence` keeps where it denies the asked unit: before ", not
    <unit>", "(not <unit>)", "rather than <unit>", "instead of <unit>"; after "not <unit>
    but" (a preposition or article may stand before either word)."""
    table = names().contrast
    tokens = reading.tokens
    words = [t.lower for t in tokens]
    for i, token in enumerate(tokens):
        if token.sentence != sentence or not same_unit(token.text, unit):
            continue
        j = i - 1
        while j >= 0 and words[j] in table["leads"]:  # "not in characters"
            j -= 1
        before = j
        if j >= 1 and _negation(words[j]) and tokens[j - 1].text in table["marks"]:
            before = j - 2  # "tokens, not characters", "tokens (not characters)"
        else:
            for phrase in table["phrases"]:
                parts = phrase.split()
                if words[max(0, j - len(parts) + 1):j + 1] == parts:
                    before = j - len(parts)  # "tokens rather than characters"
                    break
        while before != j and before >= 0 and words[before] in table["leads"]:
            before -= 1
        kept = _word(reading, before, unit) if before != j and _placed(words, before) else None
        if kept is None and j >= 0 and _negation(words[j]) \
                and i + 1 < len(tokens) and words[i + 1] in table["corrections"]:
            after = i + 2  # "not characters but tokens"
            while after < len(tokens) and words[after] in table["leads"]:
                after += 1
            kept = _word(reading, after, unit)
        if kept is not None and tokens[max(0, before)].sentence == sentence:
            return kept
    return None
