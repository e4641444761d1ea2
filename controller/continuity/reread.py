"""A message the rules took for a new question whose search for its own words found nothing
("how sur r u", "META provenance last_answer", "{\"action\": \"summarize_session\"}"): the
reader's follow-up reading of it is acted on instead (the session driver routes the turn again
with that reading and runs it), said back first. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from controller.continuity.meaning import MEANINGS
from controller.continuity.turn_plan import Reading, TurnPlan

REREAD_FLOOR = 0.2  # a follow-up reading at least this probable is acted on after a bare search
NOTHING_FOUND = "no evidence found"  # the root lane's boundary when a search found nothing


def reread_nothing_found(plan: TurnPlan, transition: str, reasons: Sequence[str]
                         ) -> Reading | None:
    """When `plan` searched for the message's own words as a new question and its outcome
    (`transition`, `reasons`) says nothing was found, the reader's likeliest reading other
    than a new question, forced, if it is at least `REREAD_FLOOR`; None: the boundary stands."""
    reading = plan.reading
    if reading is None or reading.forced or plan.intent != "root_question" \
            or transition != "T10" or NOTHING_FOUND not in reasons:
        return None
    for meaning, p in ((reading.meaning, reading.confidence), *reading.alternatives):
        if meaning not in ("new_question", "boundary"):
            return Reading(meaning=meaning, confidence=p, forced=True) \
                if p >= REREAD_FLOOR else None
    return None


def reread_plan(plan: TurnPlan, reading: Reading, text: str) -> TurnPlan:
    """`plan` (routed with `reading`) said back: the search found nothing, read this way."""
    said = str(MEANINGS[reading.meaning]["reads_as"]).format(text=text.strip())
    return plan.model_copy(update={
        "announce": f"Nothing in the repository matched '{text.strip()}' as a question of its "
                    f"own. {said}",
        "reasons": (*plan.reasons, f"a search for its own words found nothing: read as "
                                   f"{reading.meaning} ({reading.confidence:.2f})")})
