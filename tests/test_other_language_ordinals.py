"""A pick said with another language's ordinal (issue 32, router28b): "dusri wali", "ikalawa",
"la deuxieme", "die dritte", "numero uno" and a list noun dashed to its number ("ITEM-2") name a
position of the list on screen. On main the reader read them as picks but no ordinal reader knew
the word, so the turn became a boundary ("nothing like ... is in the list on screen"); a noun
after the ordinal across a comma ("the first, show it") is no unshown thing either.
Unit checks, then real sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, indexed_copy

from controller.continuity.meaning import ordinals_in
from controller.continuity.selection_match import parse_selection_input
from controller.continuity.vocabulary_data import positions_said


@pytest.mark.parametrize(("text", "position"), [
    ("dusri wali kholna", 2), ("ikalawa po", 2), ("la deuxieme s'il te plait", 2),
    ("die dritte bitte", 3), ("abre el primero", 1), ("ang una lang", 1),
    ("numero uno", 1), ("ITEM-2 pls", 2), ("result-4", 4)])
def test_a_position_said_in_another_language_is_read(text, position):
    assert ordinals_in(text) == [position]
    assert parse_selection_input(text).ordinal == position


@pytest.mark.parametrize("text", [
    "una funcion que ordena", "the premier-league table", "x-2 offset", "the first-class api"])
def test_words_that_are_no_position_stay(text):
    assert positions_said(text) == text or ordinals_in(text) == []


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


pytestmark = pytest.mark.usefixtures("cached_builds")


@pytest.mark.parametrize("pick", ["dusri wali kholna", "ang ikalawa, buksan mo",
                                  "la deuxieme, montre-la", "ITEM-2 OPEN",
                                  "the second please, I'd like it open"])
def test_an_other_language_pick_opens_that_item(repo, pick):
    talk = Talk(repo)
    first = talk(Q)
    assert first.shown is not None and len(first.shown.items) >= 2
    turn = talk(pick)
    assert turn.transition == "T3" and turn.opened is not None, turn.answer
    assert turn.opened.target.id == first.shown.items[1].target_id
