"""The deterministic answer: the evidence written as an answer, with no model.

It leads with the span that answers - a definition's signature and docstring, a doc section's
first sentences, for a location question the code site - introduced by one plain sentence that
says what kind of answer it is ("`BM25Index` is a class defined in search/bm25.py:15-39:", "The
retry policy is decided in `decide_retry`, ...:", "The closest match for X is path:lines:";
never a claim that something is absent while evidence is cited), then the rest, best first,
one per line, each with its `path:line` citation (`path:start-end` for a range). A changelog,
NEWS or license span never leads while another span answers (unless the question names that
file), and "Documented in" lists only doc sections whose prose or heading discusses the
subject, never a command line. The subject goes into a sentence only as asked and short;
otherwise the sentence says "this". A usage question lists every reference the index resolved
(`Envelope.references`), grouped by the function it stands in, its count stated once. Used for
`helix ask --dry-run`, as the no-model answer and as the fallback when the model's answer is
refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.answer_routes import ROUTES
from controller.answer_spans import Answer
from controller.answer_text import (
    cite,
    doc_sentences,
    is_doc,
    mentions_text,
    module_doc,
    quote,
    signature_and_doc,
)
from controller.route import RoutePlan
from helix.core.envelope import Clarify, EvidenceItem, ReferenceSite, SlotCoverage
from helix.core.policy import AnswerPolicy

MAX_GIST_CHARS = 160
MAX_SEARCHED_TERMS = 8  # the zero-evidence answer names at most this many searched words
MAX_TERM_CHARS = 40
# What a missing slot means, in the reader's words.
SLOT_WORDS = {"term": "the term itself", "definition_span": "a definition of it",
              "target": "the thing asked about", "location": "code where it is",
              "topic": "the topic itself", "mechanism": "code that does it",
              "x": "the first side", "y": "the second side", "link": "one place naming both",
              "quantity": "the quantity", "unit_or_value": "its value or unit",
              "symbol": "the symbol", "call_sites": "call sites",
              "document": "the named document"}


def _gist(item: EvidenceItem, term: str) -> str:
    """What one clarifier option is about, in a sentence of its span ("" when it says
    nothing about the term)."""
    if is_doc(item):
        said = doc_sentences(item, (term,), 1, MAX_GIST_CHARS, stating=True)
        text = said[0] if said is not None else ""
    elif item.symbol and item.node_id.startswith("def:"):
        signature, doc = signature_and_doc(item)
        text = doc or signature
    else:
        text = module_doc(item)
    return quote(text, limit=MAX_GIST_CHARS) if mentions_text(text, (term,)) else ""


def _clarifier(clarify: Clarify) -> str:
    lines = [clarify.question]
    for number, option in enumerate(clarify.options, start=1):
        where = ", ".join(cite(e) for e in option.evidence[:2])
        term = option.label.split(":", 1)[0]
        gist = next((g for g in (_gist(e, term) for e in option.evidence) if g), "")
        said = f": {gist}" if gist else ""
        lines.append(f"{number}. {option.label}{said} [{where}]")
    return "\n".join(lines)


def _bounded(values: Sequence[str]) -> str:
    shown = [v if len(v) <= MAX_TERM_CHARS else v[:MAX_TERM_CHARS - 3] + "..."
             for v in values[:MAX_SEARCHED_TERMS]]
    more = len(values) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def nothing_found(plan: RoutePlan, channels: Sequence[str] = ()) -> str:
    """No evidence at all: what was searched, bounded (terms, scope, files named, channels)."""
    terms = _bounded([f"“{t}”" for t in plan.intent.terms]) or "the question as asked"
    where = "the documentation and code"
    if plan.intent.scope:
        where += f" under {plan.intent.scope.replace(',', ', ')}"
    how = "" if channels else " (word search, symbol and file names)"
    files = _bounded(list(plan.intent.path_hints))
    lines = ["Nothing in the repository matched the question: no evidence was found.",
             f"Searched {where}{how} for {terms}"
             + (f", and the files named {files}." if files else ".")]
    if channels:
        lines.append(f"Channels: {_bounded(sorted(set(channels)))}.")
    return "\n".join(lines)


def build_answer(plan: RoutePlan, evidence: Sequence[EvidenceItem], coverage: SlotCoverage,
                 clarify: Clarify | None, channels: Sequence[str] = (),
                 policy: AnswerPolicy | None = None,
                 references: Sequence[ReferenceSite] = ()) -> str:
    """The answer text; `channels`: the channels the controller ran (named when nothing was
    found)."""
    if clarify is not None:
        return _clarifier(clarify)
    if not evidence:
        return nothing_found(plan, channels)
    answer = Answer(plan, evidence, coverage, policy, references)
    lines = ROUTES[plan.intent.route](answer)
    said_nothing = lines[0].startswith(("The closest match", "The evidence closest",
                                        "The sections of"))
    # slots coverage missed but the answer shows (an exact definition of a long term)
    unshown = [slot for slot in coverage.missing if slot not in answer.shown]
    if unshown and not said_nothing:
        missing = ", ".join(SLOT_WORDS.get(slot, slot) for slot in unshown)
        lines += ["", f"(Not shown by the evidence: {missing}.)"]
    return "\n".join(lines)
