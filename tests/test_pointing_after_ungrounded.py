"""A follow-up pointing back ("what calls this one?", "is there any test covering that?")
after an answer the coverage gate leaves ungrounded ("Nothing in the repository names X; the
closest matches are ..."): the gate's `object_only` carryover lets the listed object carry,
not the claims (spec: state-and-transition-contracts, Coverage Gate State). So the turn acts
on the match the answer showed first (T4), and its reply says in one line how the pointer was
read; the gate stays `object_only` (nothing the answer claimed is confirmed). On main the turn
was refused ("... found nothing that answers it, so its result is not carried ..."). Real
sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, copy_fixture

from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("pointing"))


POINTING = [
    ("where does the engine keep its result cache?", "what calls this one?", "graph", "this"),
    ("where is the stopword list stripped out?", "is there any test covering that?", "graph",
     "that"),
    ("where is the tokenizer cache configured?", "tell me more about it", "explain", "it"),
    # "that" introducing a clause is no pointer: the pointer said last is
    ("where does the engine keep its result cache?", "anything that tests this?", "graph",
     "this"),
]


@pytest.mark.parametrize(("question", "follow_up", "lane", "pointer"), POINTING)
def test_a_pointing_follow_up_acts_on_the_closest_match_shown(
        repo, question, follow_up, lane, pointer):
    talk = Talk(repo, name=f"point-{short_id('point', question)}")
    talk(question)
    state = talk.state()
    assert state.coverage_gate_state.carryover_eligibility == "object_only"
    shown = state.selected_object
    assert shown is not None and shown.shown_only
    turn = talk(follow_up)
    assert (turn.transition, turn.lane) == ("T4", lane), turn.answer
    # first, or right after the router's note of a reading it was unsure of
    said = next(line for line in turn.answer.splitlines()[:2] if line.startswith("Read '"))
    label = shown.focus_object_ref.symbol or shown.focus_object_ref.label
    assert said.startswith(f"Read '{pointer}' as {label}"), said
    assert "closest match shown" in said and question in said
    after = talk.state()
    # the claims still do not carry: the gate of the ungrounded answer is kept as it was
    assert after.coverage_gate_state.carryover_eligibility == "object_only"
    assert after.root_frame is not None and after.root_frame.question == question


def test_the_object_read_once_is_read_again(repo):
    """A second pointing follow-up acts on the same object, with the same one-line reading."""
    talk = Talk(repo, name="point-twice")
    talk("where does the engine keep its result cache?")
    target = talk.state().selected_object.focus_object_ref
    talk("what calls this one?")
    again = talk("and is it tested?")
    assert (again.transition, again.lane) == ("T4", "graph"), again.answer
    assert again.answer.startswith(f"Read 'it' as {target.symbol or target.label}")
