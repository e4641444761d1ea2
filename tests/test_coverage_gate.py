"""The coverage gate reads an answer's subject the way the router reads a question (issue 32):
an ordinary opening question whose evidence shows its subject is grounded, so the user can
follow up on it; an answer whose evidence never shows what was asked stays ungrounded (its
spans may be opened, nothing else carries). Real sessions over the continuity fixture."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, copy_fixture

from controller.coverage import shows_subject, subject_tokens
from controller.text import token_set


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("gate"))


# the verb of the question's frame ("what does X compute"), a hedge, a kind noun, a word the
# code inflects otherwise ("ranking" / "ranks"), a polite frame
GROUNDED = [
    ("what does idf compute?", "who calls it?"),
    ("how does the tokenizer handle stop words?", "code only"),
    ("what does the rebuild method do exactly?", "who calls it?"),
    ("how does the search engine make the ranking?", "only in search/"),
    ("If possible, could you show me where the tokenizer lower-cases text?", "who calls it?"),
]


@pytest.mark.parametrize(("question", "follow_up"), GROUNDED)
def test_an_opening_question_whose_evidence_shows_its_subject_can_be_followed_up(
        repo, question, follow_up):
    talk = Talk(repo)
    first = talk(question)
    assert first.envelope is not None and first.envelope.evidence
    gate = talk.state().coverage_gate_state
    assert (gate.grounding_status, gate.carryover_eligibility) == ("grounded", "full")
    turn = talk(follow_up)
    assert turn.transition != "T10", turn.answer
    assert "coverage gate" not in turn.answer


# evidence, but never the thing asked: a subject lacking one of its words (a name's or a
# sentence-long subject's)
UNGROUNDED = [
    "where is the tokenizer cache configured?",
    "where is the BM25Index cache built?",
    "where is the tokenizer cache size set?",
    "how does the search engine cache its results?",
]


@pytest.mark.parametrize("question", UNGROUNDED)
def test_an_answer_that_never_shows_what_was_asked_stays_ungrounded(repo, question):
    talk = Talk(repo)
    first = talk(question)
    assert first.envelope is not None and first.envelope.evidence
    gate = talk.state().coverage_gate_state
    assert (gate.grounding_status, gate.carryover_eligibility) == ("ungrounded", "object_only")
    # round 26 (router26c): a pointing follow-up acts on the closest match the answer showed
    # first (the gate's object_only carryover), said in one line; the answer stays ungrounded
    more = talk("tell me more about that")
    assert more.transition == "T4", more.answer
    assert more.answer.startswith("Read 'that' as ") and "the closest match shown" in more.answer
    gate = talk.state().coverage_gate_state
    assert (gate.grounding_status, gate.carryover_eligibility) == ("ungrounded", "object_only")


@pytest.mark.parametrize(("phrase", "tokens"), [
    ("idf compute", ("idf",)),  # "what does idf compute?": the asking verb in any form
    ("avg_length computes", ("avg_length",)),
    ("SearchEngine.rebuild exactly", ("searchengine.rebuild",)),  # a hedge
    ("rebuild method engine", ("rebuild", "engine")),  # a kind noun
    ("tokenizer handles stop words", ("tokenizer", "stop", "word")),
    ("index setting", ("index", "setting")),  # an -ing noun is kept
    ("tokenizer cache", ("tokenizer", "cache")),
])
def test_subject_tokens_drop_the_question_frame(phrase, tokens):
    assert subject_tokens(phrase) == tokens


def test_a_subject_is_shown_by_every_word_each_matched_by_its_stem():
    assert shows_subject(token_set("the engine ranks documents"), "engine ranking")
    assert shows_subject(token_set("def idf(self, term): ..."), "idf compute")
    assert not shows_subject(token_set("build the engine index"), "engine builds index startup")
    assert not shows_subject(token_set("the tokenizer"), "tokenizer cache")
    assert not shows_subject(token_set("token counts"), "tokenizer")  # no -er cut
