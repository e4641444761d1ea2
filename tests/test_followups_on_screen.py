"""Follow-ups that act on what is on screen, read by structure (issue 32, router round 8):
the lane that resolves a selection reads the message the way the router read it. Real
sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, copy_fixture


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path)


@pytest.mark.parametrize("request_text", [
    "Thank you. Would you open the test one, please?",
    "thanks! could you open the test one?",
    "ok, can you please open the test one?",
])
def test_a_polite_request_to_open_a_listed_item_opens_it(repo, request_text):
    talk = Talk(repo)
    talk("where is carve defined?")
    turn = talk(request_text)
    assert (turn.transition, turn.lane) == ("T3", "selection"), turn.answer
    assert turn.opened is not None and turn.opened.target.path == "tests/test_cavity_pool.py"
