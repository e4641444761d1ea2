"""Numbered lists (option sets) and frames built from what a turn produced.

An envelope's evidence becomes the `evidence` list, a clarifier's two options the `options`
list, a graph follow-up's callers / tests their own list. Ids are content hashes, so the same
list shown twice has the same option-set id; labels carry the path and symbol so a label can be
matched ("open the tokenizer one").
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.continuity.state import (
    OPTION_SET_MAX_ITEMS,
    AnswerContextState,
    CoverageGateState,
    Lane,
    OptionItem,
    OptionSet,
    OptionSetKind,
    RootFrameState,
    TargetKind,
    TargetRef,
    TransitionClass,
)
from helix.core.envelope import Envelope, EvidenceItem
from helix.core.hashing import short_id

EXCERPT_MAX_CHARS = 600


def option_set_id(turn_id: int, kind: OptionSetKind, item_ids: Sequence[str]) -> str:
    return "os-" + short_id("option-set", turn_id, kind, list(item_ids))


def evidence_set_id(evidence: Sequence[EvidenceItem]) -> str:
    return "ev-" + short_id("evidence-set", sorted(e.id for e in evidence))


def _target_of(item: EvidenceItem) -> TargetRef:
    kind: TargetKind = "span"
    if item.node_id.startswith("def:"):
        kind = "symbol"
    elif item.node_id.startswith("sec:"):
        kind = "section"
    elif item.node_id.startswith("tree:"):
        kind = "tree_node"
    label = item.symbol or item.heading or item.path
    return TargetRef(kind=kind, id=item.node_id or item.id, label=label, path=item.path,
                     start_line=item.start_line, end_line=item.end_line, symbol=item.symbol)


def make_option_set(turn_id: int, kind: OptionSetKind, scope: str,
                    entries: Sequence[tuple[str, str, str, TargetRef, str | None]]
                    ) -> OptionSet | None:
    """entries: (candidate id, label, sublabel, target, sense); first OPTION_SET_MAX_ITEMS."""
    seen: set[str] = set()
    unique = []
    for entry in entries:
        if entry[0] not in seen:
            seen.add(entry[0])
            unique.append(entry)
    unique = unique[:OPTION_SET_MAX_ITEMS]
    if not unique:
        return None
    items = tuple(OptionItem(id=cid, index=n, label=label, sublabel=sub, target=target,
                             sense=sense)
                  for n, (cid, label, sub, target, sense) in enumerate(unique, start=1))
    return OptionSet(id=option_set_id(turn_id, kind, [i.id for i in items]), kind=kind,
                     scope=scope, origin_turn_id=turn_id, items=items)


def evidence_options(envelope: Envelope, turn_id: int) -> OptionSet | None:
    """The evidence as a numbered list, without the definitions kept only as more of a
    leading file for the model to read (`in_file_more`): the list shows what was found."""
    entries = []
    for item in envelope.evidence:
        if item.context_only:
            continue
        target = _target_of(item)
        entries.append((item.id, target.label,
                        f"{item.path}:{item.start_line}-{item.end_line} ({item.kind})",
                        target, None))
    return make_option_set(turn_id, "evidence", "evidence", entries)


def clarify_options(envelope: Envelope, turn_id: int) -> OptionSet | None:
    if envelope.clarify is None:
        return None
    entries = []
    for option in envelope.clarify.options:
        first = option.evidence[0] if option.evidence else None
        target = TargetRef(kind="option", id=f"sense:{option.sense}", label=option.label,
                           path=first.path if first else None,
                           start_line=first.start_line if first else None,
                           end_line=first.end_line if first else None,
                           symbol=first.symbol if first else None)
        where = ", ".join(f"{e.path}:{e.start_line}" for e in option.evidence[:2])
        entries.append((f"sense:{option.sense}", option.label, where, target, option.sense))
    return make_option_set(turn_id, "options", "options", entries)


def domain_of(envelope: Envelope) -> str | None:
    """The subsystem: the primary tree, else the top directory of the best evidence."""
    if envelope.tree_walk.primary_tree_id:
        return envelope.tree_walk.primary_tree_id
    if not envelope.evidence:
        return None
    path = envelope.evidence[0].path
    return path.split("/", 1)[0] if "/" in path else "."


def root_frame_of(envelope: Envelope, *, question: str, scope: str | None, sense: str | None,
                  turn_id: int) -> RootFrameState:
    return RootFrameState(
        question=question, domain_id=domain_of(envelope), root_route_id=envelope.route,
        path_scope=scope, revision=envelope.repo_rev, index_rev=envelope.index_rev,
        root_result_set_id=evidence_set_id(envelope.evidence), root_answer_object_ref=turn_id,
        sense=sense)


# The controller's subject slots (controller/coverage.py): the phrase the question asks about.
SUBJECT_SLOTS = frozenset({"term", "target", "topic", "quantity", "symbol", "x", "y"})


def coverage_of(envelope: Envelope, threshold: float) -> CoverageGateState:
    """The coverage gate of a root answer. Grounded only when the evidence shows what the
    question asks about (a subject slot covered); an answer that found spans but not its
    subject ("Nothing in the repository names the tokenizer cache; the closest matches are")
    is unsupported: its listed spans may be opened (object_only), nothing else carries."""
    report = envelope.items.slot_coverage_report
    ratio = report.ratio
    reasons = [f"stop:{envelope.stop_reason}", *(f"missing:{m}" for m in report.missing)]
    if envelope.fallback_reason:
        reasons.append(f"fallback:{envelope.fallback_reason}")
    if not envelope.evidence:
        return CoverageGateState(coverage_status="blocked", evidence_grade=ratio,
                                 grounding_status="ungrounded", truth_mode="unsupported",
                                 carryover_eligibility="meta_only",
                                 reason_codes=(*reasons, "no_evidence"))
    if envelope.clarify is not None:
        return CoverageGateState(coverage_status="partial", evidence_grade=ratio,
                                 grounding_status="grounded",
                                 truth_mode="clarification_required",
                                 carryover_eligibility="full", reason_codes=tuple(reasons))
    subjects = [slot for slot in report.required if slot in SUBJECT_SLOTS]
    if ratio <= 0 or (subjects and not any(slot in report.covered for slot in subjects)):
        return CoverageGateState(coverage_status="partial", evidence_grade=ratio,
                                 grounding_status="ungrounded", truth_mode="unsupported",
                                 carryover_eligibility="object_only",
                                 reason_codes=(*reasons, "subject_not_found"))
    full = ratio >= threshold and not envelope.fallback_reason
    if envelope.answer_limits:  # the answer itself notes what the evidence does not show
        reasons.append("answer_limits")
    return CoverageGateState(coverage_status="full" if full else "partial", evidence_grade=ratio,
                             grounding_status="grounded",
                             truth_mode="confirmed" if full and not envelope.answer_limits
                             else "limited",
                             carryover_eligibility="full", reason_codes=tuple(reasons))


def lead_evidence_id(envelope: Envelope) -> str | None:
    """The evidence item the answer leads with: the first one whose `path:line` the answer
    text cites, else the first citation's, else the first evidence item."""
    found = [(envelope.answer.find(f"{e.path}:{e.start_line}"), n, e.id)
             for n, e in enumerate(envelope.evidence)]
    cited = sorted(f for f in found if f[0] >= 0)
    if cited:
        return cited[0][2]
    ids = {e.id for e in envelope.evidence}
    cited_ids = [c.evidence_id for c in envelope.citations if c.evidence_id in ids]
    if cited_ids:
        return cited_ids[0]
    return envelope.evidence[0].id if envelope.evidence else None


def answer_context_of(envelope: Envelope, *, turn_id: int, question: str, answer: str,
                      lane: Lane, transition: TransitionClass) -> AnswerContextState:
    paths = tuple(dict.fromkeys(e.path for e in envelope.evidence))
    return AnswerContextState(
        turn_id=turn_id, question=question, answer_excerpt=answer[:EXCERPT_MAX_CHARS],
        answer_mode=envelope.answer_mode, route=envelope.route,
        stop_reason=envelope.stop_reason, evidence_ids=tuple(e.id for e in envelope.evidence),
        evidence_paths=paths, lane=lane, transition=transition,
        lead_evidence_id=lead_evidence_id(envelope))
