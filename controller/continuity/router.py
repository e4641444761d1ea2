"""Route one turn: which lane handles it, under which transition class, aimed at what.

Pure: `route_turn(state, text, reply_to, settings, turns=..., now_ms=...) -> TurnPlan`.
Precedence (the documents' order, first match wins):
    1. hard interrupt ("stop", "cancel", "never mind", "start over")      interrupt  T6 / T1
    2. pending clarifier answer, strict type match ("the first")           clarify_resume T7
       (a pending state that does not match is dropped and routing goes on)
    3. explicit scope cues: a path scope re-asking the root question       root T2
       ("same question but only in tests/"); a source cue ("from the evidence") binds the
       selection pool to that list
    4. selection: a command on a bounded list ("open the second one")    selection T3
       or on the focused object ("open it")                                 selection T5
    5. graph follow-up on the focused object ("who calls it?")            graph T4
    6. semantic follow-up about what happened ("why did you open that?")  semantic T8 / T9
    7. meta question over the last answer ("is that the only place?")     meta T8
    8. recap of the conversation ("did we talk about the tokenizer?")     recap T9
    9. back to the root list ("back to the list")                          root T6
   10. otherwise a new root question                                       root T1
A follow-up whose required prior state is missing becomes a truthful boundary (T10).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from controller.continuity.focus import FocusContext, TurnSummary, resolve_focus
from controller.continuity.pending import (
    PendingMatch,
    match_pending,
    normalize,
    parse_ordinal,
    strip_filler,
)
from controller.continuity.state import (
    ContinuityState,
    Lane,
    OptionSet,
    OptionSetKind,
    TargetRef,
    TransitionClass,
)
from controller.continuity.transitions import REGISTRY, carryover_admitted, missing_prior_state
from helix.core.config import ContinuitySettings
from helix.core.schemas import Frozen

Intent = Literal[
    "root_question", "reset", "cancel", "back_to_root", "scope_rerun", "resume_clarified",
    "select_item", "select_focused", "graph_callers", "graph_tests", "explain_last_action",
    "reflective_why_followup", "summarize_recent_activity", "explain_entity_meaning",
    "meta_answer", "recap_topic", "boundary",
]

_RESET = re.compile(r"^(?:let's\s+)?(?:start over|start again|restart|reset|new topic|"
                    r"from scratch|clear(?: everything)?)$")
_CANCEL = re.compile(r"^(?:stop|cancel|never ?mind|nevermind|forget (?:it|that|about it)|"
                     r"abort|quit that|drop it|nvm)$")
_PATH_CUE = re.compile(
    r"\b(?:only\s+|just\s+)?(?:in|under|within|inside|limited to|restricted to)\s+"
    r"(?:the\s+)?(?P<path>[\w.-]+/(?:[\w.-]+/?)*|[\w-]+\.[a-z]{1,5})(?:\s+(?:folder|directory|dir))?")
_RERUN_FILLER = re.compile(
    r"\b(same|question|but|only|just|again|what|about|and|the|now|ask|re-?run|run|search|look|"
    r"it|that|this|please|pls|can|you|do|repeat|same thing|how|instead|folder|directory|dir|"
    r"there|then|also|in|under|within|inside)\b")
_SOURCE_CUE = re.compile(
    r"\bfrom (?:the )?(?P<src>evidence|list|results|answer|options|choices|callers|tests|tree)\b")
_SOURCE_KIND: dict[str, OptionSetKind] = {
    "evidence": "evidence", "list": "evidence", "results": "evidence", "answer": "evidence",
    "options": "options", "choices": "options", "callers": "callers", "tests": "tests",
    "tree": "tree",
}
_POLITE_LEAD = re.compile(r"^(?:(?:please|pls|ok|okay|now|then|and|so)\s+|(?:can|could|would|"
                          r"will) you\s+(?:please\s+)?)+")
_COMMAND = re.compile(r"^(?P<verb>open|show(?: me)?|go to|view|display|pick|choose|select|take|"
                      r"jump to|bring up|print)\b\s*(?P<rest>.*)$")
_FOCUS_WORDS = re.compile(r"^(?:it|that|this|this one|that one|the same(?: one)?|it again|that "
                          r"again|the (?:file|span|function|symbol|definition|section) again|"
                          r"again)$")
_MIXED = re.compile(r"\s+and\s+(?P<clause>(?:explain|tell me|say|describe)\b.*)$")
_CALLERS = re.compile(r"^(?:who|what|which \w+)\s+(?:calls|uses|invokes|references|imports)\s+"
                      r"(?P<obj>.+)$|^(?:where is|where's)\s+(?P<obj2>.+?)\s+(?:called|used|"
                      r"invoked|referenced)(?: from)?$|^(?:show (?:me )?)?(?:the )?(?:callers|"
                      r"usages|references) (?:of|to) (?P<obj3>.+)$")
_TESTS = re.compile(r"^(?:where|how) is\s+(?P<obj>.+?)\s+tested$|^(?:what|which) tests?\s+"
                    r"(?:covers?|exercises?|checks?|tests?)\s+(?P<obj2>.+)$|^is\s+(?P<obj3>.+?)\s+"
                    r"tested$|^(?:show (?:me )?)?(?:the )?tests (?:for|of) (?P<obj4>.+)$")
_WHY_ACTION = re.compile(r"^why (?:did|do|would) you (?:open|show|pick|choose|select|take|do|go "
                         r"to|focus on|list)\b|^why (?:that|this|it)(?: one)?$|^why$")
_WHAT_HAPPENED = re.compile(
    r"^(?:what happened(?: last| just now)?|what did (?:you|we) (?:just )?do(?: last)?|"
    r"what have (?:you|we) done(?: so far)?|(?:can you )?summari[sz]e what (?:we|you) "
    r"(?:just )?(?:did|have done|'ve done)|recap(?: what we did)?|what was the last (?:thing|"
    r"action|step))$")
_ENTITY_MEANING = re.compile(r"^(?:what does|what's|what is)\s+(?P<entity>.+?)\s+mean$|"
                             r"^explain what\s+(?P<entity2>.+?)\s+means$")
_META = re.compile(
    r"^(?:is (?:that|this|it) (?:the only (?:place|one|definition|spot|answer)|all|complete|"
    r"everything|correct|right|sure)|are there (?:any )?(?:others?|more|other (?:places|ones|"
    r"definitions|spots))(?: too)?|anything else|are you sure|how sure are you|how confident are "
    r"you|where did (?:that|this) come from|what(?:'s| is) the evidence|which (?:one )?is (?:more"
    r" )?important|how complete is (?:that|this|the answer)|is (?:that|this) (?:answer )?"
    r"(?:grounded|confirmed|reliable))$")
_RECAP = re.compile(
    r"^(?:did|have) we (?:talk|speak|chat|discuss|discussed|talked|spoken|look|looked|touch|"
    r"touched)(?:ed)?(?: about| at| on)?\s*(?P<topic>.*)$|^(?:do|did) you remember\s*(?:about\s+)?"
    r"(?P<topic2>.*)$|^what (?:did|have) we (?:talk(?:ed)? about|discuss(?:ed)?|cover(?:ed)?)"
    r"(?:\s+(?:about|on)\s+(?P<topic3>.+))?(?: so far)?$|^have we (?:covered|seen|discussed)\s+"
    r"(?P<topic4>.+)$")
_BACK = re.compile(r"^(?:go )?back(?: to (?:the )?(?:list|results|answer|evidence|question))?$|"
                   r"^show (?:me )?the (?:list|results|evidence) again$")
ORDINAL_SHAPE_MAX = 10**6  # any ordinal a person could type
_QUESTION_LEAD = re.compile(r"^(?:why|what|how|who|where|when|which|is|are|does|do|did|should|"
                            r"was|were)\b")


class TurnPlan(Frozen):
    lane: Lane
    transition: TransitionClass
    intent: Intent
    text: str
    question: str | None = None  # what the controller runs (T1 / T2 / T7)
    scope: str | None = None  # path scope ("tests/")
    sense: str | None = None  # T7: the chosen sense
    choice_index: int | None = None  # 1-based index in the option set (T3 / T7)
    option_set_id: str | None = None  # the bounded list the turn acts on
    source_cue: OptionSetKind | None = None  # explicit "from the evidence" cue
    target: TargetRef | None = None  # the resolved object (T4 / T5)
    topic: str | None = None  # T9 recap topic
    followup_clause: str | None = None  # mixed intent: answered after the selection
    retrieval: bool = False  # does the controller run over the repository
    disabled: bool = False  # the lane's setting is off: its flag-off behaviour runs
    pending: PendingMatch = PendingMatch(status="none")
    focus: FocusContext
    reasons: tuple[str, ...] = ()


def _body(text: str) -> str:
    return _POLITE_LEAD.sub("", strip_filler(normalize(text))).strip()


def _focus_object(state: ContinuityState, focus: FocusContext) -> TargetRef | None:
    if focus.source == "reply_anchor" and focus.object_ref is not None:
        return focus.object_ref
    selected = state.selected_object
    return selected.focus_object_ref if selected else None


def _option_pool(state: ContinuityState, focus: FocusContext,
                 cue: OptionSetKind | None) -> OptionSet | None:
    """The bounded list a selection acts on: the explicit source cue's list (same scope only),
    else the reply anchor's list, else the active one. Never a stale list otherwise."""
    if cue is not None:
        for option_set in state.option_sets:  # newest first
            if option_set.kind == cue:
                return option_set
        return None
    if focus.source == "reply_anchor" and focus.option_set_id:
        # the anchored turn's list, or none: never a newer list in its place
        return state.option_set(focus.option_set_id)
    return state.active_option_set()


