"""Shared states for the router tests: a grounded answer with its evidence list on screen, and
the same with one listed item opened (the focus). Pure builders, no I/O."""

from __future__ import annotations

from collections.abc import Sequence

from controller.continuity.caps import CAPS
from controller.continuity.state import (
    AnswerContextState,
    ContinuityState,
    CoverageGateState,
    OptionItem,
    OptionSet,
    RootFrameState,
    SelectedObjectFrameState,
    TargetRef,
    initial_state,
)
from controller.continuity.transitions import apply_transition

# the gate of an answer that found what was asked: its result carries into follow-ups
GROUNDED = CoverageGateState(coverage_status="full", evidence_grade=1.0,
                             grounding_status="grounded", truth_mode="confirmed",
                             carryover_eligibility="full")


def answered(question: str, domain: str, targets: Sequence[TargetRef], lead: int,
             lead_path: str) -> ContinuityState:
    """After turn 1 (T1): `question` answered from `targets`, listed as e1..en (os-1), led by
    item `lead` of `lead_path`."""
    items = tuple(OptionItem(id=f"e{i}", index=i, label=t.label, target=t)
                  for i, t in enumerate(targets, start=1))
    frame = RootFrameState(question=question, domain_id=domain, root_route_id="explanation",
                           path_scope=None, revision="r", root_result_set_id="ev-1",
                           root_answer_object_ref=1)
    answer = AnswerContextState(turn_id=1, question=question, answer_excerpt="...",
                                answer_mode="dry_run", route="explanation",
                                stop_reason="coverage_ok", evidence_ids=(f"e{lead}",),
                                evidence_paths=(lead_path,), lane="root", transition="T1",
                                lead_evidence_id=f"e{lead}")
    return apply_transition(initial_state("s1"), "T1", caps=CAPS, turn_id=1, updates={
        "root_frame": frame, "answer_context": answer, "coverage_gate": GROUNDED,
        "option_sets": OptionSet(id="os-1", kind="evidence", scope="evidence",
                                 origin_turn_id=1, items=items)}).state


def focused(state: ContinuityState, target: TargetRef) -> ContinuityState:
    """`state` after turn 2 (T3) opened `target` of its list: the selected object."""
    obj = SelectedObjectFrameState(focus_object_ref=target, focus_object_kind=target.kind,
                                   source_result_set_id="ev-1",
                                   compatible_route_family="object",
                                   provenance_bundle_ref="os-1", temporal_ceiling="r")
    return apply_transition(state, "T3", caps=CAPS, turn_id=2,
                            updates={"selected_object": obj}).state
