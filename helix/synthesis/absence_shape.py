"""What an answer's shape says of its absence claims (issue 32, meaning11): features of the
learned absence head (`helix.synthesis.absence_head`) for the kinds of claim a writer's
wording hides from the rules and the encoder, each a class of wordings, never a phrase:

    leads       the first sentence answers from the evidence and claims nothing ("10, not
                8; ..."): what follows is a note on a side detail
    continues   the answer goes on from the evidence after its last claim, or a contrast
                right after the claim asserts ("..., but the mechanism is clear")
    first_at    where the first claim starts, as a share of the answer (0: it opens it)
    asked       the share of the question's words that the claims name ("whether 1.2 is
                accepted (the actual minimum) is not stated" for "what's the minimum ...?")
    suggests    sentences that send the user elsewhere (`suggestion_leads`: "try ...", "you
                might look at ...", "I'd check ...")
    questions   question marks: a question back, or the question restated
    structured  lines of a report that report nothing the evidence holds: list items,
                headings, bold labels ("- Not found: ...", "## Why", "**Short answer:**
                unknown"); an item giving a value or a name of the evidence ("- Files:
                `0o640`") is an answer set out as a list, no report of an absence (meaning17)
    hedged_no   a negation hedged ("doesn't appear to retry", "don't seem to")
    searched    sentences reporting a search (`search_leads`: "I went through both files.",
                "Checked: a.py, b.md"): where the answer looked, not what it found (meaning12)

Word lists are data (absence_exemplars.toml); deterministic, no encoder call.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Sequence
from functools import lru_cache

from helix.core.english import NEGATION_WORDS
from helix.synthesis.absence import AbsenceClaim, answers_from, content_terms

__all__ = ["SHAPE", "shape"]

SHAPE = ("leads", "continues", "first_at", "asked", "suggests", "questions", "structured",
         "hedged_no", "searched")
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|(?=\n)|$)")
_REPORT_LINE = re.compile(r"^\s*(?:[-*•]\s|\d+[.)]\s|#{1,6}\s|\*\*[^*\n]+\*\*)", re.M)
_HEDGE_REACH = 3  # a hedge this many words after a negation hedges it
_OPENING = re.compile(r"[a-z]+(?:['’][a-z]+)?")
_MARKS = "*_`>-#•0123456789.) \t"  # a list's or a heading's marks before a sentence's words


@lru_cache(maxsize=2)
def _leads(key: str = "suggestion_leads") -> tuple[tuple[str, ...], ...]:
    from helix.synthesis.absence_meaning import EXEMPLARS_FILE

    with EXEMPLARS_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    return tuple(tuple(lead.split()) for lead in data[key])


def _opens(sentence: str, leads: Sequence[tuple[str, ...]]) -> bool:
    """Whether the sentence's first words (a list's or a heading's marks and punctuation
    aside: "1. Searched: ...") are one of `leads`."""
    said = _OPENING.findall(sentence.lstrip(_MARKS).lower().replace("’", "'"))
    return any(tuple(said[:len(lead)]) == lead for lead in leads)


def _negative(word: str) -> bool:
    return word in NEGATION_WORDS or word.endswith(("'t", "’t"))


def shape(text: str, claims: Sequence[AbsenceClaim], words: frozenset[str],
          question: str | None, said: Sequence[str], hedges: frozenset[str]
          ) -> tuple[float, ...]:
    """The `SHAPE` features of `text` (`said`: its lowercase words, `hedges`: hedge words)."""
    sentences = [s for s in _SENTENCE.finditer(text) if s.group().strip()]
    first = sentences[0] if sentences else None
    leads = bool(first) and not any(c.start < first.end() for c in claims) \
        and answers_from(first.group(), words) if first else False
    last = max((c.end for c in claims), default=None)
    rest = text[last:] if last is not None else ""
    contrast = re.match(r"[\s,;]*(?:but|though|yet|however)\b([^.;!?]*)", rest, re.I)
    continues = last is not None and (answers_from(rest, words) or bool(
        contrast and not any(_negative(w) for w in contrast.group(1).lower().split())))
    first_at = min((c.start for c in claims), default=len(text)) / max(len(text), 1)
    asked = content_terms(question or "")
    named = {w for c in claims for w in content_terms(text[c.start:c.end])}
    leads_of = _leads()
    suggests = sum(1 for s in sentences if any(
        s.group().strip().lower().strip("*_`>- ").split()[:len(lead)] == list(lead)
        for lead in leads_of))
    hedged = sum(1 for at, w in enumerate(said) if _negative(w)
                 and any(h in hedges for h in said[at + 1:at + 1 + _HEDGE_REACH]))
    searched = sum(1 for s in sentences if _opens(s.group(), _leads("search_leads")))
    return (float(leads), float(continues), round(first_at, 6),
            sum(1 for a in asked if a in named) / len(asked) if asked else 0.0,
            float(suggests), float(text.count("?")),
            math.log1p(_reporting(text, words)), float(hedged), float(searched))


def _reporting(text: str, words: frozenset[str]) -> int:
    """The report lines of `text` (list items, headings, bold labels) that say nothing the
    evidence holds (`answers_from` without terms: an identifier or a number of it)."""
    count = 0
    for m in _REPORT_LINE.finditer(text):
        end = text.find("\n", m.end())
        count += not answers_from(text[m.start():end if end >= 0 else len(text)], words,
                                  terms=False)
    return count
