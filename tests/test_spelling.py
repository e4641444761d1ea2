"""Typos in the router's own words are read as those words, only when that turns a would-be
new question into a follow-up (`controller.continuity.spelling`, `router.route_turn`)."""

from __future__ import annotations

import random
import string

import pytest
from talk_fixtures import Q, Talk, copy_fixture

from controller.continuity.spelling import near_words, one_edit, respelled, vocabulary_words


@pytest.mark.parametrize(("typed", "read"), [
    ("thnaks", "thanks"), ("who clals it", "who calls it"), ("satrt over", "start over"),
    ("wehre is it used", "where is it used"), ("nveer mind", "never mind"),
    ("what tsets cover it", "what tests cover it")])
def test_a_swapped_or_dropped_letter_in_a_router_word_is_read_as_that_word(typed, read):
    assert respelled(typed)[0] == read


def test_words_that_are_not_one_edit_from_exactly_one_router_word_stay():
    assert respelled("where is the BM25 index built")[1] == ()
    assert respelled("how is the resnoator modelled")[1] == ()
    assert not one_edit("it", "is")  # short words are never respelt
    assert one_edit("tset", "test") and not one_edit("test", "test")


def test_a_misspelt_follow_up_is_routed_as_the_follow_up(tmp_path):
    talk = Talk(copy_fixture(tmp_path))
    talk(Q)
    turn = talk("who clals it?")
    assert turn.intent == "graph_callers" and turn.retrieval is False
    assert any("read 'clals' as 'calls'" in r for r in turn.reasons)
    assert talk("satrt over").intent == "reset"


def test_a_real_question_is_never_respelt(tmp_path):
    talk = Talk(copy_fixture(tmp_path))
    talk(Q)
    turn = talk("what does the form validation do?")  # 'form' is one swap from 'from'
    assert turn.lane == "root" and not any("read '" in r for r in turn.reasons)
    assert talk.asked[-1][0] == "what does the form validation do?"


def _brute_close(word: str) -> set[str]:
    """The reference: every vocabulary word compared (the router's loop before the index)."""
    return {v for v in vocabulary_words() if abs(len(v) - len(word)) <= 1 and one_edit(word, v)}


def _typos(word: str) -> set[str]:
    letters = "aeirstx"
    out = {word[:i] + word[i + 1:] for i in range(len(word))}
    out |= {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    out |= {word[:i] + c + word[i + 1:] for i in range(len(word)) for c in letters}
    out |= {word[:i] + c + word[i:] for i in range(len(word) + 1) for c in letters}
    return out


def test_the_deletion_index_finds_every_word_one_edit_away():
    """`near_words` is a superset of the words `one_edit` accepts: the respelt reading is the
    one the whole-vocabulary comparison gives (typos of vocabulary words and random words)."""
    rng = random.Random(5)
    words = sorted(vocabulary_words())
    typed = {t for w in rng.sample(words, 40) for t in _typos(w)}
    typed |= {"".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))
              for _ in range(300)}
    for word in sorted(typed):
        assert _brute_close(word) <= near_words(word), word


def test_respelling_compares_a_typed_word_with_a_few_vocabulary_words(monkeypatch):
    """A typed word is compared (`one_edit`) only with the words its deletion keys share, not
    with the whole vocabulary (a warm turn spent a millisecond here, twice)."""
    import controller.continuity.spelling as spelling

    calls = []
    real = spelling.one_edit
    monkeypatch.setattr(spelling, "one_edit", lambda a, b: calls.append(b) or real(a, b))
    assert respelled("who clals the resnoator")[0] == "who calls the resnoator"
    assert 0 < len(calls) < len(vocabulary_words()) // 20
