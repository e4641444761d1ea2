"""The turn envelope: what one conversational turn did, as stored and as `--json` prints it."""

from __future__ import annotations

from controller.continuity.events import ContinuityEvent
from controller.continuity.state import (
    Lane,
    OptionSet,
    OptionSetKind,
    TargetRef,
    TransitionClass,
)
from helix.core.envelope import Envelope
from helix.core.schemas import Frozen

TURN_SCHEMA_VERSION = "helix-turn/1"


class ShownItem(Frozen):
    index: int
    id: str
    label: str
    sublabel: str = ""
    target_id: str = ""  # the object it opens (graph node id)


class ShownList(Frozen):
    """The numbered list the turn showed: later turns refer to it by number or label."""

    option_set_id: str
    kind: OptionSetKind
    scope: str
    items: tuple[ShownItem, ...]

    @classmethod
    def of(cls, option_set: OptionSet) -> ShownList:
        return cls(option_set_id=option_set.id, kind=option_set.kind, scope=option_set.scope,
                   items=tuple(ShownItem(index=i.index, id=i.id, label=i.label,
                                         sublabel=i.sublabel, target_id=i.target.id)
                               for i in option_set.items))


class OpenedSpan(Frozen):
    """A span the turn opened (selection lane): the repository text, read-only."""

    path: str
    start_line: int
    end_line: int
    text: str
    truncated: bool = False
    target: TargetRef


class TurnResult(Frozen):
    schema_version: str = TURN_SCHEMA_VERSION
    session: str  # the session's name
    session_id: str
    turn_id: int  # 1-based within the session
    text: str
    reply_to: int | None = None
    lane: Lane
    transition: TransitionClass
    intent: str
    answer: str
    answer_mode: str  # root answer_mode, "clarify", "continuity", "boundary"
    retrieval: bool  # did the controller run over the repository in this turn
    shown: ShownList | None = None
    opened: OpenedSpan | None = None
    state_mutations: tuple[str, ...] = ()
    events: tuple[ContinuityEvent, ...] = ()
    reasons: tuple[str, ...] = ()
    envelope: Envelope | None = None  # the controller's envelope when retrieval ran
    state_hash: str = ""
    created_at: float = 0.0
