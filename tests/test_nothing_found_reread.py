"""A message the rules take for a new question, searched for its own words, finding nothing,
is acted on as the reader's follow-up reading when it had one ("how sur r u": a question
about the last answer), said back first; with no follow-up reading likely enough, or a
search that found something, the turn stays what it was (router26a, issue 32). Real sessions
over the continuity fixture (dry run) with a fixed reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import config, indexed_copy

from controller.continuity.meaning import Features
from controller.continuity.reread import REREAD_FLOOR, reread_nothing_found
from controller.continuity.turn_plan import Reading, TurnPlan
from helix.core.ports import FakeClock
from helix.session.runner import run_turn


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def _reader(follow_up: str, p: float):
    """The message read as a new question first, `follow_up` second with probability `p`;
    the first turn of a session (no answer yet) read as a new question only."""
    def read(f: Features) -> Reading:
        if f.flag("first_turn"):
            return Reading(meaning="new_question", confidence=1.0)
        return Reading(meaning="new_question", confidence=round(1 - p, 4),
                       alternatives=((follow_up, p),))
    return read


def _talk(repo: Path, reader, texts: list[str], name: str):
    clock = FakeClock(start=1_700_000_000.0, step=0.001)
    cfg = config(repo)
    return [run_turn(name, text, root=repo, config=cfg, dry_run=True, clock=clock,
                     reader=reader) for text in texts]


def test_a_bare_search_finding_nothing_is_read_as_the_follow_up(repo):
    *_, turn = _talk(repo, _reader("meta", 0.3),
                     ["where is the BM25 index built?", "qwzx vrrbl plonk?"], "reread-meta")
    assert (turn.transition, turn.lane) == ("T8", "meta"), turn.answer
    assert turn.answer.startswith("Nothing in the repository matched 'qwzx vrrbl plonk?'")


def test_an_unlikely_follow_up_reading_leaves_the_boundary(repo):
    *_, turn = _talk(repo, _reader("meta", REREAD_FLOOR / 2),
                     ["where is the BM25 index built?", "qwzx vrrbl plonk?"], "reread-low")
    assert turn.transition == "T10", turn.answer


def test_a_search_that_found_something_stands(repo):
    *_, turn = _talk(repo, _reader("meta", 0.3),
                     ["where is the BM25 index built?", "where is the cavity pool carved?"],
                     "reread-found")
    assert (turn.transition, turn.lane) == ("T1", "root"), turn.answer


def test_only_a_new_questions_empty_search_is_reread():
    reading = Reading(meaning="new_question", confidence=0.6, alternatives=(("recap", 0.3),))
    plan = TurnPlan.model_construct(intent="root_question", reading=reading)
    assert reread_nothing_found(plan, "T10", ("no evidence found",)) == Reading(
        meaning="recap", confidence=0.3, forced=True)
    assert reread_nothing_found(plan, "T10", ("no earlier answer",)) is None
    assert reread_nothing_found(plan, "T1", ()) is None
    other = TurnPlan.model_construct(intent="scope_rerun", reading=reading)
    assert reread_nothing_found(other, "T10", ("no evidence found",)) is None
