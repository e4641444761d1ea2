"""Items the router reads exactly (issue 32, router14): a position or a listed name the rules
placed reaches the selection lane as a position, not as words the lane has to match again
(which asked which item was meant, and left a selection clarifier pending for the next turns).
Real sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, indexed_copy

pytestmark = pytest.mark.usefixtures("cached_builds")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def test_a_position_the_rules_read_is_opened_without_a_clarifier(repo):
    """"open number three": the rules read position 3 exactly and hand it to the selection
    lane as one; on main the lane re-read the words, found no ordinal in "number three" and
    asked which item was meant."""
    talk = Talk(repo)
    first = talk(Q)
    turn = talk("open number three")
    assert (turn.transition, turn.answer_mode) == ("T3", "continuity"), turn.answer
    assert turn.opened is not None and turn.opened.target.id == first.shown.items[2].target_id


def test_a_listed_name_said_with_its_kind_opens_that_item(repo):
    """"The SearchEngine class, open it please.": one listed item is named by its own name
    (SearchEngine, not SearchEngine.search) and the kind agrees: it opens; on main the lane
    matched the words "class" and "open" against the labels and asked which one."""
    talk = Talk(repo)
    first = talk("Could you please show me where the search engine is defined?")
    engine = next(i for i in first.shown.items if i.label == "SearchEngine")
    turn = talk("The SearchEngine class, open it please.")
    assert turn.transition == "T3" and turn.opened is not None, turn.answer
    assert turn.opened.target.id == engine.target_id
