"""Deterministic focus: what "that" / "it" refers to (focus-context-pending-state.md).

Runs before routing. Order:
    1. reply anchor wins: `--reply-to TURN` anchors focus to that turn (with one turn either side
       as context window);
    2. otherwise lane recency: the most recent turn of the session, with the last N turns;
    3. (pending state: pending.py, strict type match only);
    4. a pronoun in the message ("it", "that", "this one", "again", "do it") yields a hint that
       carries the anchor's id and a short snippet, so a router can never invent an anchor.
With `focus_resolution` off the reply anchor is ignored and no pronoun hint is built (lane
recency only): the documents' pre-feature behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from controller.continuity.state import (
    FocusSource,
    FocusState,
    Lane,
    TargetRef,
    TransitionClass,
)
from controller.continuity.vocabulary_data import compiled
from helix.core.config import ContinuitySettings
from helix.core.errors import NotFoundError
from helix.core.schemas import Frozen

SNIPPET_MAX_CHARS = 160
REPLY_WINDOW = 1  # turns before and after a reply anchor

_PRONOUN = compiled("FOCUS_PRONOUN")


class TurnSummary(Frozen):
    """What focus needs to know of one earlier turn (built by the session store)."""

    turn_id: int
    user_text: str
    lane: Lane
    transition: TransitionClass
    answer_excerpt: str = ""
    object_ref: TargetRef | None = None  # the object this turn acted on / focused
    option_set_id: str | None = None  # the numbered list this turn showed


class PronounHint(Frozen):
    pronoun: str
    focus_anchor_internal_id: int
    focus_anchor_channel_id: str  # "<session>#<turn>"
    focus_anchor_text_snippet: str


class FocusContext(Frozen):
    anchor_turn_id: int | None
    source: FocusSource
    window_turn_ids: tuple[int, ...]  # context turns, oldest first
    object_ref: TargetRef | None  # the anchored object (reply anchor's, else the selected one)
    option_set_id: str | None  # the anchor turn's list (reply anchor only)
    snippet: str
    pronoun_hint: PronounHint | None = None

    def as_state(self) -> FocusState:
        return FocusState(anchor_turn_id=self.anchor_turn_id, anchor_source=self.source,
                          snippet=self.snippet, object_ref=self.object_ref)


def find_pronoun(text: str) -> str | None:
    match = _PRONOUN.search(text)
    return match.group(1).lower() if match else None


def _snippet(turn: TurnSummary) -> str:
    text = f"{turn.user_text} -> {turn.answer_excerpt}".strip(" ->")
    return re.sub(r"\s+", " ", text)[:SNIPPET_MAX_CHARS]


def resolve_focus(turns: Sequence[TurnSummary], *, session_id: str, text: str,
                  reply_to: int | None, selected: TargetRef | None,
                  settings: ContinuitySettings) -> FocusContext:
    """The focus context of a new message. `turns`: the session's turns, any order.

    Raises NotFoundError when `reply_to` names no turn of the session.
    """
    ordered = sorted(turns, key=lambda t: t.turn_id)
    by_id = {turn.turn_id: turn for turn in ordered}
    anchor: TurnSummary | None = None
    source: FocusSource = "none"
    window: tuple[int, ...] = ()
    object_ref = selected
    option_set_id: str | None = None
    if reply_to is not None and settings.focus_resolution:
        if reply_to not in by_id:
            have = f"turns 1-{ordered[-1].turn_id}" if ordered else "no turns yet"
            raise NotFoundError(f"no turn {reply_to} in this session ({have})")
        anchor = by_id[reply_to]
        source = "reply_anchor"
        window = tuple(t.turn_id for t in ordered
                       if abs(t.turn_id - reply_to) <= REPLY_WINDOW)
        object_ref = anchor.object_ref or selected
        option_set_id = anchor.option_set_id
    elif ordered:
        anchor = ordered[-1]
        source = "lane_recency"
        window = tuple(t.turn_id for t in ordered[-settings.focus_window_turns:])
    hint = None
    pronoun = find_pronoun(text)
    if anchor is not None and pronoun and settings.focus_resolution:
        hint = PronounHint(pronoun=pronoun, focus_anchor_internal_id=anchor.turn_id,
                           focus_anchor_channel_id=f"{session_id}#{anchor.turn_id}",
                           focus_anchor_text_snippet=_snippet(anchor))
    return FocusContext(
        anchor_turn_id=anchor.turn_id if anchor else None, source=source,
        window_turn_ids=window, object_ref=object_ref, option_set_id=option_set_id,
        snippet=_snippet(anchor) if anchor else "", pronoun_hint=hint)
