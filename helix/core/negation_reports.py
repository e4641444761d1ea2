"""Negations `helix.core.negation.read` finds beyond its cue words (pure, meaning30):

    refuted(clauses, at, length) -> what a negated truth refutes ("that isn't true", "none of
        them are right", "... is not that:"), with `named_back` and `previous_clause`
    report_before(tokens, cues, boundary, at, named) -> the report a refuted demonstrative names
        back when the clause before it reports nothing ("People keep telling me it is in kPa. I
        measured it, and that isn't true.")
    received(clauses, at) -> an error message's report of the input it rejects: the clause "got"
        opens after a requirement ("must be a percentage; got 1500, which looks like nits")
    negated_identifiers(tokens) -> the tokens an identifier made of words with a negation
        among them denies: itself ("test_size_is_not_in_points") and, called, its arguments
        ("assertNotEqual(cfg.unit, 'kPa')": a negated comparison)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Protocol

from helix.core.negation_cues import Cues
from helix.core.negation_tokens import CLOSE, OPEN, Token, match


class ClauseReader(Protocol):
    """What `helix.core.negation` knows of a sentence's clauses."""

    tokens: tuple[Token, ...]
    c: Cues
    boundary: list[bool]

    def backward(self, origin: int) -> list[int]: ...

    def forward(self, origin: int, start: int) -> list[int]: ...

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


def previous_clause(cl: ClauseReader, first: int) -> list[int]:
    """The clause before the one starting at token `first`, in the same sentence (the
    boundary tokens between them skipped)."""
    i = first - 1
    while i >= 0 and cl.boundary[i] and cl.tokens[i].sentence == cl.tokens[first].sentence:
        i -= 1
    if i < 0 or cl.tokens[i].sentence != cl.tokens[first].sentence:
        return []
    return [i, *cl.backward(i)]


def named_back(cl: ClauseReader, at: int) -> list[int]:
    """What the demonstrative at token `at` names back: the clause before it in its sentence,
    or the sentence before when it opens its sentence or a complement ("Old posts say GPa.
    That stopped being true."; "... we agreed that this is not what it means")."""
    tokens, sentence = cl.tokens, cl.tokens[at].sentence
    if at > 0 and tokens[at - 1].sentence == sentence \
            and tokens[at - 1].lower not in cl.c.complementizers:
        return previous_clause(cl, at)
    return [j for j in range(at) if tokens[j].sentence == sentence - 1]


def refuted(cl: ClauseReader, at: int, length: int) -> list[int]:
    """A negated truth whose subject is a demonstrative ("That stopped being true", "that is
    no longer the case", "this is not what the field means") or a quantifier over what the
    clause before names ("none of them are right"): what it names back (`named_back`); a
    negated predicate whose complement is a demonstrative ending its clause ("..., which most
    people assume works like points, is not that:"), the report before it."""
    tokens, c = cl.tokens, cl.c
    after = at + length
    while after < len(tokens) and tokens[after].lower in c.fillers:
        after += 1
    if after < len(tokens) and tokens[after].lower in c.demonstratives \
            and tokens[after].sentence == tokens[at].sentence and (
            after + 1 == len(tokens) or cl.boundary[after + 1]
            or tokens[after + 1].sentence != tokens[at].sentence):
        return report_before(tokens, c, cl.boundary, at, [])
    if n := match(tokens, at, c.refuted_quantifiers):  # "none of them are right"
        after = at + n
        while after < len(tokens) and tokens[after].lower in c.fillers:
            after += 1
        if after >= len(tokens) or not match(tokens, after, c.truths):
            return []
        named = previous_clause(cl, at)
        return [*named, *report_before(tokens, c, cl.boundary, at, named)]
    if after >= len(tokens) or not match(tokens, after, c.truths):
        return []
    i = at - 1
    while i > 0 and tokens[i].lower in c.fillers:
        i -= 1
    if i > 0 and tokens[i].lower not in c.demonstratives \
            and tokens[i - 1].lower in c.demonstratives and tokens[i].text[:1].isalpha():
        i -= 1  # "that page isn't right"
    if i < 0 or tokens[i].sentence != tokens[at].sentence \
            or tokens[i].lower not in c.demonstratives:
        return []
    return [*(named := named_back(cl, i)), *report_before(tokens, c, cl.boundary, i, named)]


def first_requirements(tokens: Sequence[Token], c: Cues) -> dict[int, int]:
    """Per sentence, the index of its first requirement (`requirements`: "must"), for
    `received` (found once per text: a scan per "got" was quadratic on a long line of them)."""
    first: dict[int, int] = {}
    for j, token in enumerate(tokens):
        if token.lower in c.requirements:
            first.setdefault(token.sentence, j)
    return first


def received(cl: ClauseReader, at: int, required: Mapping[int, int]) -> list[int]:
    """A clause opened by a report of the input (`received`: "got") at token `at`, after a
    requirement earlier in its sentence (`requirements`: "must", "expects"), is what an error
    message rejects: its words, and a relative clause right after it that says what the input
    looks like ("must be a compass step; got 270, which looks like degrees", meaning33). A
    "got" with no requirement before it reports nothing rejected ("we got the readings in ppm");
    a name interpolated in braces is a variable's, no unit ("got {dpi!r}"). (`required`:
    `first_requirements`' of the tokens.)"""
    tokens, c = cl.tokens, cl.c
    opens = at == 0 or cl.boundary[at - 1] or tokens[at - 1].sentence != tokens[at].sentence
    if tokens[at].lower not in c.received or not opens \
            or required.get(tokens[at].sentence, at) >= at:
        return []
    scope = cl.forward(at, at + 1)
    end = max(scope, default=at) + 1
    if end < len(tokens) and tokens[end].lower == ",":
        end += 1
    if end < len(tokens) and tokens[end].sentence == tokens[at].sentence \
            and tokens[end].lower in c.relatives:
        scope += [end, *cl.forward(end, end + 1)]
    return _outside_braces(tokens, scope)


def _outside_braces(tokens: Sequence[Token], scope: list[int]) -> list[int]:
    """The tokens of `scope` outside an interpolation ("{dpi!r}", up to its "}")."""
    out, inside = [], False
    for j in scope:
        inside = (inside or tokens[j].text == "{") and tokens[j].text != "}"
        if not inside and tokens[j].text != "}":
            out.append(j)
    return out
