"""A question about the last answer inside a longer sentence is still about the answer (T8,
meta or semantic lane): how sure 'you' are, where the answer came from (the docs or the code),
why a file or a result was put first, whether this is the only place. A question about the code
that shares a word with those ('where does it get the documents from?', 'from where is main
called?') is not. Real sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, copy_fixture

from controller.continuity import phrases as say
from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("meta"))


ABOUT_THE_ANSWER = [
    "ok, and how confident are you that it counts every document?",
    "be honest, are you really sure about the index part",
    "hmm, where did you find that? the readme?",
    "is that based on the docs or the code",
    "why did you show bm25.py at the top",
    "why was the engine file listed first",
    "so is this the only place the index gets built?",
]


@pytest.mark.parametrize("message", ABOUT_THE_ANSWER)
def test_a_question_about_the_answer_in_a_sentence_is_meta(repo, message):
    talk = Talk(repo, name=f"meta-{short_id('meta', message)}")
    talk(Q)
    turn = talk(message)
    # the semantic lane answers some questions about the answer too (T8 either way)
    assert turn.transition == "T8" and turn.lane in ("meta", "semantic"), turn.reasons


ABOUT_THE_CODE = [
    "where does it get the documents from?",
    "from where is build_bm25_index called?",
    "why does the engine sort by score first?",
    "where does that value come from in idf?",
]


@pytest.mark.parametrize("message", ABOUT_THE_CODE)
def test_a_question_about_the_code_is_not_taken_for_one_about_the_answer(message):
    assert say.META_ASKED.match(say.body(say.without_small_talk_lead(message))) is None
