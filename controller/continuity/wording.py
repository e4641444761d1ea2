"""What the router says and asks, worded from the state: the pivot's question, the coverage
gate's sentence, whether a named entity is one the conversation has in scope. Pure.
"""

from __future__ import annotations

import re

from controller.continuity.pending import normalize
from controller.continuity.state import ContinuityState
from controller.route import route_question
from helix.core.policy import RoutingPolicy


def pivot_question(question: str, subject: str) -> str:
    """The root question asked of `subject`: its subject phrase replaced when the question
    spells it ("where is the BM25 index built?" + "the tokenizer" -> "where is the tokenizer
    built?"), else the route's plain form."""
    new = re.sub(r"^(?:the|a|an)\s+", "", subject.strip(), flags=re.I)
    # the default routing policy: the router does not hold the retrieval settings (the rewrite
    # of the router under way receives the question already read, controller/question.py)
    plan = route_question(question, routing=RoutingPolicy())
    for phrases in plan.subjects.values():
        for phrase in phrases:
            pattern = re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)", re.I)
            if phrase and pattern.search(question):
                return pattern.sub(lambda _m: new, question, count=1)
    form = {"location": "where is {} defined?", "definition": "what is {}?",
            "explanation": "how does {} work?", "usage": "who uses {}?"}
    return form.get(plan.intent.route, "{}").format(new)


def gate_sentence(state: ContinuityState, transition_name: str, text: str, why: str) -> str:
    """Why a follow-up cannot consume the last answer, and what to do instead."""
    if why.startswith("missing prior state"):
        return f"{transition_name.replace('_', ' ')} needs {why[len('missing '):]}"
    answer = state.answer_context_state
    gate = state.coverage_gate_state
    asked = f'"{answer.question}"' if answer else "the last question"
    found = ("found no evidence" if gate.coverage_status == "blocked"
             else "found nothing that answers it")
    missing = [c[len("missing:"):] for c in gate.reason_codes if c.startswith("missing:")]
    detail = f" ({', '.join(missing)} not in the evidence)" if missing else ""
    return (f"{asked} {found}{detail}, so its result is not carried into '{text.strip()}' "
            f"({why}); ask about a name, or open an item of the list by its number")


def entity_in_scope(state: ContinuityState, entity: str) -> bool:
    """`what does X mean` is a continuity question only when X names something in scope."""
    wanted = normalize(entity).strip("'\"` ")
    if not wanted or wanted in {"it", "that", "this"}:
        return wanted != ""
    pool = state.active_option_set()
    labels = [item.label for item in pool.items] if pool else []
    if state.selected_object:
        labels.append(state.selected_object.focus_object_ref.label)
    return any(wanted and wanted in normalize(label) for label in labels)
