"""Referent binding for the semantic lane: which earlier action or entity a follow-up means.

semantic-continuity-answer-lane.md, "Referential Binding Priority": a reply anchor (the turn the
user replied to) first, then the explicit target of the current turn, the scoped active entity,
`lastResolvedAction`, the most recent `recentActionTrace[]` entry, each within the continuity TTL
and scope; no unique referent -> the slot stays missing (one packed clarifier later). The
"Continuation Eligibility Checklist" (a referent marker, TTL, no conflicting explicit target) is
checked here too. Pure.
"""

from __future__ import annotations

import re
from typing import Any

from controller.continuity import phrases as say
from controller.continuity.caps import ContinuityCaps, truncate_tokens
from controller.continuity.events import ContinuityEvent
from controller.continuity.semantic_answer import Slot, action_types_asked
from controller.continuity.semantic_evidence import (
    ReferentRef,
    ScopedEvidenceCandidate,
    entity_key,
    entity_keys_of,
    select_eligible_scoped_evidence,
    unique_scoped_evidence,
)
from controller.continuity.state import ActionTraceEntry, ContinuityState, ResolvedAction
from controller.continuity.vocabulary_data import compiled
from helix.core.schemas import Frozen

ENTITY_QUESTION = say.ENTITY_REFERENT  # "what's X mean?", "explain what X means" (vocabulary)
_WHY_TARGET = compiled("WHY_TARGET")
_DEICTIC = compiled("DEICTIC_TARGET")
# continuation eligibility, item 2 (plus "just" / "last", which name the last action itself)
_MARKER = compiled("REFERENT_MARKER")


def within_ttl(state: ContinuityState, ts: int, now_ms: int, turn_id: int | None,
               caps: ContinuityCaps) -> bool:
    if not 0 <= now_ms - ts <= caps.continuity_ttl_max_ms:
        return False
    return turn_id is None or state.turn_count + 1 - turn_id <= caps.continuity_ttl_max_turns


def _target_keys(e: ActionTraceEntry) -> set[str]:
    t = e.target_ref
    return set(entity_keys_of(" ".join(x for x in (t.label, t.path or "", t.symbol or "", t.id)
                                       if x))) | {entity_key(t.label)}


def strip_cue(text: str, phrase: str) -> str:
    return text.replace(phrase, " ").strip(" ,;:") if phrase else text


class Trace:
    """One turn's working set: events with the loop-cycle fields, slot outcomes."""

    def __init__(self, cycle: str, scope: str, option_set_id: str | None, budget: int,
                 caps: ContinuityCaps) -> None:
        self.cycle, self.scope, self.option_set_id = cycle, scope, option_set_id
        self.budget, self.caps = budget, caps
        self.step = 0
        self.fp_before: str | None = None
        self.fp_after: str | None = None
        self.events: list[ContinuityEvent] = []
        self.window = 0
        self.fields_used: tuple[str, ...] = ()
        self.missing_reasons: dict[str, str] = {}

    def emit(self, name: Any, reason: str = "", **data: Any) -> None:
        self.events.append(ContinuityEvent(
            name=name, lane="semantic", loop_cycle_id=self.cycle,
            fingerprint_before=self.fp_before, fingerprint_after=self.fp_after,
            retry_attempt_index=self.step, retry_budget_remaining=self.budget - self.step,
            active_option_set_id=self.option_set_id, active_scope=self.scope, reason=reason,
            data={"window_size": self.window, "structured_fields_used": list(self.fields_used),
                  "slot_missing_reasons": dict(self.missing_reasons), **data}))


class Slots(Frozen):
    missing: tuple[Slot, ...] = ()
    referents: tuple[ReferentRef, ...] = ()
    action: ActionTraceEntry | None = None
    evidence: ScopedEvidenceCandidate | None = None
    options: tuple[str, ...] = ()
    candidates: tuple[ScopedEvidenceCandidate, ...] = ()


