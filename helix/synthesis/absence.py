"""Claims that the repository (or the evidence) lacks something, found in a model's answer and
checked against the evidence that was sent.

    absence_claims(text) -> AbsenceClaim(start, end, terms) for every claim, in order
    contradicted(claim, evidence_words) -> the evidence says otherwise
    answers_from(text, evidence_words) -> `text` says something the evidence holds
    reports_from(text, evidence_words, missing) -> a clause of `text` that negates nothing
                                                   names what the evidence holds

A claim's terms are the content words of its sentence outside the claim phrase (identifiers,
backticked names, words that are not function words or the vocabulary of claiming: "the
provided context does not mention a *retry policy*" -> retry, policy). A claim with no terms is a
blanket one ("None of this is in the repository", "I couldn't find it"): with evidence sent, it is
false on its face. A claim whose terms are mostly in the evidence ("there is no mention of
*retries*" while an excerpt is headed "Retries") is contradicted by it. A claim about terms the
evidence does not hold ("the evidence does not cover the *backoff cap*") is an honest note on
the answer's limits.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from helix.core.english import (
    ANSWERING_VERBS,
    CLAIM_WORDS,
    CODE_CONDITIONS,
    FINDING_WORDS,
    FIRST_PERSON,
    FROM_MATERIAL,
    HERE_WORDS,
    INABILITY_WORDS,
    LEFT_OPEN_WORDS,
    MATERIAL_OR_CODE_WORDS,
    MATERIAL_POINTERS,
    MATERIAL_WORDS,
    NEGATION_WORDS,
    NEITHER_ADVERBS,
    NEITHER_ANSWERED,
    NEITHER_BY,
    NEITHER_SUBJECTS,
    NEITHER_TELLING,
    NOT_HAVING,
    OPEN_WORD,
    SAYING_VERBS,
    SHOWN_AUXILIARIES,
    SHOWN_PARTICIPLES,
    THIS_SEARCH_WORDS,
    plural_forms,
    word_alternation,
)
from helix.synthesis.absence_citations import Citations

_SOURCES = (r"(?:provided|given|available|supplied|retrieved|tool|search|context|evidence|"
            r"results|documents?|code|codebase|code base|files?|snippets?|excerpts?|repository|"
            r"repo|project|TOOL_RESULTS)")
# a citation names the evidence it cites ("Nothing in [E1] indicates ...")
_CITED = r"(?:\[\s*E\d+(?:\s*[,;\-–]\s*E\d+)*\s*\]|[\w./-]+:\d+(?:-\d+)?)"
_PLACE = r"(?:the |this |your |any )?(?:repository|repo|codebase|code base|project|source code)"
NO_EVIDENCE_PATTERNS: tuple[str, ...] = (
    r"\bno (?:direct |relevant |specific |supporting |clear |concrete |actual )?evidence\b",
    r"\bno relevant (?:information|results?|details?|data|context|matches|code|documentation)\b",
    r"\bno (?:information|mention|references?|details?|data|results?) (?:about|of|on|regarding|"
    r"for)\b.{0,80}?\b(?:in|within|among|from) the " + _SOURCES,
    r"\b(?:i|we) (?:could not|couldn't|cannot|can't|can not|was unable to|am unable to|"
    r"were unable to|did not|didn't|do not|don't) (?:find|locate|identify|see|determine)\b",
    r"(?:^|[.!?]\s+)(?:could not|couldn't|unable to|can't|cannot) (?:find|locate|identify)\b",
    # a negated subject the material is said not to show ("no retention period mentioned in
    # these snippets", "No cap is listed in the excerpts")
    r"\bno(?: [\w-]+){1,6}? (?:(?:" + word_alternation(SHOWN_AUXILIARIES) + r") )?(?:"
    + word_alternation(SHOWN_PARTICIPLES) + r") (?:in|within|among|anywhere in) (?:(?:"
    + word_alternation(MATERIAL_POINTERS) + r") )?" + _SOURCES + r"\b",
    r"\b(?:not|isn't|aren't|wasn't|weren't) (?:found|present|mentioned|included|covered|"
    r"available|shown|described|addressed|"
    r"specified|provided|defined|implemented) (?:in|within|among|by|anywhere in) (?:the |any )?"
    + _SOURCES,
    r"\b(?:i|we) (?:do not|don't|did not|didn't) have (?:enough|sufficient|any|the) "
    r"(?:relevant )?(?:information|evidence|context|details|data)",
    r"\b(?:context|evidence|tool results?|TOOL_RESULTS|search results?|results|provided (?:text|"
    r"code|snippets?|excerpts?|files?|documents?|information|material)|excerpts?|snippets?|"
    r"repository|repo|codebase|code base|project) "
    r"(?:provided |given |shown )?(?:do|does|did)(?: not|n't) (?:seem to |appear to )?"
    r"(?:mention|contain|include|say|describe|cover|address|specify|define|show|provide|"
    r"explain|have|implement)",
    r"\b(?:not|isn't|is not) enough (?:information|evidence|context|details)\b",
    # unable to answer from what was sent: "Can't answer from this", "can't tell from what's here"
    r"\b(?:" + word_alternation(INABILITY_WORDS) + r") (?:" + word_alternation(ANSWERING_VERBS)
    + r")(?: \w+)? (?:from|with|given) (?:" + word_alternation(FROM_MATERIAL) + r")\b",
    r"\binsufficient (?:information|evidence|context|details)\b",
    # nothing here says it, no way to tell, not enough to say: an inability by what is missing
    # ("nothing else here gives the limits": what was found is set aside, the rest is silent)
    r"\bnothing (?:else )?(?:" + word_alternation(HERE_WORDS) + r") (?:that |which )?(?:"
    + word_alternation((*SAYING_VERBS, "gives", "give", "lists", "list")) + r")\b",
    # a sentence that is only "not in" the cited excerpts ("Not in [E1] or [E2].")
    r"(?:^|[.!?]\s+)not (?:in|within) " + _CITED + r"(?:\s*(?:,|or|and|nor)\s*" + _CITED
    + r")*\s*(?:[.!?]|$)",
    r"\bno way to (?:" + word_alternation((*ANSWERING_VERBS, "know")) + r")\b",
    r"\b(?:" + word_alternation(NOT_HAVING) + r") have enough(?: \w+){0,3} to (?:"
    + word_alternation(ANSWERING_VERBS) + r")\b",
    # a sentence that is only an inability to answer: "Can't say.", "Can't confirm — ..."
    r"(?:^|[.!?]\s+)(?:i )?(?:" + word_alternation(INABILITY_WORDS) + r") (?:"
    + word_alternation(ANSWERING_VERBS) + r")(?= *(?:[.!?;—–]|-\s|$))",
    r"\bnothing (?:in|within) the " + _SOURCES,
    # nothing in a cited excerpt says it ("Nothing in [E1] indicates ..."; never "nothing in
    # [E2] contradicts that")
    r"\bnothing (?:in|within) " + _CITED + r"(?:\s*(?:,|\w+)\s*" + _CITED + r")*\s+"
    r"(?:\w+\s+)?(?:" + word_alternation(SAYING_VERBS) + r")\b",
    r"\b(?:there is|there's|there are) no (?:mention|information|evidence)\b",
    r"\b(?:none|neither) of the (?:provided|given|retrieved|tool|search|evidence|results?|"
    r"excerpts?|snippets?|files?)\b.{0,40}\b(?:mention|contain|address|cover|describe|define)",
    # "neither" the subject of a verb of telling, the files or excerpts named before it ("I
    # checked a.py and b.md; neither states the default", "..., but neither one gives a limit")
    r"\bneither(?: (?:" + word_alternation(NEITHER_SUBJECTS) + r"))?(?: (?:"
    + word_alternation(NEITHER_ADVERBS) + r"))? (?:" + word_alternation(NEITHER_TELLING)
    + r")\b",
    # "neither" the subject of a passive of showing or answering by or in the material ("You
    # asked two things. Neither is answered by a.py or b.md", "neither is covered in [E1]")
    r"\bneither(?: (?:" + word_alternation(NEITHER_SUBJECTS) + r"))? (?:"
    + word_alternation(SHOWN_AUXILIARIES) + r")(?: (?:" + word_alternation(NEITHER_ADVERBS)
    + r"))? (?:" + word_alternation((*SHOWN_PARTICIPLES, *NEITHER_ANSWERED)) + r") (?:"
    + word_alternation(NEITHER_BY) + r") (?:(?:" + word_alternation(MATERIAL_POINTERS)
    + r") )?(?:" + _SOURCES + r"|" + _CITED + r"|[\w/-]+\.\w+)",
    r"\b(?:appears|seems) (?:to be )?(?:absent|missing) (?:from|in) the " + _SOURCES,
    # the repository itself said to lack something, whatever the answer cites
    r"\bnone of (?:this|that|it|these|those|them)\b",
    r"\b(?:is|are|was|were)(?: not|n't) (?:anywhere )?(?:in|present in|part of|included in|"
    r"defined in|implemented in|mentioned in|found in) " + _PLACE + r"\b",
    r"\b(?:does|do|did)(?: not|n't) (?:exist|appear) (?:anywhere )?(?:in|within) " + _PLACE
    + r"\b",
    r"\b" + _PLACE + r" (?:lacks|has no|contains no|includes no|defines no|provides no)\b",
    r"\bnowhere in " + _PLACE + r"\b",
    r"\bnowhere (?:in|within|among) (?:\w+ ){0,2}" + _SOURCES + r"\b",
    r"\b(?:there is|there's|there are) no \S+(?: \S+){0,4} (?:in|within) " + _PLACE + r"\b",
)


def _contracted(pattern: str) -> str:
    """A pattern's "n't" matching it written without an apostrophe or with a typographic one
    ("dont", "couldn’t"), as hurried or non-native answers write it."""
    return pattern.replace("n't", "n['’]?t")


_CLAIM_RE = tuple(re.compile(_contracted(p), re.I | re.S) for p in NO_EVIDENCE_PATTERNS)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")
_SENTENCE_END_AT = re.compile(r"(?<=[.!?])(?=\s)|(?=\n)")  # where _SENTENCE_END can start
# a path:line citation; a number written with a colon is no path ("08:00", "16:9": a time, a
# ratio, which an answer may report from the evidence)
_CITATION = Citations()  # (absence_citations.PATTERN, each run of a long line read once)
_WORD = re.compile(r"`[^`\n]+`|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
MIN_TERM = 3
CONTRADICTED_SHARE = 0.5  # more than this share of a claim's terms in the evidence
ANSWERING_TERMS = 3  # content words of the evidence that make a sentence an answer from it

# function words and the vocabulary of claiming: never a claim's object

STOP_WORDS = CLAIM_WORDS


class AbsenceClaim(NamedTuple):
    start: int
    end: int
    terms: tuple[str, ...]

    @property
    def blanket(self) -> bool:
        return not self.terms


@lru_cache(maxsize=8)
def _sentence_ends(text: str) -> tuple[list[int], list[int], list[int]]:
    """Where the sentence ends of `text` start and end, and where one can start."""
    ends = [m.span() for m in _SENTENCE_END.finditer(text)]
    return ([a for a, _ in ends], [b for _, b in ends],
            [m.start() for m in _SENTENCE_END_AT.finditer(text)])


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around text[start:end]: from the end of the last sentence end starting
    before `start` (cut at `start`) to the first one starting from `end` on, found by
    bisection (every claim read the text before it and searched the rest: quadratic)."""
    starts, ends, can_start = _sentence_ends(text)
    k, j = bisect_left(starts, start), bisect_left(can_start, end)
    return min(ends[k - 1], start) if k else 0, can_start[j] if j < len(can_start) else len(text)


