"""The turn envelope: what one conversational turn did, as stored and as `--json` prints it."""

from __future__ import annotations

from collections.abc import Sequence

from controller.continuity.events import ContinuityEvent
from controller.continuity.focus import TurnSummary
from controller.continuity.state import (
    Lane,
    OptionItem,
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
    target: TargetRef | None = None  # in full: a reply to this turn can re-admit its list


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
                                         sublabel=i.sublabel, target_id=i.target.id,
                                         target=i.target)
                               for i in option_set.items))

    def as_option_set(self, origin_turn_id: int) -> OptionSet | None:
        """The list as it was shown (same id), or None when its targets were not stored."""
        if not self.items or any(i.target is None for i in self.items):
            return None
        return OptionSet(id=self.option_set_id, kind=self.kind, scope=self.scope,
                         origin_turn_id=origin_turn_id, items=tuple(
                             OptionItem(id=i.id, index=i.index, label=i.label,
                                        sublabel=i.sublabel, target=i.target)
                             for i in self.items if i.target is not None))


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
    transition_name: str = ""  # the registry's name ("pronoun_object_followup")
    intent: str
    answer: str
    answer_mode: str  # root answer_mode, "clarify", "continuity", "boundary", "small_talk"
    retrieval: bool  # did the controller run over the repository in this turn
    shown: ShownList | None = None
    opened: OpenedSpan | None = None
    state_mutations: tuple[str, ...] = ()
    events: tuple[ContinuityEvent, ...] = ()
    reasons: tuple[str, ...] = ()
    envelope: Envelope | None = None  # the controller's envelope when retrieval ran
    state_hash: str = ""
    created_at: float = 0.0
    # the continuity settings and limits the turn ran under (`HelixConfig.continuity_hash`)
    continuity_hash: str = ""


def summaries(turns: Sequence[TurnResult]) -> list[TurnSummary]:
    """What focus resolution needs of each stored turn."""
    out = []
    for turn in turns:
        target = turn.opened.target if turn.opened else None
        out.append(TurnSummary(
            turn_id=turn.turn_id, user_text=turn.text, lane=turn.lane,
            transition=turn.transition, answer_excerpt=turn.answer[:200], object_ref=target,
            option_set_id=turn.shown.option_set_id if turn.shown else None))
    return out
