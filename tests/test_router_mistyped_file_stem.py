"""A pick that names a listed file by its stem with a typo (issue 32, router26b): "open the
schedular file", "the retryer one" read against the list's names found nothing like them
("the resonator" of optics/resonator.py is no name of an item: a stem names a file's part), so
a sure pick became a boundary ("nothing like ... is in the list on screen"). The stem of a
listed file of five letters or more is now one of the names a mistyped word is read as, for
the selection lane's own matching; an exact path stays exact, and a word near no stem is still
nothing on screen."""

from __future__ import annotations

import pytest

from controller.continuity.meaning import Features
from controller.continuity.router import route_turn
from controller.continuity.state import (
    TargetRef,
)
from controller.continuity.turn_plan import Reading
from helix.core.config import ContinuitySettings
from tests.router_states import answered

ON = ContinuitySettings()
FILES = ("uploader/scheduler.py", "uploader/retrier.py", "docs/uploads.md")


def _state():
    targets = [TargetRef(kind="file", id=f"file:{p}", label=p, path=p) for p in FILES]
    targets.append(TargetRef(kind="symbol", id="def:uploader/scheduler.py::Slot",
                             label="Slot", path=FILES[0], symbol="Slot"))
    return answered("how are uploads retried?", "uploads", targets, 2, FILES[1])


def _pick(f: Features) -> Reading:
    return Reading(meaning="pick", confidence=0.9, alternatives=(("new_question", 0.05),))


@pytest.mark.parametrize("text,stem", [
    ("open the schedular file", "scheduler"),
    ("the retryer one please", "retrier"),
])
def test_a_mistyped_stem_of_a_listed_file_is_a_pick(text, stem):
    plan = route_turn(_state(), text, None, ON, reader=_pick)
    assert (plan.transition, plan.lane) == ("T3", "selection")
    assert stem in " ".join(plan.reasons)


def test_a_word_near_no_listed_name_is_still_nothing_on_screen():
    plan = route_turn(_state(), "open the dispatcher file", None, ON, reader=_pick)
    assert plan.transition == "T10"
