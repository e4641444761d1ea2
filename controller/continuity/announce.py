"""Whether a new search is said back, by the router's own numbers (docs/announce.md). Pure.

    p_new(reading) -> float               the head's probability of a new question
    with_state(t) -> bool                 the session has something a follow-up could act on
    unsure_new_search(t, plan, reading)   a new search in a session with state whose reading
                                          of a new question is below
                                          `continuity.router_announce_new_below`

The bar was chosen on out-of-fold readings of training turns and on the tune files (fewest
silent follow-ups at a stated cost in announced new questions: docs/announce.md). Only the
state flags and the head's probability decide: no word list. It says a line; it never changes
the plan's class, lane or transition.
"""

from __future__ import annotations

from controller.continuity.meaning import state_flags
from controller.continuity.turn_plan import Reading, Turn, TurnPlan

NEW_QUESTION = "new_question"
# the router's state flags that say a follow-up has something to act on: a root question, an
# answer, a list on screen, an object in focus, any pending question or offer
SESSION_STATE = ("has_root", "has_answer", "has_list", "has_focus", "pending_sense",
                 "pending_offer", "pending_choice", "pending_slot", "pending_reading")


def p_new(reading: Reading) -> float:
    """The reading's probability that the message is a new question: its confidence when it
    reads one, that class's probability among its alternatives, else 0 (not among the top)."""
    if reading.meaning == NEW_QUESTION:
        return reading.confidence
    return next((p for m, p in reading.alternatives if m == NEW_QUESTION), 0.0)


def with_state(t: Turn) -> bool:
    flags = state_flags(t)
    return any(flags[name] for name in SESSION_STATE)


def unsure_new_search(t: Turn, plan: TurnPlan, reading: Reading) -> bool:
    """A new search (`root_question`) in a session with state, read as a new question with a
    probability below `router_announce_new_below`."""
    return plan.intent == "root_question" and with_state(t) \
        and p_new(reading) < t.settings.router_announce_new_below
