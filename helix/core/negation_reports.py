"""Two negations `helix.core.negation.read` finds beyond its cue words (pure, meaning30):

    report_before(tokens, cues, boundary, at, named) -> the report a refuted demonstrative names
        back when the clause before it reports nothing ("People keep telling me it is in kPa. I
        measured it, and that isn't true.")
    negated_identifiers(tokens) -> the tokens an identifier made of words with a negation
        among them denies: itself ("test_size_is_not_in_points") and, called, its arguments
        ("assertNotEqual(cfg.unit, 'kPa')": a negated comparison)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from helix.core.negation_cues import Cues
from helix.core.negation_tokens import CLOSE, OPEN, Token

# an identifier's words: snake_case, SCREAMING_CASE, camelCase ("assertNotEqual")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# the words of an identifier that negate what it names ("assert_not_in", "isNotPoints")
_NEGATIONS = frozenset({"not", "never", "no"})


def report_before(tokens: Sequence[Token], c: Cues, boundary: Sequence[bool], at: int,
                  named: Sequence[int]) -> list[int]:
    """When what the demonstrative at token `at` names back (`named`) reports nothing: in the
    nearest sentence holding a verb of saying or believing (`reports`: the demonstrative's own,
    before it, or the one before), the tokens from the first such verb's clause to the
    sentence's end or the demonstrative."""
    if any(tokens[j].lower in c.reports for j in named):
        return []
    sentence = tokens[at].sentence
    for own in (sentence, sentence - 1):
        span = [j for j in range(at) if tokens[j].sentence == own]
        first = next((j for j in span if tokens[j].lower in c.reports), None)
        if first is not None:
            start = first
            while start > 0 and tokens[start - 1].sentence == own and not boundary[start - 1]:
                start -= 1
            return [j for j in span if j >= start]
    return []


def _negated_name(token: Token) -> bool:
    text = token.text
    if "_" not in text and not re.search(r"[a-z][A-Z]", text):
        return False  # a plain word: the cue words read it
    return any(w.lower() in _NEGATIONS for w in _WORDS.findall(text))


def negated_identifiers(tokens: Sequence[Token]) -> set[int]:
    """Identifiers with a negation among their words, and the arguments of a call of one (an
    opening parenthesis touching the name, up to the one closing it)."""
    out: set[int] = set()
    for i, token in enumerate(tokens):
        if not _negated_name(token):
            continue
        out.add(i)
        if i + 1 < len(tokens) and tokens[i + 1].text == OPEN \
                and tokens[i + 1].start == token.end:
            depth = tokens[i + 1].depth
            for j in range(i + 2, len(tokens)):
                if tokens[j].text == CLOSE and tokens[j].depth <= depth:
                    break
                out.add(j)
    return out
