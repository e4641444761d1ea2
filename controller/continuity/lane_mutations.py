"""The sidecar changes a continuity lane asks for, and the one function that applies them.

Both lanes are pure: they return `LaneMutations` with their decision; the caller (the session
driver, or a test) builds the new state with `apply_lane_mutations`.
"""

from __future__ import annotations

from typing import Any

from controller.continuity.caps import ContinuityCaps
from controller.continuity.state import (
    ActionTraceEntry,
    ContinuityState,
    LoopGuardState,
    PendingClarifierType,
    ResolvedAction,
)
from helix.core.schemas import Frozen


class LaneMutations(Frozen):
    """Sidecar changes a lane asks for; `apply_lane_mutations` builds the new state."""

    last_resolved_action: ResolvedAction | None = None
    push_trace: ActionTraceEntry | None = None
    accept_choice_id: str | None = None
    pending_clarifier_type: PendingClarifierType | None = None
    selection_loop_guard: LoopGuardState | None = None
    clear_selection_loop_guard: bool = False
    last_assistant_explanation: str | None = None

    def changed_fields(self) -> tuple[str, ...]:
        names = []
        if self.last_resolved_action is not None:
            names.append("last_resolved_action")
        if self.push_trace is not None:
            names.append("recent_action_trace")
        if self.accept_choice_id is not None:
            names += ["last_accepted_choice_id", "recent_accepted_choice_ids"]
        if self.pending_clarifier_type is not None:
            names.append("pending_clarifier_type")
        if self.selection_loop_guard is not None or self.clear_selection_loop_guard:
            names.append("selection_loop_guard")
        if self.last_assistant_explanation is not None:
            names.append("last_assistant_explanation")
        return tuple(names)


def apply_lane_mutations(state: ContinuityState, m: LaneMutations,
                         caps: ContinuityCaps) -> ContinuityState:
    update: dict[str, Any] = {}
    if m.last_resolved_action is not None:
        update["last_resolved_action"] = m.last_resolved_action
    if m.push_trace is not None:
        trace = (m.push_trace, *state.recent_action_trace)
        update["recent_action_trace"] = trace[: caps.recent_action_trace_max_entries]
    if m.accept_choice_id is not None:
        rest = tuple(i for i in state.recent_accepted_choice_ids if i != m.accept_choice_id)
        update["last_accepted_choice_id"] = m.accept_choice_id
        update["recent_accepted_choice_ids"] = ((m.accept_choice_id, *rest)
                                                [: caps.recent_choice_window])
    if m.pending_clarifier_type is not None:
        update["pending_clarifier_type"] = m.pending_clarifier_type
    if m.clear_selection_loop_guard:
        update["selection_loop_guard"] = None
    if m.selection_loop_guard is not None:
        update["selection_loop_guard"] = m.selection_loop_guard
    if m.last_assistant_explanation is not None:
        update["last_assistant_explanation"] = m.last_assistant_explanation
    return state.model_copy(update=update)
