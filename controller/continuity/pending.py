"""Typed pending state (focus-context-pending-state.md, Step 3).

A pending state records what the assistant is waiting for: its `expected_type`, when it was
created, when it expires (a turn count and a wall-clock deadline: the continuity TTL of the one
constants table, `caps.py`) and which turn it is anchored to. It influences routing only when
all hold:
    same thread (session), not expired, and the message matches `expected_type` strictly.
Otherwise it is dropped, so it can never hijack a turn that is about something else.

Expected types:
    selection:<label1>|<label2>|...   one of numbered options: "the first", "option 2", "2",
                                      "#2", "the second one", "the last", or an option's label
    boolean                           yes / no
    path_scope                        a path scope such as "tests/" or "in indexers/"
    slot:<slot1>|<slot2>              the missing slots of the semantic lane's packed clarifier:
                                      never matched strictly (the next turn is routed afresh)
Pure: the caller passes the current turn id and time.
"""

from __future__ import annotations

import re
from typing import Literal

from controller.continuity.caps import ContinuityCaps
from controller.continuity.state import (
    ContinuityState,
    PendingClarifierType,
    PendingKind,
    PendingState,
)
from controller.continuity.vocabulary_data import VOCABULARY, compiled, filler, positions_said
from helix.core.config import ContinuitySettings
from helix.core.english import (
    ORDINAL_SUFFIX,
    from_end,
    ordinal_alternation,
    ordinal_value,
    word_alternation,
)
from helix.core.schemas import Frozen

SELECTION_PREFIX = "selection:"
SLOT_PREFIX = "slot:"
LABEL_SEPARATOR = "|"

_FILLER = filler("choice")
_CHOICE_VERB = compiled("CHOICE_VERB")
_LEADS = word_alternation(tuple(VOCABULARY["lists"]["choice_leads"]))
_TAILS = word_alternation(tuple(VOCABULARY["lists"]["choice_tails"]))
_ORDINAL = re.compile(
    rf"^(?:the\s+)?(?:(?:{_LEADS})\s*)?"
    rf"(?P<n>\d+(?={ORDINAL_SUFFIX}|\b)|{ordinal_alternation(numbers=True)}){ORDINAL_SUFFIX}?"
    rf"(?:\s+(?:{_TAILS}))?$")
_YES = compiled("REPLY_YES")
_NO = compiled("REPLY_NO")
_SCOPE = compiled("REPLY_SCOPE")

# held: not an answer, but kept for the lane the turn goes to (a selection clarifier keeps the
# semantic lane out: that lane hands the turn to the selection ladder, which owns the pending)
MatchStatus = Literal["applied", "mismatch", "expired", "other_thread", "none", "held"]


