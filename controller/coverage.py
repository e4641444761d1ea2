"""Slot coverage, measured against evidence: a slot is covered when an evidence item shows it.

    subject slots (term, target, topic, quantity, symbol, x, y): an item contains the phrase
    definition_span   an item defines the term (def/class, a heading, an assignment) or states
                      it ("X is ...", "X means ...", "X: ...")
    location          a code item contains the target (or defines it)
    mechanism         an item contains the topic and an item from another file, code, carries
                      at least half of the topic's words
    link              one item contains both sides of the relation
    unit_or_value     an item contains the quantity and the unit (or a `name = value` line)
    call_sites        an item calls/tests the symbol (graph reason) or has a `symbol(` call
                      that is not its own definition
    document          an item comes from the named document
    topic (summary)   an item from the named document contains the topic
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from controller.channels import path_matches
from controller.evidence import CODE_CHUNK_KINDS, Candidate, defines, definition_names, evidence_id
from controller.reasons import has, is_site
from controller.route import RoutePlan, with_bare_names
from controller.subject_words import subject_tokens
from controller.text import TOKEN_CACHE, is_identifier, phrase_tokens, token_set
from controller.units import text_states_unit
from helix.core.english import (
    DEFINING_VERBS,
    stems,
    word_alternation,
)
from helix.core.envelope import SlotCoverage

_DEFINITIONAL = rf"\s*(?:\)|`|\*\*)?\s*(?:{word_alternation(DEFINING_VERBS)}|:|=|—|–|-)\s"


@lru_cache(maxsize=TOKEN_CACHE)
def _bases(tokens: frozenset[str]) -> frozenset[str]:
    return frozenset(stems(t, "ending")[0] for t in tokens)


def shows_subject(tokens: frozenset[str], phrase: str) -> bool:
    """An item's tokens show a subject phrase: every token of it (`subject_tokens`), a word
    matched by its stem when the item inflects it otherwise ("ranking" by "ranks")."""
    need = subject_tokens(phrase)
    missing = [t for t in need if t not in tokens]
    if missing:
        bases = _bases(tokens)
        missing = [t for t in missing if stems(t, "ending")[0] not in bases]
    return bool(need) and not missing


def _tokens(c: Candidate) -> frozenset[str]:
    chunk = c.chunk
    return token_set(" ".join((chunk.text, " ".join(chunk.heading_path), chunk.symbol or "",
                               chunk.path.replace("/", " "))))


def _contains_any(c: Candidate, phrases: Sequence[str]) -> bool:
    toks = _tokens(c)
    return any(shows_subject(toks, p) for p in phrases)


def states(text: str, phrases: Sequence[str]) -> bool:
    """The text states a phrase definitionally: "X is ...", "X means ...", "X: ...", "X = ..."."""
    for phrase in phrases:
        words = [re.escape(w) for w in re.findall(r"[A-Za-z0-9_.]+", phrase)]
        # "X is", and "a X in <up to three words> is" ("A cavity in optics is ...")
        if words and re.search(r"(?i)\b" + r"[\s_-]+".join(words) + r"\b"
                               + r"(?:\s+in\s+\S+(?:\s+\S+){0,2}?)?" + _DEFINITIONAL, text):
            return True
    return False


def _from_document(c: Candidate, plan: RoutePlan) -> bool:
    path = c.chunk.path
    if plan.doc_words and path_matches(path, " ".join(plan.doc_words), fuzzy=True):
        return True
    if any(path_matches(path, hint, fuzzy=False) for hint in plan.intent.path_hints):
        return True
    title = " ".join(c.chunk.heading_path[:1])
    return bool(plan.doc_words) and all(w in token_set(title) for w in plan.doc_words)


def _has_call(c: Candidate, name: str) -> bool:
    bare = name.strip("`").rsplit(".", 1)[-1]
    if c.chunk.symbol and c.chunk.symbol.rsplit(".", 1)[-1] == bare:
        return False
    return bool(re.search(rf"(?<![\w]){re.escape(bare)}\s*\(", c.chunk.text)) and not re.search(
        rf"\b(?:def|class)\s+{re.escape(bare)}\b", c.chunk.text)


def _value_line(c: Candidate, phrases: Sequence[str]) -> bool:
    """A line with most of the quantity's words and a value (`=`, `:` or "default")."""
    for line in c.chunk.text.splitlines():
        toks = token_set(line)
        for phrase in phrases:
            need = phrase_tokens(phrase)
            if need and 2 * len(set(need) & toks) >= len(need) and re.search(
                    r"[=:]|default", line):
                return True
    return False


