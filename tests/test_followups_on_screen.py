"""Follow-ups that act on what is on screen, read by structure (issue 32, router round 8):
the lane that resolves a selection reads the message the way the router read it. Real
sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize("request_text", [
    "Thank you. Would you open the test one, please?",
    "thanks! could you open the test one?",
    "ok, can you please open the test one?",
    "May I see that test?",  # a request in the first person is no question either
    "Could we open the test one?",
    "Might I see the test, please?",
])
def test_a_polite_request_to_open_a_listed_item_opens_it(repo, request_text):
    talk = Talk(repo)
    talk("where is carve defined?")
    turn = talk(request_text)
    assert (turn.transition, turn.lane) == ("T3", "selection"), turn.answer
    assert turn.opened is not None and turn.opened.target.path == "tests/test_cavity_pool.py"


# the list shows storage/cavity_pool.py as a file and Cavity, CavityPool defined in it
LISTS_THE_FILE = "how is the free spectral range computed?"


@pytest.mark.parametrize("request_text", ["cavity_pool", "open the cavity_pool module",
                                          "show me cavity_pool.py file pls",
                                          "open cavity_pool.py"])
def test_naming_a_listed_file_opens_the_file_and_it_is_what_it_means_next(repo, request_text):
    talk = Talk(repo)
    talk(LISTS_THE_FILE)
    opened = talk(request_text)
    assert opened.transition == "T3" and opened.opened is not None, opened.answer
    target = opened.opened.target
    assert (target.path, target.symbol) == ("storage/cavity_pool.py", None)
    callers = talk("what tests use that")
    assert (callers.transition, callers.lane) == ("T4", "graph"), callers.answer


def test_a_definition_named_with_its_file_is_the_definition(repo):
    talk = Talk(repo)
    talk(LISTS_THE_FILE)
    opened = talk("open CavityPool in cavity_pool.py")
    assert opened.opened is not None and opened.opened.target.symbol == "CavityPool"


@pytest.mark.parametrize("text", ["now the other sense", "no, the other meaning please",
                                  "same question but for the allocator sense",
                                  "and the other sort of cavity, the storage one?",
                                  "Good. Now please the other meaning, of the memory."])
def test_after_a_sense_was_chosen_the_other_sense_is_the_question_in_that_sense(repo, text):
    talk = Talk(repo)
    assert talk("what is a cavity?").answer.startswith("'cavity' means different things")
    talk("the optical one")
    turn = talk(text)
    assert (turn.transition, turn.lane) == ("T2", "root"), turn.answer
    assert "storage/cavity_pool.py" in (talk.state().root_frame.sense or "")


@pytest.mark.parametrize("text", ["alright now the other meaning please",
                                  "could we look at the storage meaning now?"])
def test_the_other_sense_after_an_item_of_the_chosen_sense_was_opened(repo, text):
    # router18: the last accepted choice is then the opened item, not the sense; a message
    # about a sense that points away from the chosen one still means the other sense (T2)
    talk = Talk(repo)
    talk("what is a cavity?")
    talk("the optical one")
    opened = talk("open the first one")
    assert opened.transition == "T3" and opened.opened is not None
    turn = talk(text)
    assert (turn.transition, turn.lane, turn.intent) == ("T2", "root", "correct_choice"), \
        turn.answer
    assert "storage/cavity_pool.py" in (talk.state().root_frame.sense or "")