# "this one", "that one": the question itself, as "this" or "it" is ("can't answer this one")
_THIS_ONE = re.compile(r"\b(?:this|that)\s+one\b", re.I)


def content_terms(text: str) -> tuple[str, ...]:
    """The words of `text` that can name something: identifiers, backticked names, content
    words of three letters or more (never "this one", which names the question); lowercased,
    in order, each once."""
    out: list[str] = []
    for raw in _WORD.findall(_THIS_ONE.sub(" ", _CITATION.sub(" ", text))):
        word = raw.strip("`").strip().lower()
        if len(word) < MIN_TERM or word in STOP_WORDS or word in out:
            continue
        out.append(word)
    return tuple(out)


# --- claims found by meaning: negation over finding, existence or the evidence ----------------
# "The tool results are empty", "The search returned nothing useful", "Nothing relevant turned
# up": a negation in the same clause as words about the material that was searched or sent, or
# as a first person's finding. A sentence about what code does ("the search returns no
# results for an empty query", "if the file does not exist it raises") is not one: the
# material words that can also name code (search, results, index, documentation ...) count only
# with a verb about this search (past tense: returned, found, came back) or "empty".
_TOKEN = re.compile(r"[A-Za-z_]+(?:'[a-z]+)?")
_EMPTY_STATE = re.compile(r"\b(?:is|are|was|were|came back|comes back|looks?|seems?)\s+"
                          r"(?:completely |entirely |all )?empty\b", re.I)
