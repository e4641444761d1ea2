"""The tool-result contract, as pure checks on the model's answer.

1. Empty or abstaining output -> `abstain`.
2. Evidence was sent and the answer claims the repository (or the evidence) lacks something
   -> `contract_no_evidence_claim`, whatever the answer cites, when the claim stands alone, is
   a blanket one, or names what was asked while the evidence holds it
   (`helix.synthesis.absence_verdict`, which says how), or says in a passive or short clause
   that the asked thing is not shown ("The number isn't given", "but not the exit code":
   `helix.synthesis.absence_asked`); a plain answer followed only by notes on side details
   that close asserting the answer stands ("The cap is 6 [E1]. The excerpts don't show who
   sets it, but the cap itself is plain") is never refused; the other claims are honest notes on
   the answer's limits ("X is decided in [E1]. The evidence does not cover Y."), which the
   prompt asks for: the result carries them (`limits`), which make the answer's gate `limited`.
3. Citations (`[E3]`, `path:10-20`, `path:12`) must name evidence that was sent: an id the prompt
   defined, or a path + line range inside a sent span. Others are removed from the text and
   recorded: a path that was not sent, an absolute path (`/etc/passwd:1-5`), one that climbs out
   (`../x.py:3`), a range outside the sent span (`helix.synthesis.citations`). If no valid
   citation is left while evidence exists -> `contract_no_valid_citation`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from helix.core.envelope import Citation, EvidenceItem
from helix.core.schemas import Frozen
from helix.synthesis.absence import (
    _CLAIM_RE,
    NO_EVIDENCE_PATTERNS,
    absence_claims,
    evidence_words,
)
from helix.synthesis.absence_asked import asked_missing, side_note
from helix.synthesis.absence_head import AbsenceHead, answer_features
from helix.synthesis.absence_language import foreign_claim, plain_foreign
from helix.synthesis.absence_meaning import AbsenceMeaning
from helix.synthesis.absence_report import reported_question
from helix.synthesis.absence_verdict import absence_verdict, notes_of
from helix.synthesis.citations import extract_citations
from helix.synthesis.prompt import CitationRef

__all__ = ["ABSTAIN", "NO_EVIDENCE_CLAIM", "NO_EVIDENCE_PATTERNS", "NO_VALID_CITATION",
           "ContractResult", "check_answer", "claims_no_evidence", "extract_citations",
           "is_abstention", "no_evidence_claim_at"]

NO_EVIDENCE_CLAIM = "contract_no_evidence_claim"
NO_VALID_CITATION = "contract_no_valid_citation"
ABSTAIN = "abstain"

ABSTAIN_PATTERNS: tuple[str, ...] = (
    r"^\W*(?:i (?:do not|don't) know|unknown|n/?a|none|no answer|i cannot answer|"
    r"i can't answer|i am unable to answer|i'm unable to answer|i'm not sure|i am not sure)\W*$",
    r"^\W*(?:sorry|i apologi[sz]e)\b.{0,80}\b(?:cannot|can't|unable)\b.{0,40}$",
)
_ABSTAIN_RE = tuple(re.compile(p, re.I | re.S) for p in ABSTAIN_PATTERNS)


class ContractResult(Frozen):
    ok: bool
    reason: str | None  # None when ok
    answer: str  # the answer with invalid citations removed
    citations: tuple[Citation, ...]
    removed: tuple[str, ...]  # citation strings removed from the answer, in order
    # what an accepted answer notes the evidence does not show (its absence claims judged
    # notes on its limits), each clause as written, at most
    # absence_verdict.MAX_LIMITS
    limits: tuple[str, ...] = ()


def claims_no_evidence(text: str) -> bool:
    return no_evidence_claim_at(text) is not None


def no_evidence_claim_at(text: str) -> int | None:
    """Where the first "no evidence" claim starts, or None."""
    starts = [m.start() for p in _CLAIM_RE if (m := p.search(text))]
    return min(starts) if starts else None


def is_abstention(text: str) -> bool:
    stripped = text.strip()
    return not stripped or any(p.search(stripped) for p in _ABSTAIN_RE)


def check_answer(text: str, refs: Sequence[CitationRef],
                 evidence: Sequence[EvidenceItem] | None = None,
                 meaning: AbsenceMeaning | None = None,
                 question: str | None = None,
                 head: AbsenceHead | None = None) -> ContractResult:
    """Apply the contract to one completion. `refs` are the ids the prompt defined; `evidence`,
    when given, is what an absence claim is checked against; `meaning`, when given, finds
    absence claims in wordings the phrase rules do not name; `question`, when given, tells a
    claim about what was asked from a note on a side detail; `head` (with `meaning`), the
    learned head, decides from what the rules and the encoder read
    (`helix.synthesis.absence_head`)."""
    evidence_exists = bool(refs)
    if is_abstention(text):
        return ContractResult(ok=False, reason=ABSTAIN, answer=text.strip(), citations=(),
                              removed=())
    refused: bool = False
    limits: tuple[str, ...] = ()
    if evidence_exists and meaning is not None and head is not None:
        reading, vector = answer_features(text, refs, evidence, meaning, question)
        refused = head.refuses(vector, reading)
        limits = reading.notes or notes_of(text, reading.claims, refs)
    elif evidence_exists:
        refused, limits = absence_verdict(text, refs, evidence, meaning, question)
    if evidence_exists and evidence is not None:
        words = evidence_words(part for e in evidence
                               for part in (e.text, e.path, e.symbol or "", e.heading or ""))
        if refused and (side_note(text, question, words) or plain_foreign(text)):
            refused, limits = False, limits or notes_of(text, absence_claims(text), refs)
        refused = refused or asked_missing(text, question, words) \
            or reported_question(text, words) or foreign_claim(text)
    if refused:
        return ContractResult(ok=False, reason=NO_EVIDENCE_CLAIM, answer=text.strip(),
                              citations=(), removed=())
    answer, citations, removed = extract_citations(text.strip(), refs)
    if evidence_exists and not citations:
        return ContractResult(ok=False, reason=NO_VALID_CITATION, answer=answer, citations=(),
                              removed=removed)
    return ContractResult(ok=True, reason=None, answer=answer, citations=citations,
                          removed=removed, limits=limits)