def slot_test(slot: str, plan: RoutePlan) -> Callable[[Candidate], bool] | None:
    """The predicate that says an evidence item covers `slot`; None when it cannot be known."""
    subjects = plan.subjects
    main = with_bare_names(subjects.get(plan.intent.slots[0], ()))
    names = definition_names(plan)
    # An identifier is defined by code: a doc sentence about it does not cover its definition.
    code_term = bool(main) and is_identifier(main[0].strip("`"))
    if slot == "definition_span":
        # A sentence states a definition in prose; in code `name: Type` is an annotation.
        return lambda c: bool(main) and (defines(c.chunk, names) is not None or (
            not code_term and c.chunk.kind not in CODE_CHUNK_KINDS
            and states(c.chunk.text, main)))
    if slot == "location":
        # Where something lives is code (or the file the question names): a doc heading about
        # it says what it is, not where.
        # Code a doc span about the target names (alignment: "defines X (named in doc)") counts.
        return lambda c: bool(main) and c.chunk.kind in CODE_CHUNK_KINDS and (
            _contains_any(c, main) or defines(c.chunk, names) is not None
            or has(c.reasons, "aligned"))
    if slot == "mechanism":
        return None  # needs two items: handled in `measure`
    if slot == "link":
        pair = subjects.get("link", ())
        return lambda c: len(pair) == 2 and all(_contains_any(c, (p,)) for p in pair)
    if slot == "unit_or_value":
        quantity = subjects.get("quantity", ())
        if plan.unit:
            unit = plan.unit
            return lambda c: _contains_any(c, quantity) and text_states_unit(c.chunk.text, unit,
                                                                          tuple(quantity))
        return lambda c: bool(quantity) and _value_line(c, quantity)
    if slot == "call_sites":
        symbols = subjects.get("symbol", ())
        return lambda c: bool(symbols) and (
            any(is_site(r) for r in c.reasons)
            or any(_has_call(c, s) for s in symbols))
    if slot == "document":
        return lambda c: _from_document(c, plan)
    if slot == "topic" and plan.intent.route == "doc_summary":
        topic = subjects.get("topic", ())
        return lambda c: _from_document(c, plan) and _contains_any(c, topic)
    phrases = with_bare_names(subjects.get(slot, ()))
    return lambda c: bool(phrases) and _contains_any(c, phrases)


def _mechanism(plan: RoutePlan, evidence: Sequence[Candidate]) -> list[str]:
    topic = plan.subjects.get("topic", ())
    if not topic:
        return []
    need = subject_tokens(topic[0])
    half = (len(need) + 1) // 2
    describing = [c for c in evidence if _contains_any(c, topic)]
    for first in describing:
        for other in evidence:
            if (other.chunk.path != first.chunk.path and other.chunk.kind in CODE_CHUNK_KINDS
                    and len(set(need) & _tokens(other)) >= half):
                return sorted({evidence_id(first.chunk), evidence_id(other.chunk)})
    return []


def measure(plan: RoutePlan, evidence: Sequence[Candidate]) -> SlotCoverage:
    by_slot: dict[str, tuple[str, ...]] = {}
    for slot in plan.intent.slots:
        if slot == "mechanism":
            ids = _mechanism(plan, evidence)
        else:
            test = slot_test(slot, plan)
            ids = sorted({evidence_id(c.chunk) for c in evidence if test is not None and test(c)})
        if ids:
            by_slot[slot] = tuple(ids)
    required = plan.intent.slots
    covered = tuple(s for s in required if s in by_slot)
    missing = tuple(s for s in required if s not in by_slot)
    ratio = round(len(covered) / len(required), 6) if required else 1.0
    return SlotCoverage(required=required, covered=covered, missing=missing, ratio=ratio,
                        by_slot=by_slot)