def normalize(text: str) -> str:
    """Lower case, punctuation other than path characters dropped, spaces collapsed."""
    text = text.lower().strip()
    text = re.sub(r"[^\w\s./#'-]", " ", text)
    text = re.sub(r"[.]+(\s|$)", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def strip_filler(text: str) -> str:
    return re.sub(r"\s+", " ", _FILLER.sub(" ", text)).strip(" ,")


def selection_expected_type(labels: tuple[str, ...]) -> str:
    cleaned = [label.replace(LABEL_SEPARATOR, "/") for label in labels]
    return SELECTION_PREFIX + LABEL_SEPARATOR.join(cleaned)


def selection_labels(expected_type: str) -> tuple[str, ...]:
    if not expected_type.startswith(SELECTION_PREFIX):
        return ()
    return tuple(expected_type[len(SELECTION_PREFIX):].split(LABEL_SEPARATOR))


def parse_ordinal(text: str, count: int) -> int | None:
    """1-based index when the whole (normalized, filler-free) text is an ordinal in 1..count
    (a position said without one read as one: "the top one", "the one before last")."""
    body = _CHOICE_VERB.sub("", strip_filler(normalize(positions_said(text))))
    match = _ORDINAL.match(body)
    if not match:
        return None
    value = ordinal_value(match.group("n"))  # the pattern takes ordinals only: never None
    n = None if value is None else from_end(value, count)
    return n if n is not None and 1 <= n <= count else None


def parse_choice(text: str, labels: tuple[str, ...]) -> int | None:
    """Strict choice among `labels`: an ordinal, or exactly one label equal to / named by the
    text ("the first", "option 2", "optics", "the optics one"). None when not a clean choice."""
    ordinal = parse_ordinal(text, len(labels))
    if ordinal is not None:
        return ordinal
    body = _CHOICE_VERB.sub("", strip_filler(normalize(text)))
    body = re.sub(r"^the\s+", "", re.sub(r"\s+(?:one|sense|meaning|option)$", "", body))
    if not body:
        return None
    exact = [i for i, label in enumerate(labels, start=1) if normalize(label) == body]
    if len(exact) == 1:
        return exact[0]
    words = [i for i, label in enumerate(labels, start=1)
             if re.search(rf"(?<![\w]){re.escape(body)}(?![\w])", normalize(label))]
    return words[0] if len(words) == 1 else None


_OK = compiled("REPLY_OK")


def parse_boolean(text: str) -> bool | None:
    if _OK.match(normalize(text).strip(" !")):  # "ok" answers a yes / no offer (not filler)
        return True
    body = strip_filler(normalize(text))
    if _YES.match(body):
        return True
    if _NO.match(body):
        return False
    return None


def parse_path_scope(text: str) -> str | None:
    match = _SCOPE.match(strip_filler(normalize(text)))
    if not match or "/" not in match.group("path"):
        return None
    path = match.group("path").strip("/")
    return f"{path}/" if path and path not in {".", ".."} else None


class PendingMatch(Frozen):
    status: MatchStatus
    choice: int | None = None  # selection: 1-based option index
    boolean: bool | None = None
    path_scope: str | None = None
    reason: str = ""


def make_pending(*, kind: PendingKind, expected_type: str, clarifier_type: PendingClarifierType,
                 anchor_turn_id: int, thread_key: str, now_ms: int,
                 option_set_id: str | None = None, caps: ContinuityCaps,
                 followup_clause: str | None = None, readings: tuple[str, ...] = (),
                 reading_text: str | None = None) -> PendingState:
    """A pending state that lives as long as any continuity referent: CONTINUITY_TTL_MAX_TURNS
    turns and CONTINUITY_TTL_MAX_MINUTES minutes (the one TTL, caps.py)."""
    return PendingState(
        kind=kind, expected_type=expected_type, clarifier_type=clarifier_type,
        created_at_ms=now_ms, expires_at_ms=now_ms + caps.continuity_ttl_max_ms,
        expires_after_turn=anchor_turn_id + caps.continuity_ttl_max_turns,
        anchor_turn_id=anchor_turn_id, thread_key=thread_key, option_set_id=option_set_id,
        followup_clause=followup_clause, readings=readings, reading_text=reading_text)


def is_expired(pending: PendingState, *, turn_id: int, now_ms: int) -> bool:
    if pending.expires_at_ms is not None and now_ms > pending.expires_at_ms:
        return True
    return pending.expires_after_turn is not None and turn_id > pending.expires_after_turn


def match_pending(pending: PendingState | None, text: str, *, thread_key: str, turn_id: int,
                  now_ms: int) -> PendingMatch:
    """Does `text` answer `pending`? `applied` only on a strict type match; every other status
    means the caller must drop the pending state (it never hijacks routing)."""
    if pending is None:
        return PendingMatch(status="none")
    if pending.thread_key != thread_key:
        return PendingMatch(status="other_thread", reason="pending state of another session")
    if is_expired(pending, turn_id=turn_id, now_ms=now_ms):
        return PendingMatch(status="expired", reason="pending state expired")
    expected = pending.expected_type
    if expected.startswith(SELECTION_PREFIX):
        choice = parse_choice(text, selection_labels(expected))
        if choice is not None:
            return PendingMatch(status="applied", choice=choice, reason=f"option {choice}")
    elif expected == "boolean":
        answer = parse_boolean(text)
        if answer is not None:
            return PendingMatch(status="applied", boolean=answer, reason=f"answered {answer}")
    elif expected == "path_scope":
        scope = parse_path_scope(text)
        if scope is not None:
            return PendingMatch(status="applied", path_scope=scope, reason=f"scope {scope}")
    return PendingMatch(status="mismatch",
                        reason=f"message does not match expected type {expected.split(':')[0]}")


def match_pending_turn(state: ContinuityState, text: str, reply_to: int | None,
                       settings: ContinuitySettings, turn_id: int, now_ms: int) -> PendingMatch:
    """`match_pending` for a session turn: never with `continuity.pending_state` off, never
    when the user replied to another turn than the one that asked."""
    assert state.pending is not None
    if not settings.pending_state:
        return PendingMatch(status="mismatch", reason="pending_state setting off")
    if reply_to is not None and reply_to != state.pending.anchor_turn_id:
        # a reply anchors the turn to another turn: the pending question is not answered
        return PendingMatch(status="mismatch", reason=(
            f"reply to turn {reply_to}, not to the pending turn {state.pending.anchor_turn_id}"))
    return match_pending(state.pending, text, thread_key=state.session_id, turn_id=turn_id,
                         now_ms=now_ms)
