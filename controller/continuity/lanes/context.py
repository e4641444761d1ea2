"""What every lane executor receives (`TurnContext`) and returns (`LaneOutcome`).

An executor is a lane step (`controller.continuity.requests`): the context is plain data (no
port, no repository path), and whatever it needs from outside (the controller, the graph, a
span, a model) it yields as a request for the session's driver. It never writes state itself:
it returns the updates it asks its transition for, by state slot; the runner applies them
through the transition registry, which refuses changes the class does not declare.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from controller.continuity.events import ContinuityEvent
from controller.continuity.requests import Purpose, Steps, returns
from controller.continuity.state import (
    ActionOutcome,
    ActionType,
    ContinuityState,
    Lane,
    ResolvedAction,
    TargetRef,
    TransitionClass,
)
from controller.continuity.transitions import StateSlot
from controller.continuity.turn import OpenedSpan, ShownList, TurnResult
from controller.continuity.turn_plan import TurnPlan
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope


@dataclass(frozen=True)
class TurnContext:
    plan: TurnPlan
    state: ContinuityState  # pending already dropped when it did not match
    turns: tuple[TurnResult, ...]
    turn_id: int
    now_ms: int
    repo_name: str  # the repository's directory name (what small talk calls it)
    config: HelixConfig
    session_id: str
    lane_models: Mapping[Purpose, str] = field(default_factory=dict)  # configured, by purpose

    def model_ready(self, purpose: Purpose) -> bool:
        return purpose in self.lane_models


@dataclass(frozen=True)
class LaneOutcome:
    lane: Lane
    transition: TransitionClass
    intent: str
    answer: str
    answer_mode: str
    updates: Mapping[StateSlot, Any]
    action: ResolvedAction | None = None
    shown: ShownList | None = None
    opened: OpenedSpan | None = None
    envelope: Envelope | None = None
    events: tuple[ContinuityEvent, ...] = ()
    reasons: tuple[str, ...] = ()


def action(ctx: TurnContext, type_: ActionType, target: TargetRef, *, scope: str,
           option_set_id: str | None, outcome: ActionOutcome, reason: str) -> ResolvedAction:
    return ResolvedAction(type=type_, target_ref=target, source_scope=scope,
                          option_set_id=option_set_id, timestamp=ctx.now_ms, outcome=outcome,
                          turn_id=ctx.turn_id, user_text=ctx.plan.text, reason=reason)


def boundary(ctx: TurnContext, why: str, *, lane: Lane = "boundary",
             envelope: Envelope | None = None, extra: Mapping[StateSlot, Any] | None = None,
             events: tuple[ContinuityEvent, ...] = ()) -> LaneOutcome:
    """T10: say truthfully what cannot be done; never an answer dressed as confirmed."""
    target = TargetRef(kind="none", id="", label=ctx.plan.text)
    done = action(ctx, "boundary", target, scope=ctx.state.active_scope or "session",
                  option_set_id=None, outcome="blocked", reason=why)
    return LaneOutcome(
        lane=lane, transition="T10", intent="boundary", answer=f"I can't do that here: {why}.",
        answer_mode="boundary", updates={"pending": None, **(extra or {})}, action=done,
        envelope=envelope, reasons=(why,),
        events=(*events, ContinuityEvent(name="boundary", reason=why)))


def with_changes(out: LaneOutcome, **changes: Any) -> LaneOutcome:
    return replace(out, **changes)


Executor = Callable[[TurnContext], Steps[LaneOutcome]]


def pure(run: Callable[[TurnContext], LaneOutcome]) -> Executor:
    """An executor that needs nothing from outside, as a lane step."""
    return lambda ctx: returns(run(ctx))
