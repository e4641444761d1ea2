"""Whether a new search is said back, by the router's own numbers (docs/announce.md). Pure.

    p_new(reading) -> float               the head's probability of a new question
    after_first(t) -> bool                not the session's first turn
    unsure_new_search(t, plan, reading)   a new search after the first turn, with state or
                                          without, whose reading of a new question is below
                                          `continuity.router_announce_new_below`

The bar and its scope were chosen on out-of-fold readings of training turns and on the tune
files (fewest silent follow-ups at a stated cost in announced new questions: docs/announce.md;
round 33 widened the scope from sessions with state to every turn after the first, where a
follow-up right after a boundary was still searched for without a word). Only the
state flags and the head's probability decide: no word list. It says a line; it never changes
the plan's class, lane or transition.
"""

from __future__ import annotations

from controller.continuity.meaning import state_flags
from controller.continuity.turn_plan import Reading, Turn, TurnPlan

NEW_QUESTION = "new_question"


def p_new(reading: Reading) -> float:
    """The reading's probability that the message is a new question: its confidence when it
    reads one, that class's probability among its alternatives, else 0 (not among the top)."""
    if reading.meaning == NEW_QUESTION:
        return reading.confidence
    return next((p for m, p in reading.alternatives if m == NEW_QUESTION), 0.0)


def after_first(t: Turn) -> bool:
    """Not the session's first turn: a follow-up is possible, with state or without (right
    after a boundary the user may still be following up)."""
    return not state_flags(t)["first_turn"]


def unsure_new_search(t: Turn, plan: TurnPlan, reading: Reading) -> bool:
    """A new search (`root_question`) after the session's first turn, read as a new question
    with a probability below `router_announce_new_below`."""
    return plan.intent == "root_question" and after_first(t) \
        and p_new(reading) < t.settings.router_announce_new_below
