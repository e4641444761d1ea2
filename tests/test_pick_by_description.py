"""Picking an entry of the list on screen by what it holds or does, not by its name (issue 32,
router27b): "open the one that says ...", "the result with X in it", "the item referencing
X". The words describe the entry's content, which the list's labels do not show, so they are
no thing the list never showed (T10) and no new question (T1), and the "that" of the clause
points at no object in focus (T4): the selection lane reads the description (T3), matching
what it can or asking which entry. On main such picks were boundaries ("the list on screen
shows no says ..."), new questions or explanations of the focus. Real sessions over the
continuity fixture (dry run, the packaged meaning router)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy

pytestmark = pytest.mark.usefixtures("cached_builds")
FIRST = "where do documents get their relevance scores computed?"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize("pick", [
    "open the one that says 'postings and statistics'",
    "could you bring up the result with doc_freqs in it",
    "the entry mentioning k1, open that please",
    "show me the item which hands back an offset",
])
def test_an_entry_picked_by_what_it_holds_goes_to_the_selection_lane(repo, pick):
    talk = Talk(repo)
    first = talk(FIRST)
    assert first.shown is not None and len(first.shown.items) > 1
    turn = talk(pick)
    assert (turn.transition, turn.lane) == ("T3", "selection"), turn.reasons


def test_a_clause_pointing_back_is_no_description(repo):
    """"the test that covers it": the clause ends on the object in focus, not on content."""
    talk = Talk(repo)
    talk(FIRST)
    turn = talk("which test covers it?")
    assert (turn.transition, turn.lane) == ("T4", "graph")


def test_a_described_sense_still_answers_the_clarifier(repo):
    """While the two-sense clarifier waits, "the one with ..." describes one of its senses
    (T7), not an entry of an evidence list."""
    talk = Talk(repo)
    talk("cavity")
    assert talk.state().clarification_state is not None
    turn = talk("the one with free regions in a memory slab")
    assert (turn.transition, turn.lane) == ("T7", "clarify_resume")


def test_a_never_shown_thing_with_a_clause_stays_a_boundary(repo):
    """"the YAML file that configures X": a thing named by its kind of file, which the list
    never showed (T10), not an entry described by what it holds."""
    talk = Talk(repo)
    talk(FIRST)
    turn = talk("show me the YAML file that configures the scoring weights")
    assert turn.transition == "T10", turn.reasons
