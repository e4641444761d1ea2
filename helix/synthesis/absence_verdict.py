"""The contract's absence check (`helix.synthesis.contract`, its second rule): evidence was
sent and the answer claims the repository (or the evidence) lacks something ->
`contract_no_evidence_claim`, whatever the answer cites, when the claim
- stands alone: nothing outside the claims' clauses answers from the evidence (cites it in a
  clause that says something, names an identifier or number the excerpts hold, or three of
  their words; a clause that tells where something was seen, "I can see X in a.py", answers
  nothing; a yes or no opening the reply to a yes-or-no question answers): "SESSION_TTL is 12
  hours. The evidence doesn't show ..." is an answer with a note, or
- is a blanket one ("None of this is in the repository... See [E1]", "Can't say."), or
- names what was asked while the evidence holds it: most of what it says is missing is in the
  sent excerpts (`helix.synthesis.absence`) and, the question known, it shares a word with the
  question; or it is mostly the question's words and the excerpts hold most of those. A
  claim's words are those of its own clause ("The docs don't say how the secret is rotated, but
  the check is HMAC-SHA256": secret, rotated), and a claim about a side detail ("how is the
  webhook verified?") is a note.
"X is decided in [E1]. The evidence does not cover Y." is an answer followed by an honest note
on its limits, which the prompt asks for: the verdict returns the notes (the result's
`limits`), which make the answer's gate `limited`. Claims are found by the phrase rules of
`helix.synthesis.absence` and, given an `AbsenceMeaning` (the sentence encoder against
exemplars, `helix.synthesis.absence_meaning`), in any other wording.

    absence_verdict(text, refs, evidence, meaning, question) -> (refused, notes)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from helix.core.english import NEGATION_WORDS, SEERS, stems, word_alternation
from helix.core.envelope import EvidenceItem
from helix.synthesis.absence import (
    AbsenceClaim,
    _sentence,
    absence_claims,
    answers_from,
    content_terms,
    contradicted,
    evidence_words,
)
from helix.synthesis.absence_meaning import AbsenceMeaning, load_exemplars
from helix.synthesis.citations import _PATH_CITE_RE, _REF_GROUP_RE, extract_citations
from helix.synthesis.prompt import CitationRef

__all__ = ["MAX_LIMITS", "MAX_LIMIT_CHARS", "Reading", "absence_reading", "absence_verdict",
           "notes_of"]

MAX_LIMITS = 5  # notes on an answer's limits kept in its result
MAX_LIMIT_CHARS = 300  # characters of one note kept
_FILE_WORD = re.compile(r"`?[\w.-]*/[\w./-]*`?|`?[\w-]+\.[a-z0-9]{1,5}`?")  # a file's name


def _held_forms(words: frozenset[str] | None) -> frozenset[str]:
    return frozenset() if words is None else frozenset(
        f for w in words for strength in ("plural", "suffix") for f in stems(w, strength))


def _claims(text: str, words: frozenset[str] | None, meaning: AbsenceMeaning | None,
            question: str | None = None) -> list[AbsenceClaim]:
    """The claims the phrase rules find (their terms those of their clause: `_in_clause`), and
    those found by meaning (the sentence encoder when given, else the rules' negation cues) in
    sentences the phrases left alone, in order."""
    claims = [_in_clause(text, c) for c in absence_claims(text, cues=meaning is None)]
    if meaning is not None:
        claims += [_unlabelled(text, c) for c in meaning.claims(text, _held_forms(words), words)
                   if not any(o.start < c.end and c.start < o.end for o in claims)
                   and not _asked_polarity(text[c.start:c.end], question)]
    return sorted(claims)


def _asked_polarity(span: str, question: str | None) -> bool:
    """Every word of the span that may say something is missing is one the question asks
    about ("rows with a *missing* email": "the importer records them with the reason
    'missing email'" says what happens to them): no claim."""
    if question is None:
        return False
    said = _said(span)
    polar = {w for w in said if w in load_exemplars().polarity_words} | {
        w for w in re.findall(r"[a-z]+['’]t", span.lower())}
    asked = {f for w in _said(question) for f in _forms(w)}
    return bool(polar) and all(_forms(w) & asked for w in polar)


def _negates(text: str) -> bool:
    return any(w in NEGATION_WORDS or w.endswith(("n't", "n’t"))
               for w in re.findall(r"[a-z]+(?:['’]t)?", text.lower()))


def _limit_note(text: str, claim: AbsenceClaim, refs: Sequence[CitationRef],
                words: frozenset[str] | None,
                meaning: AbsenceMeaning | None) -> AbsenceClaim | None:
    """The claim as a note on the answer's limits, when its sentence goes on after a contrast
    word (data: `contrast_words`) with a clause that cites sent evidence, negates nothing and
    claims nothing, while the words before the contrast make the claim on their own ("Where
    the secret comes from isn't shown, but the check itself is HMAC-SHA256 [E1]"): the claim
    then ends at the contrast and its terms are the words before it. None otherwise."""
    head, tail = _sentence(text, claim.start, claim.end)
    mark = load_exemplars().contrast.search(text, claim.start, tail)
    if mark is None:
        return None
    before, after = text[head:mark.start()], text[mark.end():tail]
    if not extract_citations(after, refs)[1] or _negates(after) \
            or _claims(after, words, meaning) or not _claims(before, words, meaning):
        return None
    return AbsenceClaim(claim.start, mark.start(), content_terms(before))


_BUT = re.compile(r"(?<!,)\s+but\b", re.I)  # "x isn't shown but y is": a clause without its comma
_SEER = re.compile(r"\b(?:" + word_alternation(SEERS) + r")\s+(?:\w+\s+)?see\b", re.I)
_COLON = re.compile(r":[*_`]*\s")  # "**Short answer:** not determinable ...": a label before it
_CLAUSE_MARK = re.compile(r"[.!?;,—–()\n]+\s|\s[-—–]\s")


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause of the sentence holding text[start:end]: the sentence cut at the clause
    marks (a semicolon, a dash, a comma before a clause word) and contrast words around it."""
    head, tail = _sentence(text, start, end)
    for pattern in (load_exemplars().clause, _BUT, _COLON):
        for mark in pattern.finditer(text, head, tail):
            if mark.end() <= start:
                head = max(head, mark.end())
            elif mark.start() >= end:
                tail = min(tail, mark.start())
    return head, tail


def _unlabelled(text: str, claim: AbsenceClaim) -> AbsenceClaim:
    """A claim found by meaning with the terms of what follows a label before a colon
    ("**Short answer:** not determinable from the provided context": none, a blanket one)."""
    labels = list(_COLON.finditer(text, claim.start, claim.end))
    return claim if not labels else claim._replace(
        terms=content_terms(text[labels[-1].end():claim.end]))


def _in_clause(text: str, claim: AbsenceClaim) -> AbsenceClaim:
    """The claim with the terms of its own clause only: what it says is missing ("The docs
    don't say how the secret is rotated, but the check is HMAC-SHA256": secret, rotated)."""
    head, tail = _clause(text, claim.start, claim.end)
    return claim._replace(terms=content_terms(text[head:claim.start] + " "
                                              + text[claim.end:tail]))


def _answering(clauses: Sequence[str], words: frozenset[str],
               refs: Sequence[CitationRef]) -> bool:
    """Some clause cites sent evidence or names an identifier or a number it holds, or those
    that negate
    nothing hold `ANSWERING_TERMS` of its words (`absence.answers_from`); a clause that tells
    where something was seen or what the material is about ("I see `is_expired` in
    auth/session.py", "`KeyLimiter` is shown", "The results are about byte accounting"; a
    word of `sighting_words`, data) answers nothing."""
    ex = load_exemplars()
    said = [c for c in clauses if not _sights(c, ex.sighting_words)]
    plain = [c for c in said if not set(_said(c)) & ex.polarity_words and not _negates(c)]
    return any(answers_from(c, words, terms=False) for c in said) or any(
        _cites(c, refs) for c in plain) or answers_from(" ".join(plain), words)


def _said(clause: str) -> list[str]:
    return re.findall(r"[a-z]+", clause.lower())


def _sights(clause: str, sighting: frozenset[str]) -> bool:
    """A word of `sighting_words`, or "see" after its seer ("I can see X"; "see X" alone
    points at the answer)."""
    return bool(set(_said(clause)) & sighting) or bool(_SEER.search(clause))


def _cites(clause: str, refs: Sequence[CitationRef]) -> bool:
    """The clause cites sent evidence and says something of its own beside the citation
    ("decide_retry decides [E1]"; never "- [E1] ledger/retry.py")."""
    text, citations, _ = extract_citations(clause, refs)
    return bool(citations) and bool(content_terms(_PATH_CITE_RE.sub(" ", _FILE_WORD.sub(
        " ", _REF_GROUP_RE.sub(" ", text)))))


def _replies(text: str, question: str | None) -> bool:
    """The question asks yes or no and the answer opens with a reply ("Yes; width and height
    get the same factor")."""
    ex = load_exemplars()
    return question is not None and _said(question)[:1] != [] and \
        _said(question)[0] in ex.polar_leads and _said(text)[:1] != [] and \
        _said(text)[0] in ex.replies


def _answered(text: str, claims: Sequence[AbsenceClaim], words: frozenset[str] | None,
              refs: Sequence[CitationRef]) -> bool:
    """The answer answers from the evidence outside its claims' clauses, citing or not
    ("SESSION_TTL is 12 hours. The evidence doesn't show whether ..."; "The docs don't say how
    the secret is rotated, but the verification is HMAC-SHA256"; "Nothing about callers is
    shown. `handle` retries 5 times."), a clause that only tells where something was seen
    aside: its claims are then notes on its limits, checked as cited ones are."""
    rest, last = [], 0
    for head, tail in sorted(_clause(text, c.start, c.end) for c in claims):
        rest.append(text[last:head])
        last = max(last, tail)
    rest.append(text[last:])
    return _answering([c for part in rest for c in _CLAUSE_MARK.split(part)],
                      words or frozenset(), refs)


def _targets(claim: AbsenceClaim, words: frozenset[str], question: str | None) -> bool:
    """The claim says missing what the evidence holds (`absence.contradicted`) and, the
    question known, names something it asks about: a claim on a side detail ("the docs don't
    say how the secret is rotated" for "how is the webhook verified?") is a note; one mostly
    of the question's words is refused when the evidence covers the question."""
    asked = {f for t in content_terms(question or "") for f in _forms(t)}
    if question is None or not asked:  # no question told, or none with a word to compare
        return contradicted(claim, words)
    named = [t for t in claim.terms if _forms(t) & asked]
    if not named:
        return False
    return contradicted(claim, words) or (
        len(named) * 2 > len(claim.terms) and _covers(question, words))


def _covers(question: str, words: frozenset[str]) -> bool:
    """The evidence holds most of the question's content words (in some form)."""
    terms = content_terms(question)
    held = [t for t in terms if _forms(t) & words]
    return bool(terms) and len(held) * 2 > len(terms)


def _forms(word: str) -> set[str]:
    return {*stems(word, "inflection"), *stems(word, "suffix")}


class Reading(NamedTuple):
    """What the verdict read in an answer: its claims and the parts of the judgement (the
    learned head's structural features, `helix.synthesis.absence_head`)."""

    refused: bool
    notes: tuple[str, ...]
    claims: tuple[AbsenceClaim, ...]
    answered: bool  # answers from the evidence outside its claims' clauses
    note: bool  # the first claim is a note before a cited contrast
    replies: bool  # a yes or no opening the reply to a yes-or-no question
    targets: bool  # some claim is blanket or names what was asked while the evidence holds it
    blanket: bool


def absence_reading(text: str, refs: Sequence[CitationRef],
                    evidence: Sequence[EvidenceItem] | None,
                    meaning: AbsenceMeaning | None = None,
                    question: str | None = None,
                    words: frozenset[str] | None = None) -> Reading:
    """The verdict (`absence_verdict`) with what it read on the way."""
    if words is None and evidence is not None:
        words = evidence_words(part for e in evidence
                               for part in (e.text, e.path, e.symbol or "", e.heading or ""))
    claims = _claims(text, words, meaning, question)
    if not claims:
        return Reading(False, (), (), True, False, False, False, False)
    note = _limit_note(text, claims[0], refs, words, meaning)
    answered, replies = _answered(text, claims, words, refs), _replies(text, question)
    kept = [note or claims[0], *claims[1:]]
    targets = any(claim.blanket or (words is not None and _targets(claim, words, question))
                  for claim in kept)
    blanket = any(claim.blanket for claim in kept)
    parts = (tuple(kept), answered, note is not None, replies, targets, blanket)
    if (note is None and not answered and not replies) or targets:
        return Reading(True, (), *parts)
    return Reading(False, notes_of(text, kept, refs), *parts)


def absence_verdict(text: str, refs: Sequence[CitationRef],
                    evidence: Sequence[EvidenceItem] | None,
                    meaning: AbsenceMeaning | None = None,
                    question: str | None = None) -> tuple[bool, tuple[str, ...]]:
    """(whether an absence claim in `text` breaks the contract (see the module doc), the
    claims kept as notes on the answer's limits when none does)."""
    reading = absence_reading(text, refs, evidence, meaning, question)
    return reading.refused, reading.notes


def notes_of(text: str, claims: Sequence[AbsenceClaim],
           refs: Sequence[CitationRef]) -> tuple[str, ...]:
    """Each claim's clause as written, citations of what was not sent removed, bounded."""
    notes: list[str] = []
    for claim in claims[:MAX_LIMITS]:
        head, tail = _clause(text, claim.start, claim.end)
        kept = extract_citations(text[head:tail], refs)[0]
        note = " ".join(kept.split()).strip(" .;,—–-")
        if note and note not in notes:
            notes.append(note[:MAX_LIMIT_CHARS])
    return tuple(notes)