def _plan(lane: Lane, cls: TransitionClass, intent: Intent, text: str, focus: FocusContext,
          pending: PendingMatch, reasons: list[str], **kw: object) -> TurnPlan:
    retrieval = bool(kw.pop("retrieval", REGISTRY[cls].root_retrieval))
    return TurnPlan(lane=lane, transition=cls, intent=intent, text=text, focus=focus,
                    pending=pending, reasons=tuple(reasons), retrieval=retrieval,
                    **kw)  # type: ignore[arg-type]


def _boundary(text: str, focus: FocusContext, pending: PendingMatch, reasons: list[str],
              why: str, lane: Lane = "boundary") -> TurnPlan:
    return _plan(lane, "T10", "boundary", text, focus, pending, [*reasons, why])


def route_turn(state: ContinuityState, text: str, reply_to: int | None,
               settings: ContinuitySettings, *, turns: Sequence[TurnSummary] = (),
               now_ms: int = 0) -> TurnPlan:
    turn_id = state.turn_count + 1
    selected = state.selected_object.focus_object_ref if state.selected_object else None
    focus = resolve_focus(turns, session_id=state.session_id, text=text, reply_to=reply_to,
                          selected=selected, settings=settings)
    body = _body(text)
    reasons: list[str] = []
    no_pending = PendingMatch(status="none")

    # 1. hard interrupts preempt everything
    if _RESET.match(body):
        return _plan("interrupt", "T1", "reset", text, focus, no_pending, ["hard interrupt"],
                     retrieval=False)
    if _CANCEL.match(body):
        return _plan("interrupt", "T6", "cancel", text, focus, no_pending, ["hard interrupt"])

    if not settings.grounding_continuity:
        return _plan("root", "T1", "root_question", text, focus, no_pending,
                     ["grounding continuity off: every turn is a root question"],
                     question=text.strip(), disabled=True)

    # 2. pending clarifier: strict type match only, else dropped
    pending = no_pending
    if state.pending is not None:
        pending = match_pending(state.pending, text, thread_key=state.session_id,
                                turn_id=turn_id, now_ms=now_ms)
        if not settings.pending_state:
            pending = PendingMatch(status="mismatch", reason="pending_state setting off")
        elif reply_to is not None and reply_to != state.pending.anchor_turn_id:
            # a reply anchors the turn to another turn: the pending question is not answered
            pending = PendingMatch(status="mismatch", reason=(
                f"reply to turn {reply_to}, not to the pending turn "
                f"{state.pending.anchor_turn_id}"))
        if (pending.status == "applied" and state.clarification_state is None
                and state.pending.option_set_id and state.option_set(state.pending.option_set_id)):
            return _plan("selection", "T3", "select_item", text, focus, pending,
                         ["pending selection clarifier matched"],
                         option_set_id=state.pending.option_set_id, choice_index=pending.choice,
                         disabled=not settings.selection_lane)
        if (pending.status == "applied" and pending.boolean is not None
                and state.clarification_state is not None):
            clar = state.clarification_state  # an offer to retry without the path scope
            if not pending.boolean:
                return _plan("interrupt", "T6", "cancel", text, focus, pending,
                             ["offer declined"])
            return _plan("clarify_resume", "T7", "resume_clarified", text, focus, pending,
                         ["retry offer accepted: the whole repository"],
                         question=clar.question, option_set_id=clar.option_set_id or None,
                         sense=clar.resume_target_frame.sense
                         if clar.resume_target_frame else None)
        if pending.status == "applied" and state.clarification_state is not None:
            clar = state.clarification_state
            index = pending.choice or 0
            sense = (clar.candidate_scopes[index - 1]
                     if 0 < index <= len(clar.candidate_scopes) else None)
            return _plan("clarify_resume", "T7", "resume_clarified", text, focus, pending,
                         [f"pending {state.pending.expected_type.split(':')[0]} matched"],
                         question=clar.question, sense=sense, choice_index=pending.choice,
                         option_set_id=clar.option_set_id,
                         scope=clar.resume_target_frame.path_scope
                         if clar.resume_target_frame else None)
        reasons.append(f"pending dropped: {pending.reason or pending.status}")

    # 3. explicit scope cues
    path_cue = _PATH_CUE.search(body)
    if path_cue:
        raw = path_cue.group("path")
        is_dir = raw.endswith("/") or "/" in raw.rstrip("/") or "." not in raw
        scope = raw.rstrip("/") + "/" if is_dir else raw
        rest = _RERUN_FILLER.sub(" ", body[:path_cue.start()] + " " + body[path_cue.end():])
        if not re.sub(r"[\s?,.!]+", "", rest):
            root = state.root_frame
            if root is None:
                return _boundary(text, focus, pending, reasons,
                                 "no earlier question to re-ask in a narrower scope")
            return _plan("root", "T2", "scope_rerun", text, focus, pending,
                         [*reasons, f"path scope cue {scope}"], question=root.question,
                         scope=scope, sense=root.sense)
        if is_dir and not _COMMAND.match(body):
            return _plan("root", "T1", "root_question", text, focus, pending,
                         [*reasons, f"path scope {scope} on a new question"],
                         question=text.strip(), scope=scope)
    source = _SOURCE_CUE.search(body)
    cue: OptionSetKind | None = _SOURCE_KIND[source.group("src")] if source else None
    if source:
        body = (body[:source.start()] + body[source.end():]).strip(" ,")
        reasons.append(f"source scope cue {cue}")

    # 4. selection on a bounded list or on the focused object
    mixed = _MIXED.search(body)
    clause = mixed.group("clause") if mixed else None
    core = body[:mixed.start()] if mixed else body
    command = _COMMAND.match(core)
    pool = _option_pool(state, focus, cue)
    rest = command.group("rest").strip() if command else core
    # ordinal-shaped even when out of range ("the 99th one"): a selection, never a new question
    ordinal_like = parse_ordinal(rest, ORDINAL_SHAPE_MAX) is not None
    if (command or ordinal_like or cue is not None) and not _QUESTION_LEAD.match(rest):
        if command and cue is None and (_FOCUS_WORDS.match(rest) or not rest):
            target = _focus_object(state, focus)
            if target is not None:
                return _plan("selection", "T5", "select_focused", text, focus, pending,
                             [*reasons, f"pronoun -> focused {target.id}"], target=target,
                             followup_clause=clause, disabled=not settings.selection_lane)
            if pool is None:
                return _boundary(text, focus, pending, reasons,
                                 "nothing is focused and no list is active", "selection")
            reasons.append("pronoun with no focused object: resolve in the active list")
        if pool is not None:
            return _plan("selection", "T3", "select_item", text, focus, pending,
                         [*reasons, "command on the active list"], option_set_id=pool.id,
                         choice_index=parse_ordinal(rest, len(pool.items)), source_cue=cue,
                         followup_clause=clause, disabled=not settings.selection_lane)
        if ordinal_like or cue is not None:
            return _boundary(text, focus, pending, reasons,
                             f"no {'list ' + source.group(0) if source else 'numbered list'}"
                             " is active", "selection")

    # 5. graph follow-ups on the focused object
    for pattern, intent in ((_CALLERS, "graph_callers"), (_TESTS, "graph_tests")):
        match = pattern.match(core)
        if match:
            obj = next(g for g in match.groups() if g)
            if _FOCUS_WORDS.match(obj.strip()):
                target = _focus_object(state, focus)
                if target is None:
                    return _boundary(text, focus, pending, reasons,
                                     "nothing is focused: open an item first", "graph")
                return _plan("graph", "T4", intent, text, focus, pending,  # type: ignore[arg-type]
                             [*reasons, f"{intent} on focused {target.id}"], target=target)

    # 6. semantic follow-ups about what happened
    semantic: tuple[TransitionClass, Intent] | None = None
    if _WHY_ACTION.match(core):
        semantic = ("T8", "explain_last_action" if core != "why" else "reflective_why_followup")
    elif _WHAT_HAPPENED.match(core):
        semantic = ("T9", "summarize_recent_activity")
    else:
        entity = _ENTITY_MEANING.match(core)
        if entity and _entity_in_scope(state, next(g for g in entity.groups() if g)):
            semantic = ("T8", "explain_entity_meaning")
    if semantic is not None:
        return _plan("semantic", semantic[0], semantic[1], text, focus, pending,
                     [*reasons, "semantic follow-up"], disabled=not settings.semantic_lane)

    # 7. meta over the last answer, 8. recap of the conversation
    if _META.match(core):
        if state.answer_context_state is None:
            return _boundary(text, focus, pending, reasons, "no earlier answer to discuss",
                             "meta")
        return _plan("meta", "T8", "meta_answer", text, focus, pending,
                     [*reasons, "meta question over the last answer"])
    recap = _RECAP.match(core)
    if recap:
        topic = next((g for g in recap.groups() if g), None)
        topic = re.sub(r"^(?:the|a|an)\s+", "", topic.strip(" ?")) if topic else None
        return _plan("recap", "T9", "recap_topic", text, focus, pending,
                     [*reasons, "recap of the conversation"], topic=topic or None)

    # 9. back to the root list
    if _BACK.match(core):
        return _plan("root", "T6", "back_to_root", text, focus, pending,
                     [*reasons, "back to the root question's list"])

    # 10. a new root question
    return _plan("root", "T1", "root_question", text, focus, pending,
                 [*reasons, "new root question"], question=text.strip())


def _entity_in_scope(state: ContinuityState, entity: str) -> bool:
    """`what does X mean` is a continuity question only when X names something in scope."""
    wanted = normalize(entity).strip("'\"` ")
    if not wanted or wanted in {"it", "that", "this"}:
        return wanted != ""
    pool = state.active_option_set()
    labels = [item.label for item in pool.items] if pool else []
    if state.selected_object:
        labels.append(state.selected_object.focus_object_ref.label)
    return any(wanted and wanted in normalize(label) for label in labels)


def prior_state_ok(state: ContinuityState, cls: TransitionClass) -> tuple[bool, str]:
    """Can `cls` run on `state` (required prior state present, carryover admitted)?"""
    spec = REGISTRY[cls]
    missing = missing_prior_state(spec, state)
    if missing:
        return False, f"missing prior state: {', '.join(missing)}"
    if not carryover_admitted(spec, state):
        return False, (f"coverage gate admits {state.coverage_gate_state.carryover_eligibility}"
                       f" carryover, {cls} needs {spec.allowed_carryover_depth}")
    return True, ""
