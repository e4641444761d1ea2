"""A misspelt plain word of a question is read as the repository's word one edit away, and the
answer says so (`controller.question_spelling`, `indexers.bm25.BM25Index.spelled_as`)."""

from __future__ import annotations

from controller.question_spelling import respelled_question
from helix.core.config import HelixConfig
from indexers.bm25 import BM25Index, one_edit_words
from tests.controller_helpers import ask, files_index

FILES = {
    "search/tokenizer.py": "class Tokenizer:\n    \"\"\"A tokenizer with a minimum token "
                           "length.\"\"\"\n",
    "search/engine.py": "from search.tokenizer import Tokenizer\n\n\nclass Engine:\n"
                        "    \"\"\"Ranks documents; the tokenizer splits them.\"\"\"\n",
    "docs/search.md": "# Search\n\nThe tokenizer lower-cases every document.\n",
}


def test_one_edit_words_hold_swaps_deletions_replacements_and_insertions() -> None:
    near = one_edit_words("tokneizer")
    assert {"tokenizer"} <= near and "tokneizer" not in near
    assert "tokneize" in near and "tokneizers" in near and "tokneizar" in near


def test_the_index_reads_a_misspelt_word_and_leaves_known_ones() -> None:
    bm25 = BM25Index.build(["a", "b", "c"], [["tokenizer", "engine", "applies"],
                                             ["tokenizer", "applies"], ["tokenize"]])
    assert bm25.spelled_as("tokneizer") == "tokenizer"  # a swap, held by two documents
    assert bm25.spelled_as("tokenizer") is None  # known
    assert bm25.spelled_as("tokenizers") is None  # an inflection of a known word
    assert bm25.spelled_as("enigne") is None  # one document holds "engine": not enough
    assert bm25.spelled_as("frobnicator") is None
    assert bm25.spelled_as("applied") is None  # another form of "applies", not a typo of it


def test_a_short_word_is_read_only_as_the_one_word_it_misses_a_letter_of() -> None:
    bm25 = BM25Index.build(["a", "b", "c"], [["cavity", "memory", "test", "pool", "pools"],
                                             ["cavity", "memory", "test", "pool", "cavities"],
                                             ["token", "mode"]])
    english = frozenset({"pool", "wat", "code", "mode", "test"})
    assert bm25.spelled_as("cavty", real_words=english) == "cavity"  # one letter missing
    assert bm25.spelled_as("memry", real_words=english) == "memory"
    assert bm25.spelled_as("tset", real_words=english) == "test"  # two letters swapped
    assert bm25.spelled_as("cavty") is None  # no English to tell a slip from a word
    assert bm25.spelled_as("code", real_words=english) is None  # an English word
    assert bm25.spelled_as("wat", real_words=english) is None  # three letters: never
    assert bm25.spelled_as("tokn", real_words=english) is None  # one document holds "token"
    assert bm25.spelled_as("mmory", real_words=english) == "memory"
    assert bm25.spelled_as("memorx", real_words=english) == "memory"  # six: the long rule
    assert bm25.spelled_as("pol", real_words=english) is None
    assert bm25.spelled_as("tesst", real_words=english) is None  # one letter extra: not short


def test_a_short_misspelt_word_of_a_question_is_read_and_said() -> None:
    files = {**FILES, "optics/cavity.py": "class Cavity:\n    \"\"\"An optical cavity.\"\"\"\n",
             "docs/cavity.md": "# Cavity\n\nA cavity holds light between two mirrors.\n"}
    env = ask(files_index(files), "where is the cavty defined?")
    assert env.answer.splitlines()[0] == ("(Read 'cavty' as 'cavity': the repository has no "
                                          "such word.)")
    assert "Read" not in ask(files_index(files), "where is the pool defined?").answer


def test_the_question_is_asked_with_the_word_read_and_the_answer_says_so() -> None:
    index = files_index(FILES)
    env = ask(index, "where is the tokneizer defined?")
    assert env.answer.splitlines()[0] == ("(Read 'tokneizer' as 'tokenizer': the repository "
                                          "has no such word.)")
    assert env.evidence and env.evidence[0].path == "search/tokenizer.py"
    assert env.question == "where is the tokneizer defined?"  # the question as asked
    off = HelixConfig.model_validate({"retrieval": {"respell": False}})
    assert "Read" not in ask(index, "where is the tokneizer defined?", off).answer


def test_function_words_and_identifiers_are_never_respelt() -> None:
    def everything(word: str) -> str:  # a vocabulary that would respell any word
        return "x" + word

    question = "where is the build_index of SearchEngine and the docs/search.md there"
    text, read = respelled_question(question, everything)
    assert read == () and text == question
    assert "build_index" in text and "SearchEngine" in text and "docs/search.md" in text
    text, read = respelled_question("where is the Tokneizer", lambda w: "tokenizer")
    assert text == "where is the Tokenizer" and read == (("Tokneizer", "tokenizer"),)
