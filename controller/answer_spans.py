"""The spans of one deterministic answer: which may lead it and which are listed (a changelog
or license the question does not name never leads; tests and those come last), and how each is
written - a listed claim on one line with its citation, a lead as (where, quote).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from controller.answer_text import (
    DEF_KINDS,
    DEF_MODIFIER,
    cite,
    discusses,
    doc_sentences,
    is_code,
    is_doc,
    mentions,
    quote,
    signature_and_doc,
    telling_line,
    weak_kind,
)
from controller.route import RoutePlan
from controller.text import token_set
from helix.core.envelope import EvidenceItem, ReferenceSite, SlotCoverage
from helix.core.policy import AnswerPolicy

MAX_CLAIM_CHARS = 200
INDENT = "    "


class Answer:
    """What one answer is built from: the plan, the evidence in rank order, the coverage."""

    def __init__(self, plan: RoutePlan, evidence: Sequence[EvidenceItem],
                 coverage: SlotCoverage, policy: AnswerPolicy | None = None,
                 references: Sequence[ReferenceSite] = ()) -> None:
        self.plan = plan
        self.references = list(references)  # a usage question: every resolved reference
        # section sizes (helix.core.policy.AnswerPolicy, in the settings)
        self.policy = policy or AnswerPolicy()
        self.evidence = list(evidence)
        self.coverage = coverage
        self.main: tuple[str, ...] = plan.asked.main or tuple(plan.intent.terms)
        self.subject = plan.asked.subject
        named = {h.lower().rsplit("/", 1)[-1].split(".", 1)[0] for h in plan.intent.path_hints}
        self.named = named | set(plan.doc_words) | {t.lower() for t in plan.intent.terms}
        self.words = plan.term_words
        self.terms = frozenset(plan.intent.terms)
        self.shown: set[str] = set()  # slots the answer shows whatever coverage measured

    # --- which spans ---------------------------------------------------------------------

    def covering(self, slot: str) -> list[EvidenceItem]:
        ids = set(self.coverage.by_slot.get(slot, ()))
        return [e for e in self.evidence if e.id in ids]

    def demoted(self, item: EvidenceItem) -> bool:
        """A changelog / license span the question does not name, or a definition kept only
        as more of a leading file (`in_file_more`, for a model to read): never leads, listed
        last."""
        if item.context_only:
            return True
        if weak_kind(item) is None:
            return False
        stem_ = item.path.rsplit("/", 1)[-1].lower().split(".", 1)[0]
        return stem_ not in self.named

    def ordered(self, items: Sequence[EvidenceItem]) -> list[EvidenceItem]:
        """Unique, in the order given, with demoted spans and tests after the rest."""
        unique = list(dict.fromkeys(items))
        return sorted(unique, key=lambda e: (self.demoted(e), e.kind == "test"))

    def answers(self, item: EvidenceItem) -> bool:
        """May lead: not demoted, not a test, and something to quote (code, or doc prose)."""
        if self.demoted(item) or item.kind == "test":
            return False
        return is_code(item) or doc_sentences(item, self.main) is not None

    def relevant(self, items: Sequence[EvidenceItem] | None = None) -> list[EvidenceItem]:
        """The items naming the subject, in order."""
        return [e for e in (self.evidence if items is None else items) if mentions(e, self.main)]

    def overlap(self, item: EvidenceItem) -> int:
        """How many of the question's words the item (text, heading, symbol, path) holds."""
        toks = token_set(f"{item.text} {item.heading or ''} {item.symbol or ''} {item.path}")
        return len(self.words & toks)

    def spelled(self, item: EvidenceItem) -> bool:
        """The question spells the item's name, case and all (`Graph`, `DiGraph` ...
        `predecessors`), or the controller found it as an exact symbol."""
        if "symbol_exact" in item.reason_codes:
            return True
        if not item.symbol:
            return False
        parts = item.symbol.split(".")  # as the question writes it: `tokenizer` is a word
        return parts[-1] in self.terms and (len(parts) == 1 or parts[0] in self.terms)

    def docs_about(self, phrases: Sequence[str], exclude: Sequence[EvidenceItem] = ()
                   ) -> list[EvidenceItem]:
        return [e for e in self.evidence if e not in exclude and e.kind != "test"
                and not self.demoted(e) and discusses(e, phrases)][:self.policy.max_docs]

    # --- how spans are written -----------------------------------------------------------

    def claim(self, item: EvidenceItem, phrases: Sequence[str] | None = None) -> str:
        """One line: `symbol`: docstring (or signature), a doc section's telling prose line,
        or a code line; with its citation."""
        phrases = self.main if phrases is None else phrases
        if item.symbol and item.node_id.startswith("def:"):
            signature, doc = signature_and_doc(item)
            return f"- `{item.symbol}`: {doc or signature} [{cite(item)}]"
        said = doc_sentences(item, phrases, 1, MAX_CLAIM_CHARS) if is_doc(item) else None
        if said is not None:
            text, at = said[0], cite(item, said[1], said[2])
        else:
            text, line = telling_line(item, phrases)
            at = cite(item, line)
        section = section_name(item)
        if is_doc(item) and section and quote(section, markdown=True) != text:
            text = f"{quote(section, markdown=True)}: {text}"
        return f"- {text} [{at}]"

    def block(self, title: str, items: Sequence[EvidenceItem],
              phrases: Sequence[str] | None = None, limit: int | None = None) -> list[str]:
        items = list(items)[:self.policy.max_list if limit is None else limit]
        return ["", title, *(self.claim(i, phrases) for i in items)] if items else []

    def lead(self, item: EvidenceItem, phrases: Sequence[str] | None = None,
             stating: bool = False, together: bool = False) -> tuple[str, str]:
        """(where it is, the quote): a definition's signature and docstring, a doc section's
        first sentences naming the subject, else the telling line."""
        phrases = self.main if phrases is None else phrases
        if item.symbol and item.node_id.startswith("def:"):
            signature, doc = signature_and_doc(item)
            return cite(item), f"{signature} - {doc}" if doc else signature
        if is_doc(item):
            said = doc_sentences(item, phrases, stating=stating, together=together)
            if said is not None:
                return cite(item, said[1], said[2]), said[0]
        text, line = telling_line(item, phrases)
        return cite(item, line), text

    def nothing(self, verb: str) -> list[str]:
        """Evidence none of which `verb`s the subject in the question's words: lead with the
        closest span and its telling lines, then the next ones. Never a claim that
        the repository lacks it: the evidence cited may hold it in other words (and an
        absence claim over cited evidence contradicts itself)."""
        closest = self.ordered(self.evidence)
        top = closest[0]
        at, said = self.lead(top)
        subject = f" for {self.subject}" if self.subject else ""
        return [f"The closest match{subject} is {at}:", indented(said),
                *self.block("Also relevant:", closest[1:], limit=self.policy.max_list - 1)]


def section_name(item: EvidenceItem) -> str:
    return item.heading.rsplit(" > ", 1)[-1].strip() if item.heading else ""


def doc_place(item: EvidenceItem, at: str) -> str:
    """A doc span named for a sentence: the section “Heading” (path:lines), or the path."""
    section = section_name(item)
    if item.node_id.startswith("tree:") and section:
        return f"the concept “{quote(section, markdown=True)}” ({at})"
    if section:
        return f"the section “{quote(section, markdown=True)}” ({at})"
    return at


def indented(text: str) -> str:
    return INDENT + text


def def_kind(item: EvidenceItem, signature: str) -> str:
    first = re.sub(rf"^{DEF_MODIFIER}\s+", "", signature).split(" ", 1)[0]
    kind = DEF_KINDS.get(first, "")
    if kind == "a function" and item.symbol and "." in item.symbol:
        return "a method"
    return kind
