"""Whether what an answer says is absent is stated by the evidence (issue 32, absence32): a
feature of the learned absence head (`helix.synthesis.absence_head`) for the claims that name
what was asked and deny it ("it shows the pause, but not how many attempts are made", "there's
no rule for re-levelling") while one line or sentence of the evidence states it without a
negation of its own.

    held_denied     negating clauses of the answer whose negated words (those after the
                    negation, or before it when none follow: "whether X is done isn't said")
                    share a word with the question, and at least half (and one) of whose
                    words the evidence holds sit in one line or sentence of the evidence that
                    negates nothing

Measured (absence32, at main's per-set settings after absence31's retrain, left out writer by
writer): cost (2 x claims accepted + ordinary refused) 85 -> 80 (21/43 -> 21/38). Not kept: the
one plain line holding at least two of the denied words, one of them asked (91); the count split
by whether the clause is about the material or the speaker (92).

Deterministic, no encoder call; word lists are helix.core.english's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from helix.core.english import NEGATION_WORDS
from helix.core.envelope import EvidenceItem
from helix.synthesis.absence import content_terms, evidence_words
from helix.synthesis.absence_grounded import (
    _ABOUT_FINDING,
    _CLAUSE_CUT,
    _PATH,
    _SAID,
    _SENTENCE,
    _forms,
    sentence_units,
)

__all__ = ["HELD", "held"]

HELD = ("held_denied",)


def _plain_units(evidence: Sequence[EvidenceItem]) -> list[frozenset[str]]:
    """The forms of the words of every line or sentence of the evidence that negates nothing
    (no word of negation, no n't, no code negative)."""
    return [forms for forms, negates in sentence_units(evidence) if forms and not negates]


def _negated(clause: str) -> list[str] | None:
    """The content words a negating clause denies: after its first negation, or before it
    when none follow; words about the material, telling or the speaker left out. None when
    the clause negates nothing."""
    lowered = _PATH.sub(" ", clause.lower())
    cut = next((m for m in _SAID.finditer(lowered) if m.group() in NEGATION_WORDS
                or m.group().endswith("'t")), None)
    if cut is None:
        return None
    for part in (lowered[cut.end():], lowered[:cut.start()]):
        terms = [t for t in content_terms(part)
                 if t not in NEGATION_WORDS and t not in _ABOUT_FINDING]
        if terms:
            return terms
    return []


def _denies_held(terms: Sequence[str], asked: frozenset[str], held: frozenset[str],
                 units: Sequence[frozenset[str]]) -> bool:
    forms = [_forms(t) for t in terms]
    if not any(f & asked for f in forms):
        return False
    known = [f for f in forms if f & held]
    return bool(known) and any(2 * sum(1 for f in known if f & unit) >= len(known)
                               for unit in units)


def held(text: str, question: str | None,
         evidence: Sequence[EvidenceItem] | None) -> tuple[float, ...]:
    """The `HELD` features of `text` against the question and `evidence`."""
    items = tuple(evidence or ())
    units = _plain_units(items)
    asked = frozenset(f for t in content_terms(question or "") for f in _forms(t))
    if not units or not asked:
        return (0.0,)
    known = frozenset(f for w in evidence_words(e.text for e in items) for f in _forms(w))
    count = 0
    for s in _SENTENCE.finditer(text):
        for clause in _CLAUSE_CUT.split(s.group().replace("’", "'")):
            terms = _negated(clause)
            count += bool(terms) and _denies_held(terms or [], asked, known, units)
    return (math.log1p(count),)
