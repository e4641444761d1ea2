"""The object "it" means after an answer (issue 32, router14): a grounded answer selects the
item it leads with (T4 / T5 act on it, "open it" opens it). Items the rules place exactly are
tests/test_selection_placed.py's. Real sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, indexed_copy

UNANSWERED = "where is the tokenizer cache configured?"  # evidence, but not its subject
pytestmark = pytest.mark.usefixtures("cached_builds")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def test_after_an_answer_open_it_opens_its_lead_and_show_it_again_reopens_it(repo):
    """The answer's lead is what "it" means: "open it" opens it the first time (T3, an item
    of the list), "show it again" / "explain it" act on the object (T5 / T4); on main
    nothing was focused, so "show it again" asked which item of the list."""
    talk = Talk(repo)
    first = talk(Q)
    lead = next(i for i in first.shown.items if "build_bm25_index" in i.label)
    again = talk("show it again")
    assert (again.transition, again.lane) == ("T5", "selection")
    assert again.opened is not None and again.opened.target.id == lead.target_id
    talk2 = Talk(repo, name="s2")
    talk2(Q)
    opened = talk2("open it")
    assert (opened.transition, opened.intent) == ("T3", "select_item")
    assert opened.opened is not None and opened.opened.target.id == lead.target_id
    more = talk2("explain it")
    assert (more.transition, more.lane) == ("T4", "explain")


def test_an_ungrounded_answer_selects_its_lead_as_shown_only(repo):
    """An answer that never showed what was asked selects its lead as shown only (router24b:
    what "show it again" reopens, tests/test_reopen_shown_lead.py). Since router26c a
    capability pointed at "it" acts on that closest match, saying so in one line, while the
    gate keeps the answer's claims from carrying (tests/test_pointing_after_ungrounded.py)."""
    talk = Talk(repo)
    talk(UNANSWERED)
    selected = talk.state().selected_object
    assert selected is not None and selected.shown_only
    callers = talk("who calls it?")
    assert callers.transition == "T4" and callers.answer.startswith("Read 'it' as ")



def test_an_ungrounded_answer_selects_its_lead_when_the_question_named_it(repo):
    """router19: the question named the item the answer leads with ("SearchEngine.search
    tie breaking"), so that object is on screen though what was asked of it was not found:
    "it" is that object (the gate's object_only carryover admits acting on it, T4 / T5),
    while the answer's claims still carry nothing. On main "who calls it?" was refused."""
    talk = Talk(repo)
    first = talk("SearchEngine.search tie breaking")
    assert talk.state().coverage_gate_state.carryover_eligibility == "object_only"
    lead = next(i for i in first.shown.items if i.label == "SearchEngine.search")
    assert talk.state().selected_object.focus_object_ref.id == lead.target_id
    callers = talk("who calls it?")
    assert (callers.transition, callers.lane) == ("T4", "graph")
