"""The tool-result contract, as pure checks on the model's answer.

1. Empty or abstaining output -> `abstain`.
2. Evidence was sent and the answer claims the repository (or the evidence) lacks something
   -> `contract_no_evidence_claim`, whatever the answer cites, when the claim
   - stands alone: nothing outside the claims' clauses answers from the evidence (cites it
     in a clause that says something, names an identifier or number the excerpts hold, or
     three of their words; a clause that tells where something was seen, "I can see X in
     a.py", answers nothing; a yes or no opening the reply to a yes-or-no question answers):
     "SESSION_TTL is 12 hours. The evidence doesn't show ..." is an answer with a note, or
   - is a blanket one ("None of this is in the repository... See [E1]", "Can't say."), or
   - names what was asked while the evidence holds it: most of what it says is missing is in
     the sent excerpts (`helix.synthesis.absence`) and, the question known, it shares a word
     with the question; or it is mostly the question's words and the excerpts hold most of
     those. A claim's words are those of its own clause ("The docs don't say how the secret
     is rotated, but the check is HMAC-SHA256": secret, rotated), and a claim about a side
     detail ("how is the webhook verified?") is a note.
   "X is decided in [E1]. The evidence does not cover Y." is an answer followed by an honest
   note on its limits, which the prompt asks for: the result carries the notes (`limits`),
   which make the answer's gate `limited`. Claims are found by the phrase rules of
   `helix.synthesis.absence` and, given an `AbsenceMeaning` (the sentence encoder against
   exemplars, `helix.synthesis.absence_meaning`), in any other wording.
3. Citations (`[E3]`, `path:10-20`, `path:12`) must name evidence that was sent: an id the prompt
   defined, or a path + line range inside a sent span. Others are removed from the text and
   recorded: a path that was not sent, an absolute path (`/etc/passwd:1-5`), one that climbs out
   (`../x.py:3`), a range outside the sent span. If no valid citation is left while evidence
   exists -> `contract_no_valid_citation`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from helix.core.english import NEGATION_WORDS, SEERS, stems, word_alternation
from helix.core.envelope import Citation, EvidenceItem
from helix.core.lookalike import canonical, without_format
from helix.core.schemas import Frozen
from helix.synthesis.absence import (
    _CLAIM_RE,
    NO_EVIDENCE_PATTERNS,
    AbsenceClaim,
    _sentence,
    absence_claims,
    answers_from,
    content_terms,
    contradicted,
    evidence_words,
)
from helix.synthesis.absence_meaning import AbsenceMeaning, load_exemplars
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

# [E3], [E3, E5], [E3; E5], [e3]
_REF_GROUP_RE = re.compile(r"\[\s*E\d+(?:\s*[,;\-–]\s*E\d+)*\s*\]", re.I)
_REF_RANGE_RE = re.compile(r"E(\d+)(?:\s*[\-–]\s*E(\d+))?", re.I)
MAX_REF_RANGE = 50  # [E1-E9999] is not a citation of 9999 items
MAX_LIMITS = 5  # notes on an answer's limits kept in its result
MAX_LIMIT_CHARS = 300  # characters of one note kept
# path:10-20, path:12, path:L10-L20, optionally in backticks; not part of a URL. A leading
# `/`, `~/`, `./` or `../` is part of the path (so an absolute or climbing path is a citation of
# something that was not sent, and is removed).
_PATH_CITE_RE = re.compile(
    r"(?<![\w/.@:~-])`?(?P<path>(?:~?/|\.\.?/)*[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*)`?"
    r":L?(?P<start>\d+)(?:\s*[-–]\s*L?(?P<end>\d+))?(?![\d\w])"
)
_FILE_EXT_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_FILE_WORD = re.compile(r"`?[\w.-]*/[\w./-]*`?|`?[\w-]+\.[a-z0-9]{1,5}`?")  # a file's name


class ContractResult(Frozen):
    ok: bool
    reason: str | None  # None when ok
    answer: str  # the answer with invalid citations removed
    citations: tuple[Citation, ...]
    removed: tuple[str, ...]  # citation strings removed from the answer, in order
    # what an accepted answer notes the evidence does not show (its absence claims judged
    # notes on its limits), each clause as written, at most MAX_LIMITS
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


def _citation(ref: CitationRef, start: int | None = None, end: int | None = None) -> Citation:
    return Citation(ref=ref.ref, evidence_id=ref.evidence_id, path=ref.path,
                    start_line=ref.start_line if start is None else start,
                    end_line=ref.end_line if end is None else end)


def _resolve_path(path: str, refs: Sequence[CitationRef]) -> str | None:
    """The sent path this citation names: exact, else the unique sent path ending in it."""
    paths = sorted({r.path for r in refs})
    if path in paths:
        return path
    suffixed = [p for p in paths if p.endswith("/" + path)]
    return suffixed[0] if len(suffixed) == 1 else None


def _looks_like_path(path: str) -> bool:
    return "/" in path or bool(_FILE_EXT_RE.search(path))


def _path_citation(match: re.Match[str], refs: Sequence[CitationRef]) -> Citation | bool | None:
    """A Citation when valid; None when it names unsent evidence; False when not a citation."""
    raw_path = match.group("path")
    start = int(match.group("start"))
    end = int(match.group("end") or start)
    if raw_path.startswith(("/", "~", "../")) or "/../" in raw_path:
        return None  # outside the repository: never evidence that was sent
    path = _resolve_path(raw_path.removeprefix("./"), refs)
    if path is None:
        return None if _looks_like_path(raw_path) else False
    if end < start:
        return None
    for ref in refs:
        if ref.path == path and ref.start_line <= start and end <= ref.end_line:
            return _citation(ref, start, end)
    return None


def _ref_ids(group: str) -> list[str]:
    """`[E1, E3-E5]` -> E1, E3, E4, E5."""
    ids: list[str] = []
    for first, last in _REF_RANGE_RE.findall(group):
        lo, hi = int(first), int(last or first)
        if hi < lo or hi - lo > MAX_REF_RANGE:
            hi = lo
        ids += [f"E{n}" for n in range(lo, hi + 1)]
    return ids


_BRACKETISH = re.compile(r"[\[［【〔⟦⁅][^\]］】〕⟧⁆\n]{1,60}[\]］】〕⟧⁆]")
_PATHISH = re.compile(r"[^\s`'\"()\[\]<>]{1,300}[:：]\s?[LＬ]?[0-9０-９]+"
                      r"(?:\s?[-–—－]\s?[LＬ]?[0-9０-９]+)?")


def _canonical(fragment: str) -> str:
    """A citation as it reads (`helix.core.lookalike`), doubled slashes folded."""
    return re.sub(r"(?<!:)/{2,}", "/", canonical(fragment, entities=False))


def canonical_citations(text: str) -> str:
    """Citations written with look-alike characters in their canonical form, so that they are
    validated like any other: full-width or other brackets, letters from other scripts
    (Cyrillic `Е`), zero-width or other invisible characters, doubled slashes. Only what then
    reads as a citation changes; the rest of the answer is left as written."""
    text = without_format(text)

    def bracket(match: re.Match[str]) -> str:
        canonical = _canonical(match.group(0))
        canonical = "[" + canonical[1:-1] + "]"
        return canonical if _REF_GROUP_RE.fullmatch(canonical) else match.group(0)

    def path(match: re.Match[str]) -> str:
        raw = match.group(0)
        if raw.isascii() and "//" not in raw:
            return raw
        canonical = _canonical(raw)
        return canonical if _PATH_CITE_RE.fullmatch(canonical) else raw

    return _PATHISH.sub(path, _BRACKETISH.sub(bracket, text))


def extract_citations(text: str, refs: Sequence[CitationRef]
                      ) -> tuple[str, tuple[Citation, ...], tuple[str, ...]]:
    """(text without invalid citations, valid citations in order of appearance, removed).
    Look-alike citations are read as what they look like first (`canonical_citations`)."""
    text = canonical_citations(text)
    by_id = {r.ref.upper(): r for r in refs}
    found: list[tuple[int, Citation]] = []
    removed: list[str] = []

    def replace_group(match: re.Match[str]) -> str:
        ids = _ref_ids(match.group(0))
        good = [i for i in ids if i in by_id]
        removed.extend(f"[{i}]" for i in ids if i not in by_id)
        for position, ref_id in enumerate(good):
            found.append((match.start() * 1000 + position, _citation(by_id[ref_id])))
        return "".join(f"[{i}]" for i in good)

    text = _REF_GROUP_RE.sub(replace_group, text)

    def replace_path(match: re.Match[str]) -> str:
        result = _path_citation(match, refs)
        if result is False:
            return match.group(0)
        if result is None:
            removed.append(match.group(0).strip("`"))
            return ""
        assert isinstance(result, Citation)
        found.append((match.start() * 1000, result))
        return match.group(0)

    text = _PATH_CITE_RE.sub(replace_path, text)
    if removed:
        text = _tidy(text)
    unique: list[Citation] = []
    seen: set[tuple[str, int, int]] = set()
    for _, citation in sorted(found, key=lambda pair: pair[0]):
        key = (citation.ref, citation.start_line, citation.end_line)
        if key not in seen:
            seen.add(key)
            unique.append(citation)
    return text, tuple(unique), tuple(removed)


def _tidy(text: str) -> str:
    """Remove the empty brackets and doubled spaces left where citations were cut out."""
    text = re.sub(r"\(\s*(?:[,;]\s*)*\)|\[\s*\]", "", text)
    text = re.sub(r"[ \t]+([,.;:])", r"\1", text)
    for _ in range(2):  # "see a and [E9]." -> "see a."; "[E1], see [E9]." -> "[E1]."
        text = re.sub(r"(?:,|\s+(?:and|or|see|in|at))([.;:])", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


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


def _absence_verdict(text: str, refs: Sequence[CitationRef],
                     evidence: Sequence[EvidenceItem] | None,
                     meaning: AbsenceMeaning | None = None,
                     question: str | None = None) -> tuple[bool, tuple[str, ...]]:
    """(whether an absence claim in `text` breaks the contract (see the module doc), the
    claims kept as notes on the answer's limits when none does)."""
    words = evidence_words(
        part for e in evidence for part in (e.text, e.path, e.symbol or "", e.heading or "")
    ) if evidence is not None else None
    claims = _claims(text, words, meaning, question)
    if not claims:
        return False, ()
    note = _limit_note(text, claims[0], refs, words, meaning)
    if note is None and not _answered(text, claims, words, refs) \
            and not _replies(text, question):
        return True, ()
    claims = [note or claims[0], *claims[1:]]
    if any(claim.blanket or (words is not None and _targets(claim, words, question))
           for claim in claims):
        return True, ()
    return False, _notes(text, claims, refs)


def _notes(text: str, claims: Sequence[AbsenceClaim],
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


def check_answer(text: str, refs: Sequence[CitationRef],
                 evidence: Sequence[EvidenceItem] | None = None,
                 meaning: AbsenceMeaning | None = None,
                 question: str | None = None) -> ContractResult:
    """Apply the contract to one completion. `refs` are the ids the prompt defined; `evidence`,
    when given, is what an absence claim is checked against; `meaning`, when given, finds
    absence claims in wordings the phrase rules do not name; `question`, when given, tells a
    claim about what was asked from a note on a side detail."""
    evidence_exists = bool(refs)
    if is_abstention(text):
        return ContractResult(ok=False, reason=ABSTAIN, answer=text.strip(), citations=(),
                              removed=())
    refused, limits = _absence_verdict(text, refs, evidence, meaning, question) \
        if evidence_exists else (False, ())
    if refused:
        return ContractResult(ok=False, reason=NO_EVIDENCE_CLAIM, answer=text.strip(),
                              citations=(), removed=())
    answer, citations, removed = extract_citations(text.strip(), refs)
    if evidence_exists and not citations:
        return ContractResult(ok=False, reason=NO_VALID_CITATION, answer=answer, citations=(),
                              removed=removed)
    return ContractResult(ok=True, reason=None, answer=answer, citations=citations,
                          removed=removed, limits=limits)