def bind_action(text: str, state: ContinuityState, scope: str, now_ms: int, t: Trace,
                caps: ContinuityCaps, anchored: ActionTraceEntry | None = None) -> Slots:
    """Referent binding for action intents, strict priority order. `anchored`: the action of
    the turn the user replied to (`--reply-to N`): the reply anchor wins, whatever its age."""
    if anchored is not None:
        return _bind_anchored(text, anchored, t, scope)
    actions, last, kinds = _actions_asked(text, state)
    explicit = _WHY_TARGET.search(text)
    target = explicit.group(1).strip(" ?.!") if explicit else ""
    if target and not _DEICTIC.match(target):
        key = entity_key(target)  # rank 1: explicit target in the current turn wins
        hits = [a for a in actions if key in _target_keys(a)]
        if not hits:
            t.emit("continuity_blocked_conflict", "explicit target never acted on",
                   target=target)
            t.missing_reasons["lastResolvedAction"] = f"no action on '{target}'"
            return Slots(missing=("lastResolvedAction",),
                         options=tuple(a.target_ref.label for a in actions))
        return _one_action(hits, "explicit target", t, scope)
    if not _MARKER.search(text):
        t.emit("continuity_no_referent_marker", "no pronoun / continuation marker")
        t.missing_reasons["lastResolvedAction"] = "no referent marker"
        return Slots(missing=("lastResolvedAction",))
    return _bind_recent(actions, last, state, scope, now_ms, t, caps,
                        any_list=kinds is not None)


def _bind_anchored(text: str, anchored: ActionTraceEntry, t: Trace, scope: str) -> Slots:
    """The replied-to turn's action, unless the text asks about another kind of action."""
    kinds = action_types_asked(text)
    if kinds is None or anchored.type in kinds:
        return _one_action([anchored], "reply anchor", t, scope)
    t.emit("continuity_blocked_conflict", "the replied-to turn did another kind of action",
           anchored_type=anchored.type)
    t.missing_reasons["lastResolvedAction"] = (f"the replied-to turn did not "
                                               f"{' / '.join(sorted(kinds))}")
    return Slots(missing=("lastResolvedAction",), options=(anchored.target_ref.label,))


def _actions_asked(text: str, state: ContinuityState) -> tuple[
        list[ActionTraceEntry], ResolvedAction | None, frozenset[str] | None]:
    """The recent actions (lastResolvedAction first when the trace lacks it) and the last
    one, kept to the kinds the text names ("why did you open that?": the open actions only),
    and those kinds (None: any)."""
    actions: list[ActionTraceEntry] = list(state.recent_action_trace)
    last = state.last_resolved_action
    if last is not None and all((a.timestamp, a.target_ref.id) != (last.timestamp,
                                                                   last.target_ref.id)
                                for a in actions):
        actions.insert(0, last)
    kinds = action_types_asked(text)
    if kinds is not None:
        actions = [a for a in actions if a.type in kinds]
        last = last if last is not None and last.type in kinds else None
    return actions, last, kinds


def _bind_recent(actions: list[ActionTraceEntry], last: ResolvedAction | None,
                 state: ContinuityState, scope: str, now_ms: int, t: Trace,
                 caps: ContinuityCaps, *, any_list: bool) -> Slots:
    """Ranks 2-4 for a turn with a referent marker: the scoped active entity, then
    lastResolvedAction, then the most recent trace entry, each within the TTL."""
    in_scope = [a for a in actions if a.source_scope == scope or scope == "session"]
    focus = state.focus.object_ref  # rank 2: the scoped active entity
    if focus is not None:  # (a named verb binds its kind on the focused object in any list)
        hits = [a for a in (actions if any_list else in_scope)
                if a.target_ref.id == focus.id
                and within_ttl(state, a.timestamp, now_ms, _turn_of(a, last), caps)]
        if hits:
            return _one_action(hits[:1], "scoped active entity", t, scope)
    if last is not None:  # rank 3: lastResolvedAction within TTL, same scope
        if not within_ttl(state, last.timestamp, now_ms, last.turn_id, caps):
            t.emit("continuity_ttl_expired", "lastResolvedAction older than the TTL")
        elif last.source_scope == scope or scope == "session":
            return _one_action([last], "lastResolvedAction", t, scope)
    fresh = [a for a in in_scope if within_ttl(state, a.timestamp, now_ms,
                                               _turn_of(a, last), caps)]
    if fresh:  # rank 4: the most recent trace entry within TTL
        return _one_action(fresh[:1], "recentActionTrace", t, scope)
    if in_scope and not fresh:
        t.emit("continuity_ttl_expired", "every trace entry is older than the TTL")
    t.missing_reasons["lastResolvedAction"] = "no referent within TTL in scope"
    return Slots(missing=("lastResolvedAction",),
                 options=tuple(a.target_ref.label for a in actions))


