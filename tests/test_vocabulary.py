"""The router's vocabulary is data (controller/continuity/vocabulary.toml): every pattern's
examples are messages it takes, and a whole message that says a pattern with an intent routes
to that intent in a real session (a root answer, then one item opened, then the example)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, built_indexes, copy_fixture, seed_home

from controller.continuity import phrases
from controller.continuity.vocabulary_data import CUES, compiled

PARTIAL = {"POLITE_LEAD", "MIXED", "PATH_CUE", "SOURCE_CUE", "QUESTION_LEAD",
           "ENTITY_REFERENT", "DEICTIC", "SCOPE_EXCLUDE",
           "SENSE_WORDS", "AWAY_WORDS", "AGAIN", "SHOW_AGAIN", "CHANNEL_TAG"}
ROUTED = [(name, example, entry["intent"]) for name, entry in sorted(phrases.PATTERNS.items())
          if "intent" in entry for example in entry["examples"]]


@pytest.mark.parametrize("name", sorted(phrases.PATTERNS))
def test_every_example_is_taken_by_its_pattern(name: str) -> None:
    entry = phrases.PATTERNS[name]
    pattern = getattr(phrases, name)
    assert len(entry["examples"]) >= 2 and entry["purpose"]
    for example in entry["examples"]:
        text = example if name in PARTIAL or name.startswith("_") else phrases.body(example)
        assert (pattern.search(text) if name in PARTIAL else pattern.match(text)), example


@pytest.mark.parametrize("name", sorted(CUES))
def test_every_cue_takes_its_examples(name: str) -> None:
    """The lanes' cues (a clarifier's replies, a selection's parts), as they read them."""
    entry = CUES[name]
    assert len(entry["examples"]) >= 2 and entry["purpose"]
    for example in entry["examples"]:
        assert compiled(name).search(example), example


def test_the_lanes_read_their_cues_from_the_vocabulary() -> None:
    from controller.continuity import pending, selection_match

    assert pending._YES is compiled("REPLY_YES") and pending._OK is compiled("REPLY_OK")
    assert selection_match._COMMAND is compiled("SELECT_COMMAND")
    assert selection_match._PRONOUN.flags & compiled("SELECT_PRONOUN").flags


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("vocabulary"))


@pytest.fixture(scope="module")
def indexes(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository indexed once for the module (each test's home gets a copy)."""
    return built_indexes(repo, tmp_path_factory.mktemp("vocabulary_home"))


def test_a_whole_message_routes_to_its_intent(repo: Path, indexes: Path, helix_home: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Every example of every pattern with an intent, each in a session of its own (one home,
    one copy of the index for them all): the ones that do not route to their intent are
    reported together."""
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    seed_home(indexes, helix_home)
    assert len(ROUTED) >= 60
    wrong = []
    for n, (name, example, intent) in enumerate(ROUTED):
        talk = Talk(repo, name=f"voc-{n}-{name}")
        talk(Q)
        talk("open the build_bm25_index one")
        turn = talk(example)
        if turn.intent != intent:
            wrong.append((name, example, intent, turn.intent, turn.transition))
    assert not wrong, wrong


def test_every_filler_list_is_groups_of_one_table() -> None:
    """A filler word has one home: each list the lanes strip is named groups of one table plus
    its own words, no word in two groups, and a longer filler is tried before its prefix."""
    from controller.continuity.vocabulary_data import (
        FILLER_GROUPS,
        FILLER_LISTS,
        filler,
        filler_words,
    )

    seen: dict[str, str] = {}
    for group, words in sorted(FILLER_GROUPS.items()):
        for word in words:
            assert word not in seen, f"{word!r} in {seen.get(word)} and {group}"
            seen[word] = group
    assert set(FILLER_LISTS) == {"choice", "label", "rerun"}
    for name, entry in FILLER_LISTS.items():
        assert set(entry["groups"]) <= set(FILLER_GROUPS) and "polite" in entry["groups"]
        assert not set(entry["words"]) & set(seen), name
        assert set(filler_words(name)) >= set(FILLER_GROUPS["polite"])
    assert filler("rerun").sub("", "same thing").strip() == ""
    assert filler("choice").sub(" ", "OK then, the one about mirrors").split() == [",",
                                                                                 "about",
                                                                                 "mirrors"]
    assert filler("label").sub(" ", "open the tokenizer one now please").split() == [
        "open", "tokenizer"]
