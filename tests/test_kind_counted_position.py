"""A position said with a kind of item ("the second test", "test #5", "the 3rd doc") counts
among the listed items of that kind, not over the whole list: the second test is the second
listed test, and a position beyond the tests the list shows is a boundary that says how many
it shows (issue 32, router25a). Real sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, copy_fixture

from controller.continuity.item_names import item_kind
from helix.core.hashing import short_id

LISTS = "how is the free spectral range computed?"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("kinds"))


def _listed(repo: Path, said: str) -> tuple[Talk, list]:
    talk = Talk(repo, name=f"kinds-{short_id('kinds', said)}")
    talk(LISTS)
    pool = talk.state().option_sets[0]
    return talk, list(pool.items)


@pytest.mark.parametrize("said", ["open the first test", "show test #1 please"])
def test_a_position_of_a_kind_opens_that_kinds_item(repo, said):
    talk, items = _listed(repo, said)
    tests = [i for i in items if item_kind(i) == "test"]
    assert tests and item_kind(items[0]) != "test"
    turn = talk(said)
    assert turn.transition == "T3" and turn.opened is not None, turn.answer
    assert turn.opened.target.path == tests[0].target.path


def test_a_position_beyond_the_listed_items_of_its_kind_is_a_boundary(repo):
    talk, items = _listed(repo, "beyond")
    tests = [i for i in items if item_kind(i) == "test"]
    beyond = len(tests) + 1
    assert beyond <= len(items)  # the whole list has that many: only the tests are fewer
    turn = talk(f"open test number {beyond}")
    assert turn.transition == "T10", turn.answer
    assert f"there is no test {beyond}" in turn.answer


@pytest.mark.parametrize("said", ["open the second one", "the 2nd result please"])
def test_a_position_without_a_kind_counts_over_the_whole_list(repo, said):
    talk, items = _listed(repo, said)
    turn = talk(said)
    assert turn.opened is not None and turn.opened.target.id == items[1].target.id, turn.answer