_CLAUSE = re.compile(r"[^.;:!?\n]+")


def _negated(word: str) -> bool:
    return word in NEGATION_WORDS or word.endswith("n't")


def _meaning_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the absence claim in each clause that makes one by meaning."""
    spans: list[tuple[int, int]] = []
    for clause in _CLAUSE.finditer(_CITATION.sub(lambda m: " " * len(m.group()), text)):
        tokens = [(m.group().lower(), m.start() + clause.start(), m.end() + clause.start())
                  for m in _TOKEN.finditer(clause.group())]
        words = {w for w, _, _ in tokens}
        left_open = OPEN_WORD in words and words & LEFT_OPEN_WORDS  # "left open by the material"
        if not (left_open or any(_negated(w) for w in words)) or words & CODE_CONDITIONS:
            continue
        this_search = words & THIS_SEARCH_WORDS or _EMPTY_STATE.search(clause.group())
        material = words & MATERIAL_WORDS or (words & MATERIAL_OR_CODE_WORDS and this_search)
        self_finding = words & FIRST_PERSON and words & FINDING_WORDS
        unnamed_finding = {"nothing", "none"} & words and words & FINDING_WORDS & THIS_SEARCH_WORDS
        if not (material or self_finding or unnamed_finding):
            continue
        cue_words = (MATERIAL_WORDS | MATERIAL_OR_CODE_WORDS | FINDING_WORDS | FIRST_PERSON
                     | THIS_SEARCH_WORDS)
        cues = [(start, end) for w, start, end in tokens
                if _negated(w) or w in cue_words or (left_open and w == OPEN_WORD)]
        spans.append((min(c[0] for c in cues), max(c[1] for c in cues)))
    return spans


def absence_claims(text: str, cues: bool = True) -> list[AbsenceClaim]:
    """Every absence claim in `text` (one per sentence), in order of appearance: the phrases
    above, and (`cues`) claims made in other wordings as far as their words tell
    (`_meaning_spans`); the contract leaves those to the sentence encoder when it has one
    (`helix.synthesis.absence_meaning`)."""
    spans = sorted({(m.start(), m.end()) for p in _CLAIM_RE for m in p.finditer(text)}
                   | (set(_meaning_spans(text)) if cues else set()))
    claims: list[AbsenceClaim] = []
    seen: set[tuple[int, int]] = set()
    for start, end in spans:
        head, tail = _sentence(text, start, end)
        if (head, tail) in seen:
            continue
        seen.add((head, tail))
        rest = text[head:start] + " " + text[end:tail]
        claims.append(AbsenceClaim(start, end, content_terms(rest)))
    return claims


_EVIDENCE_WORD = re.compile(r"[A-Za-z0-9_.]+")
_WORD_JOINS = re.compile(r"[_.]")


def evidence_words(texts: Iterable[str]) -> frozenset[str]:
    """The lowercased words of the evidence, identifiers also split at `_` and `.`."""
    words: set[str] = set()
    for text in texts:
        for token in _EVIDENCE_WORD.findall(text.lower()):
            token = token.strip(".")
            words.add(token)
            if "_" in token or "." in token:  # (else its one part is the token)
                words.update(part for part in _WORD_JOINS.split(token) if part)
    return frozenset(words)


def _held(term: str, words: frozenset[str]) -> bool:
    if plural_forms(term) & words:
        return True
    parts = [p for p in re.split(r"[_.]", term) if p]
    return len(parts) > 1 and all(p in words for p in parts)


_REPORTED = re.compile(r"`[^`\n]+`|[A-Za-z_$][\w.$]*|\d+(?:\.\d+)?")
_IDENTIFIER = re.compile(r"[_.$`]|\d|[a-z][A-Z]")
_FILE_NAME = re.compile(r"^[\w.-]*/[\w./-]*$|^[\w-]+\.[a-z0-9]{1,5}$")
_TRIVIAL_NUMBERS = frozenset({"0", "1"})
_CODE_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")  # a name in code
_REPORT_CLAUSE = re.compile(r"[^,;:—–()\n]+")


def _reported(raw: str, words: frozenset[str]) -> bool:
    """`raw` (a `_REPORTED` match) is an identifier or a number the evidence holds, not a
    file's name (that names the material, as a claim does); code in backticks names one when
    a name in it does ("`allow_overlap=True`", "`ledger/retry.py::decide_retry`")."""
    if raw.startswith("`") and not _held(raw.strip("`").strip().lower(), words):
        return any(_reported(name, words) for name in _CODE_NAME.findall(raw.strip("`")))
    word = raw.strip("`").strip().lower().strip("$")
    if _FILE_NAME.match(word):
        return False
    if word.replace(".", "", 1).isdigit():
        return word in words and word not in _TRIVIAL_NUMBERS
    return bool(_IDENTIFIER.search(raw)) and _held(word, words)


def reports_from(text: str, words: frozenset[str], missing: frozenset[str]) -> bool:
    """Some clause of `text` with no word of something missing (`missing`: negations and
    polarity words) names what the evidence holds (`_reported`): the span says what the
    evidence says ("`needs_full_rebuild` returns True when ...", "Per docs/gpu.md: cached
    blocks are released first, and if there's still no room, `PoolExhausted` is raised"),
    whatever else it says; in "The unit of tile_pressure is not stated" the name is what is
    said to be missing."""
    for clause in _REPORT_CLAUSE.findall(_CITATION.sub(" ", text)):
        said = re.findall(r"[a-z]+(?:['’]t)?", clause.lower())
        if any(w in missing or w.endswith(("'t", "’t")) for w in said):
            continue
        if any(_reported(raw, words) for raw in _REPORTED.findall(clause)):
            return True
    return False


def answers_from(text: str, words: frozenset[str], terms: bool = True) -> bool:
    """`text` says something the evidence holds: an identifier (not a file's name: that names
    the material, as a claim does) or a number of the evidence ("SESSION_TTL is 12 hours",
    "Rotation at 50 MiB"), or (`terms`) `ANSWERING_TERMS` of its content words ("Priority
    first, name second" where the excerpts sort by priority and name)."""
    if any(_reported(raw, words) for raw in _REPORTED.findall(_CITATION.sub(" ", text))):
        return True
    return terms and sum(_held(term, words) for term in content_terms(text)) >= ANSWERING_TERMS


def contradicted(claim: AbsenceClaim, words: frozenset[str]) -> bool:
    """A blanket claim, or one whose terms are mostly in the evidence."""
    if claim.blanket:
        return True
    held = sum(1 for term in claim.terms if _held(term, words))
    return held / len(claim.terms) > CONTRADICTED_SHARE
