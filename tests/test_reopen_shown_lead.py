"""Showing again what an ungrounded answer showed first (issue 32, router24b): an answer whose
coverage gate admits `object_only` carryover, its lead not what the question asked, still put
that item first on screen. "Show it again" then reopens that item (T5 on the answer's lead,
selected as shown only); since router26c a capability asked of "it" acts on it too, the
reply saying in one line how "it" was read. On main nothing was selected, so "again" asked which
item of the list was meant (T3). Real sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy

UNGROUNDED = "where is the tokenizer cache configured?"  # evidence, but not its subject
pytestmark = pytest.mark.usefixtures("cached_builds")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def _lead(talk: Talk, first) -> str:
    lead = talk.state().answer_context_state.lead_evidence_id
    return next(i.target_id for i in first.shown.items if i.id == lead)


@pytest.mark.parametrize("again", ["pull that up again for me", "again please",
                                   "put it back on screen again",
                                   "could I see tokenizer.py again"])
def test_again_after_an_ungrounded_answer_reopens_what_it_showed_first(repo, again):
    talk = Talk(repo)
    first = talk(UNGROUNDED)
    assert talk.state().coverage_gate_state.carryover_eligibility == "object_only"
    shown = talk(again)
    assert (shown.transition, shown.lane) == ("T5", "selection")
    assert shown.opened is not None and shown.opened.target.id == _lead(talk, first)


def test_a_capability_on_the_shown_lead_says_how_it_was_read(repo):
    """The lead shown first is what a graph question pointing at "it" acts on (router26c: the
    gate's object_only carryover), the reply saying so first; it stays shown only."""
    talk = Talk(repo)
    talk(UNGROUNDED)
    selected = talk.state().selected_object
    assert selected is not None and selected.shown_only and talk.state().chosen_object is None
    callers = talk("who calls it?")
    assert callers.transition == "T4" and callers.answer.startswith("Read 'it' as ")
    assert talk.state().chosen_object is None