def _turn_of(a: ActionTraceEntry, last: ActionTraceEntry | None) -> int | None:
    """Trace entries carry no turn id; the one that is lastResolvedAction borrows its."""
    if isinstance(a, ResolvedAction):
        return a.turn_id
    if (last is not None and isinstance(last, ResolvedAction)
            and (a.timestamp, a.target_ref.id) == (last.timestamp, last.target_ref.id)):
        return last.turn_id
    return None


def _one_action(hits: list[ActionTraceEntry], rank: str, t: Trace, scope: str) -> Slots:
    distinct = {(a.target_ref.id, a.type) for a in hits}
    refs = tuple(ReferentRef(kind="action_target", id=a.target_ref.id, scope=scope,
                             option_set_id=a.option_set_id) for a in hits)
    if len(distinct) != 1:
        t.missing_reasons["lastResolvedAction"] = f"{len(distinct)} referents at rank {rank}"
        return Slots(missing=("lastResolvedAction",), referents=refs,
                      options=tuple(a.target_ref.label for a in hits))
    t.emit("continuity_slot_filled", rank, slot="lastResolvedAction")
    return Slots(referents=refs[:1], action=hits[0])


def bind_entity(text: str, state: ContinuityState, scope: str, option_set_id: str | None,
                candidates: list[ScopedEvidenceCandidate], now_ms: int, t: Trace,
                caps: ContinuityCaps) -> Slots:
    match = ENTITY_QUESTION.search(text)
    raw = next((g for g in match.groups() if g), "") if match else ""
    raw = re.sub(r"^(?:the|a|an)\s+", "", raw.strip(" ?.!"), flags=re.I)
    refs: list[ReferentRef] = []
    if raw and not _DEICTIC.match(raw):
        refs.append(ReferentRef(kind="entity", id=entity_key(raw), scope=scope,
                                option_set_id=option_set_id))
    elif _MARKER.search(text):
        focus = state.focus.object_ref
        last = state.last_resolved_action
        if focus is not None:
            ref_id = focus.symbol or focus.path or focus.label
            refs.append(ReferentRef(kind="entity", id=entity_key(ref_id), scope=scope,
                                    option_set_id=option_set_id))
        elif last is not None and within_ttl(state, last.timestamp, now_ms, last.turn_id,
                                             caps):
            ref = last.target_ref
            refs.append(ReferentRef(kind="action_target", id=entity_key(
                ref.symbol or ref.path or ref.label), scope=scope,
                option_set_id=last.option_set_id))
    else:
        t.emit("continuity_no_referent_marker", "no entity and no referent marker")
    if not refs:
        t.missing_reasons["entityReferent"] = "no entity named or bound"
        t.missing_reasons["scopedEvidence"] = "no referent to look up"
        return Slots(missing=("entityReferent", "scopedEvidence"))
    t.emit("continuity_slot_filled", "entity referent", slot="entityReferent", id=refs[0].id)
    unique = unique_scoped_evidence(refs, scope, candidates, now_ms, caps)
    if unique is not None:
        t.emit("continuity_slot_filled", unique.source_type, slot="scopedEvidence")
        return Slots(referents=tuple(refs), evidence=unique)
    eligible, conflict = select_eligible_scoped_evidence(candidates, refs[0], now_ms, caps)
    if eligible or conflict:
        t.emit("continuity_non_unique_scoped_evidence",
               "source conflict" if conflict else f"{len(eligible)} candidates",
               candidates=[c.excerpt_id for c in eligible])
    t.missing_reasons["scopedEvidence"] = (f"{len(eligible)} scoped excerpts for "
                                           f"'{refs[0].id}'")
    options = tuple(f"{c.source_type}: {' '.join(truncate_tokens(c.text, 12).split())}"
                    for c in eligible)
    return Slots(missing=("scopedEvidence",), referents=tuple(refs), options=options,
                 candidates=tuple(eligible))


