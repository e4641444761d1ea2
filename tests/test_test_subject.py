"""Whether a question's subject is a test, by its first clause's syntax (round 30)."""

from __future__ import annotations

from controller_helpers import ask, files_index
from test_test_files import FILES, QUESTION

from controller.test_subject import first_clause, subject_is_test
from helix.core.config import HelixConfig, RetrievalSettings
from helix.core.policy import Pools


def test_a_test_word_heading_the_wh_phrase_or_the_subject() -> None:
    assert subject_is_test("Which test verifies that a curried method binds?")
    assert subject_is_test("What fixture does the module set up before each case?")
    assert subject_is_test("How does the suite confirm that subclasses keep their type?")
    assert subject_is_test("Where is the test that checks a path is rejected?")
    assert subject_is_test("How does the test for the substituting reader reuse cases?")
    assert subject_is_test("Why does the XML lookup test expect an error?")  # then its verb
    assert subject_is_test("Where are the shared test helpers defined?")  # a part of a suite
    assert subject_is_test("Where is the regression test ensuring the stats stay readable?")
    assert subject_is_test("How is the main parser test suite parametrised to run twice?")


def test_a_test_word_that_modifies_code_or_sits_in_a_phrase_after_it() -> None:
    # the head is the listener, closed by the comma, not a verb
    assert not subject_is_test("Why does the strictness-aware test listener, in warning "
                               "mode, print hints only for failing tests?")
    assert not subject_is_test("How does the integration release mocks injected as test "
                               "method parameters?")
    assert not subject_is_test("Which testing logger just records whatever is called?")
    assert not subject_is_test("Why is the primality test exact for large inputs?")
    assert not subject_is_test("What is the relationship between the test runner's "
                               "isolation manager and the mixer?")
    assert not subject_is_test("Where is the logic that keeps a pair intact, and which test "
                               "checks it?")  # the test is in the second clause
    assert not subject_is_test("how can I fake the local timezone in my tests?")
    assert not subject_is_test("Run the test suite")  # not a wh-question
    assert not subject_is_test("")


def test_the_first_clause_ends_at_its_first_mark() -> None:
    assert first_clause("Why does X, in Y, do Z?") == ["why", "does", "x"]
    assert first_clause("How do the A-B tests work?") == ["how", "do", "the", "a-b", "tests",
                                                          "work"]


def _on(subject: bool) -> HelixConfig:
    return HelixConfig().model_copy(update={"retrieval": RetrievalSettings(
        pools=Pools(test_files=5, test_files_subject=subject))})


def test_the_list_runs_only_for_a_test_subject_when_restricted() -> None:
    index = files_index(FILES)
    about_code = "how is the cache's modified flag set after a load, as the tests check it"

    def lists(question: str, config: HelixConfig) -> bool:
        return any("test_files" in s.channels for s in ask(index, question, config)
                   .controller_steps)

    assert lists(about_code, _on(False))  # any test word asks (round 29)
    assert not lists(about_code, _on(True))
    assert lists(QUESTION, _on(True))  # "which test checks ..."
    assert Pools().test_files_subject is False  # off by default


def test_the_rule_reads_the_question_with_its_punctuation() -> None:
    """The routed text drops commas: read there, "the cache test listener, after a load, sets"
    would take "listener" for the verb (round 30's first end-to-end run did so)."""
    index = files_index(FILES)
    question = "Why does the cache test listener, after a load, set the modified flag?"
    assert not subject_is_test(question)
    assert all("test_files" not in s.channels
               for s in ask(index, question, _on(True)).controller_steps)
    assert any("test_files" in s.channels
               for s in ask(index, question, _on(False)).controller_steps)
