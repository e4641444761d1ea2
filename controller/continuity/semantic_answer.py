"""The semantic lane's words: the bounded blended context, answers, the packed clarifier.

Hard caps (semantic-continuity-answer-lane.md, from `caps.py`): chat history 8 turns and 1200
tokens (newest first), 12 structured continuity keys, the 5-entry action trace, a 400-token
snapshot excerpt, 1800 tokens of blended context in total (system prompt excluded).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from controller.continuity.caps import ContinuityCaps, truncate_tokens
from controller.continuity.degradation import Condition, condition_for_llm_error
from controller.continuity.focus import TurnSummary
from controller.continuity.requests import ModelCall, Steps
from controller.continuity.state import ActionTraceEntry, ContinuityState
from controller.continuity.vocabulary_data import compiled
from helix.core.english import count_tokens
from helix.core.errors import LLMError
from helix.core.hashing import canonical_json
from helix.core.schemas import Frozen

Slot = Literal["lastResolvedAction", "recentActionTrace", "entityReferent", "scopedEvidence"]

# opening a definition focuses its symbol, but what the user saw is the span opened
_VERB = {"open_span": "opened", "focus_symbol": "opened", "explain_object": "explained",
         "pivot_root": "asked the root question of", "list_callers": "listed the callers of",
         "list_tests": "listed the tests of", "rerun_scoped": "re-ran the question for",
         "resume_clarified": "resumed the question with", "answer_root": "answered",
         "meta_answer": "answered a question about", "recap": "recapped",
         "interrupt": "stopped at", "clarify": "asked you to choose", "boundary":
         "could not complete"}
_SLOT_ASK: dict[Slot, str] = {
    "lastResolvedAction": "which earlier action you mean",
    "recentActionTrace": "what to summarize (nothing has been opened or answered in this "
                         "session yet: ask a repository question or open an item first)",
    "entityReferent": "which name, file or symbol you mean",
    "scopedEvidence": "which source to explain it from",
}


class BlendedContext(Frozen):
    structured: dict[str, Any]
    history: tuple[str, ...]  # newest first
    excerpt: str
    history_tokens: int
    excerpt_tokens: int
    total_tokens: int


class SemanticClarifier(Frozen):
    question: str
    missing_slots: tuple[Slot, ...]
    options: tuple[str, ...] = ()


def assemble_context(state: ContinuityState, history: Sequence[TurnSummary], excerpt: str,
                     caps: ContinuityCaps) -> BlendedContext:
    """Bounded blended context: <= 12 structured keys, <= 8 turns / 1200 tokens of history
    (newest first), <= 400 tokens of excerpt, <= 1800 tokens in total."""
    last = state.last_resolved_action
    structured: dict[str, Any] = {
        "lastResolvedAction": None if last is None else {
            "type": last.type, "target": last.target_ref.label, "reason": last.reason},
        "recentActionTrace": [{"type": e.type, "target": e.target_ref.label,
                               "outcome": e.outcome} for e in state.recent_action_trace],
        "lastAssistantExplanation": state.last_assistant_explanation[: caps.label_max_chars],
        "activeScope": state.active_scope,
        "activeOptionSetId": state.active_option_set_id,
        "pendingClarifierType": state.pending_clarifier_type,
        "keyEntities": sorted({e.target_ref.label for e in state.recent_action_trace}),
    }
    structured = dict(list(structured.items())[: caps.structured_fields_max_keys])
    cut = truncate_tokens(excerpt, caps.snapshot_excerpt_max_tokens)
    budget = min(caps.chat_history_max_tokens,
                 caps.blended_context_max_tokens - count_tokens(canonical_json(structured))
                 - count_tokens(cut))
    lines: list[str] = []
    used = 0
    for turn in sorted(history, key=lambda t: -t.turn_id)[: caps.chat_history_max_turns]:
        line = f"turn {turn.turn_id}: {turn.user_text} -> {turn.answer_excerpt}"
        cost = count_tokens(line)
        if used + cost > budget:
            break
        lines.append(line)
        used += cost
    total = count_tokens(canonical_json(structured)) + count_tokens(cut) + used
    return BlendedContext(structured=structured, history=tuple(lines), excerpt=cut,
                          history_tokens=used, excerpt_tokens=count_tokens(cut),
                          total_tokens=total)


# "why did you <verb> that?": the verb names the kind of action asked about
_VERB_TYPES: dict[str, frozenset[str]] = {
    **{v: frozenset({"open_span", "focus_symbol", "explain_object"}) for v in (
        "open", "opened", "show", "showed", "shown", "pick", "picked", "choose", "chose",
        "select", "selected", "take", "took", "focus", "focused", "go", "jump", "view")},
    **{v: frozenset({"explain_object"}) for v in ("explain", "explained", "describe",
                                                   "described")},
    **{v: frozenset({"list_callers", "list_tests"}) for v in ("list", "listed", "find",
                                                               "found")},
    **{v: frozenset({"answer_root", "rerun_scoped", "resume_clarified"}) for v in (
        "answer", "answered", "say", "said", "search", "searched", "rerun", "run", "ran")},
    **{v: frozenset({"interrupt"}) for v in ("stop", "stopped", "cancel", "cancelled")},
}
_VERB_IN_WHY = compiled("VERB_IN_WHY")


def action_types_asked(text: str) -> frozenset[str] | None:
    """The action types the question's verb asks about ("why did you open that?" -> the
    open actions), or None when the verb names no kind (then any action is a referent)."""
    match = _VERB_IN_WHY.search(text)
    return _VERB_TYPES.get(match.group(1).lower()) if match else None


def _open_story(a: ActionTraceEntry, state: ContinuityState,
                history: Sequence[TurnSummary]) -> str:
    """Why an object was opened, from the turns that opened it and the list it came from."""
    opens = sorted((h for h in history if h.object_ref is not None
                    and h.object_ref.id == a.target_ref.id and h.lane == "selection"),
                   key=lambda h: h.turn_id)
    if not opens:
        return ""
    first = opens[0]
    text = f' because you asked "{first.user_text}" (turn {first.turn_id})'
    selected = state.selected_object
    list_id = (selected.provenance_bundle_ref if selected is not None
               and selected.focus_object_ref.id == a.target_ref.id else a.option_set_id)
    option_set = state.option_set(list_id) if list_id else None
    item = next((i for i in option_set.items if i.target.id == a.target_ref.id),
                None) if option_set else None
    if option_set is not None and item is not None:
        text += f": it is item {item.index} of the {option_set.kind} list of turn " \
                f"{option_set.origin_turn_id}"
        root = state.root_frame
        if root is not None and root.root_answer_object_ref == option_set.origin_turn_id:
            text += f' ("{root.question}")'
    if len(opens) > 1:
        again = opens[-1]
        text += f'; "{again.user_text}" (turn {again.turn_id}) showed it again'
    return text + "."


def answer_action(a: ActionTraceEntry, state: ContinuityState,
                  history: Sequence[TurnSummary] = ()) -> str:
    t = a.target_ref
    where = f" ({t.path}:{t.start_line}-{t.end_line})" if t.path and t.start_line else ""
    text = f"I {_VERB.get(a.type, a.type)} {t.label or t.id}{where}"
    last = state.last_resolved_action
    if last is not None and (last.timestamp, last.target_ref.id, last.type) == (
            a.timestamp, t.id, a.type):
        return (f'{text} because you asked "{last.user_text}" (turn {last.turn_id}): '
                f"{last.reason}. It came from the {last.source_scope} list.")
    if a.type in ("open_span", "focus_symbol"):
        story = _open_story(a, state, history)
        if story:
            return text + story
    return f"{text}, from the {a.source_scope} list ({a.outcome})."


def summarize_trace(state: ContinuityState, scope: str | None) -> str:
    entries = [e for e in state.recent_action_trace if scope is None or e.source_scope == scope]
    lines = ["What we did, most recent first:"]
    for n, e in enumerate(entries, 1):
        lines.append(f"  {n}. {_VERB.get(e.type, e.type)} {e.target_ref.label or e.target_ref.id}"
                     f" (from the {e.source_scope} list, {e.outcome})")
    return "\n".join(lines)


def packed_clarifier(missing: tuple[Slot, ...], options: tuple[str, ...],
                      note: str = "") -> SemanticClarifier:
    asks = [_SLOT_ASK[s] for s in missing]
    question = "To answer that, tell me " + "; and ".join(asks) + "."
    if note:
        question = f"{question} ({note})"
    if options:
        question += "\n" + "\n".join(f"  {n}. {o}" for n, o in enumerate(options, 1))
    return SemanticClarifier(question=question, missing_slots=missing, options=options)


_ANSWER_SYSTEM = (
    "Explain what the named entity means in this repository using ONLY the excerpt and "
    'context given. Reply with JSON {"answer": "...", "confidence": 0..1}; reply '
    '{"answer": "", "confidence": 0} when the excerpt does not say.')


def answer_call(question: str, context: BlendedContext, caps: ContinuityCaps
                ) -> Steps[tuple[str, Condition | None]]:
    """One answer-mode call to the lane's model (a `ModelCall` step): (answer, None), or ("",
    the degradation condition)."""
    payload = {"question": question, "context": context.structured,
               "recentTurns": list(context.history), "excerpt": context.excerpt}
    messages = ({"role": "system", "content": _ANSWER_SYSTEM},
                {"role": "user", "content": canonical_json(payload)})
    try:
        text = str((yield ModelCall("semantic_answer", messages))).strip()
    except LLMError as exc:
        return "", condition_for_llm_error(exc)
    try:
        raw = json.loads(text[text.find("{"): text.rfind("}") + 1])
    except ValueError:
        raw = {"answer": text, "confidence": 1.0}
    if not isinstance(raw, dict):
        return "", "abstain"
    answer = str(raw.get("answer") or "").strip()
    if not answer or answer.upper() in ("ABSTAIN", "NEED_MORE_INFO"):
        return "", "abstain"
    try:
        confidence = float(raw.get("confidence", 1.0))
    except (TypeError, ValueError):
        confidence = 0.0
    if confidence < caps.semantic_min_answer_confidence:
        return "", "low_confidence"
    return answer, None
