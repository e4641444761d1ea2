"""Opening one entry of the list by its kind or place is a pick, not a narrowing (issue 32,
router27b): "the doc page from the storage folder, open that" names where the entry lives and
asks to open it; "only the docs folder" asks the question again over fewer places (T2). On main
the meaning router's narrowing reading re-asked the question in that folder (T2, sometimes a
boundary when nothing was found there) instead of opening the entry (T3). Real sessions over
the continuity fixture (dry run, the packaged meaning router)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy

pytestmark = pytest.mark.usefixtures("cached_builds")
FIRST = "where is free space in a slab handed out?"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize("pick", [
    "the doc page from the storage folder, open that for me",
    "ok the one under the tests folder, open it",
    "the one in the docs folder, could you open it",
    "the storage doc one, pull that up",
])
def test_opening_an_entry_by_kind_or_place_is_a_pick(repo, pick):
    talk = Talk(repo)
    first = talk(FIRST)
    assert first.shown is not None and len(first.shown.items) > 1
    turn = talk(pick)
    assert (turn.transition, turn.lane) == ("T3", "selection"), turn.reasons


@pytest.mark.parametrize("narrowing", ["only the docs folder please",
                                       "same question, just in the tests folder"])
def test_a_narrowing_still_asks_again(repo, narrowing):
    talk = Talk(repo)
    talk(FIRST)
    turn = talk(narrowing)
    assert (turn.transition, turn.lane) == ("T2", "root"), turn.reasons
