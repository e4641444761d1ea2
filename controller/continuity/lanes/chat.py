"""Small talk in a session turn (T0, living mode `chat`): a short reply, no retrieval; and the
meaning router's two-readings clarifier (T0, lane `clarify`: nothing changes but the pending).

"hello", "thanks!", "ok", "bye", "what can you do?": the reply is deterministic unless
`continuity.chat_model` is set, in which case one short model call (through the lanes' one path,
`LaneModels.small_talk`) writes it, and any failure falls back to the deterministic reply.
Nothing the conversation carries (question, list, focus) is touched.
"""

from __future__ import annotations

from typing import Any

from controller.continuity.events import ContinuityEvent
from controller.continuity.lanes.context import LaneOutcome, TurnContext
from controller.continuity.meaning import said
from controller.continuity.pending import make_pending, selection_expected_type
from controller.continuity.phrases import SmallTalkKind
from controller.continuity.requests import ModelCall, Steps
from controller.continuity.transitions import StateSlot
from helix.core.errors import LLMError

CAPABILITIES = (
    "I answer questions about this repository with path:line citations. Try:\n"
    "  - a question: \"where is X defined?\", \"how does Y work?\", \"who calls Z?\"\n"
    "  - open an item of a list by its number: \"open the second one\"\n"
    "  - follow-ups on what is open: \"who calls it?\", \"where is it tested?\", "
    "\"tell me more about that\"\n"
    "  - narrow or pivot: \"same question but only in tests/\", \"what about the tokenizer?\"\n"
    "  - about the conversation: \"is that the only place?\", \"why did you open that?\", "
    "\"what have we done so far?\"\n"
    "  - \"start over\" forgets the question and the lists; /reply N answers turn N.")
_SYSTEM = ("You are Helix, an assistant that answers questions about one code repository with "
           "path:line citations. The user made small talk. Reply in one or two short, friendly "
           "sentences. Do not answer questions about the repository, do not name files or "
           "functions, do not invent facts.")


def deterministic_reply(kind: SmallTalkKind | None, *, has_list: bool, repo: str) -> str:
    if kind == "capabilities":
        return CAPABILITIES
    if kind == "identity":
        return ("I'm Helix: I search this repository's code and documentation and answer with "
                "path:line citations. I remember only this session.")
    if kind == "greeting":
        return (f"Hello! Ask me about {repo}: where something is defined, how it works, who "
                "calls it. Say \"what can you do?\" for more.")
    if kind == "thanks":
        return "You're welcome." + (" Ask a follow-up, or open an item of the list by its "
                                    "number." if has_list else "")
    if kind == "farewell":
        return "Bye! This session is kept; come back to it any time."
    return "OK." + (" The list is still there: open an item by its number." if has_list else "")


def run_chat(ctx: TurnContext) -> Steps[LaneOutcome]:
    plan, state = ctx.plan, ctx.state
    reply = deterministic_reply(plan.small_talk, has_list=state.active_option_set() is not None,
                                repo=f"this repository ({ctx.repo_name})")
    source = "deterministic"
    if ctx.model_ready("small_talk") and plan.small_talk != "capabilities":
        try:
            written = str((yield ModelCall("small_talk", (
                {"role": "system", "content": _SYSTEM},
                {"role": "user", "content": plan.text})))).strip()
        except LLMError as exc:
            source = f"deterministic ({getattr(exc, 'reason', 'error')})"
        else:
            if written:
                reply, source = written, f"model {ctx.lane_models['small_talk']}"
    event = ContinuityEvent(name="small_talk_reply", reason=plan.small_talk or "",
                            data={"source": source, "retrieval": False})
    return LaneOutcome(lane="chat", transition="T0", intent="small_talk", answer=reply,
                       answer_mode="small_talk", updates={}, events=(event,),
                       reasons=(f"small talk ({plan.small_talk})", source))


def run_reading_clarifier(ctx: TurnContext) -> LaneOutcome:
    """Two close readings of one message: both offered, nothing done; a `repair` pending whose
    strict answer ("1", "the second") re-reads the message the chosen way."""
    plan = ctx.plan
    options = tuple(said(m, plan.text) for m in plan.readings)
    listed = "\n".join(f"  {n}. {option}" for n, option in enumerate(options, start=1))
    answer = f"I am not sure how to read '{plan.text.strip()}'. Did you mean:\n{listed}"
    updates: dict[StateSlot, Any] = {}
    if ctx.config.continuity.pending_state:
        updates["pending"] = make_pending(
            kind="clarification_needed", expected_type=selection_expected_type(options),
            clarifier_type="repair", anchor_turn_id=ctx.turn_id, thread_key=ctx.session_id,
            now_ms=ctx.now_ms, caps=ctx.config.continuity.caps, readings=plan.readings,
            reading_text=plan.text)
    event = ContinuityEvent(name="reading_clarifier_asked", reason=plan.reasons[-1],
                            data={"readings": list(plan.readings)})
    return LaneOutcome(lane="clarify", transition="T0", intent="clarify_reading", answer=answer,
                       answer_mode="clarify", updates=updates, events=(event,),
                       reasons=(plan.reasons[-1],))
