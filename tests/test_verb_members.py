"""`Owner.verb` looks up the owner's members named for the verb, the one product code calls
first (`controller.members`): "where is the search index built?" leads with the build method
the product runs, not with the one only a benchmark calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.channels import Request, execute
from controller.driver import run_controller
from controller.members import first_word, is_support_path
from controller.question import read_question
from controller.text import phrase_tokens
from helix.core.config import load_config
from helix.core.policy import Pools
from helix.core.ports import FakeClock
from indexers.build import ensure_index
from tests.controller_helpers import ask, files_index

QUESTION = "where is the search index built?"
README_QUESTION = "where is the BM25 index built?"  # README.md, its first command
INDEX = (
    "class SearchIndex:\n    \"\"\"Postings of the search index.\"\"\"\n\n"
    "    @classmethod\n    def build(cls, docs):\n"
    "        \"\"\"Tokenize every document and count its terms.\"\"\"\n        return cls()\n\n"
    "    @classmethod\n    def build_with_files(cls, docs, paths):\n"
    "        \"\"\"The chunk postings and the whole-file postings in one pass.\"\"\"\n"
    "        return cls(), cls()\n\n"
    "    @classmethod\n    def build_empty(cls):\n"
    "        \"\"\"Nothing indexed.\"\"\"\n        return cls()\n\n"
    "    def query(self, text):\n        \"\"\"The documents matching text.\"\"\"\n"
    "        return []\n")
REPO = {
    "search/index.py": INDEX,
    # the product builds its index with build_with_files
    "search/pipeline.py": "from search.index import SearchIndex\n\n\n"
                          "def run(docs, paths):\n    \"\"\"Index a repository.\"\"\"\n"
                          "    chunks, files = SearchIndex.build_with_files(docs, paths)\n"
                          "    return chunks\n",
    # only a benchmark (and a test) call build
    "benchmarks/speed.py": "from search.index import SearchIndex\n\n\n"
                           "def bench(docs):\n    \"\"\"Time a build.\"\"\"\n"
                           "    return SearchIndex.build(docs)\n",
    "tests/test_index.py": "from search.index import SearchIndex\n\n\n"
                           "def test_build():\n    assert SearchIndex.build([]) is not None\n",
}


def test_a_members_first_word_and_support_paths() -> None:
    assert [first_word(n) for n in ("build", "build_with_files", "buildIndex", "_build_all",
                                    "HTTPServer", "builds")] == [
        "build", "build", "build", "build", "http", "build"]
    assert is_support_path("benchmarks/speed.py") and is_support_path("tests/test_index.py")
    assert is_support_path("docs/examples/demo.py")
    assert not is_support_path("search/pipeline.py") and not is_support_path("bench.py")


def test_the_owners_verb_members_come_product_callers_first() -> None:
    index = files_index(REPO)
    request = Request(channel="symbol", query="SearchIndex.build", k=5, members=True)
    found = [f.chunk.symbol for f in execute(index, request, None, Pools()).found]
    # build_empty: no product caller, not the exact member: not looked up; build: only a
    # benchmark and a test call it, and the product builds by build_with_files
    assert found == ["SearchIndex.build_with_files"]
    off = Pools(verb_members=False)
    assert [f.chunk.symbol for f in execute(index, request, None, off).found] == [
        "SearchIndex.build"]
    # the words the lookup's span must show hold for the members too
    must = request.model_copy(update={"must": phrase_tokens("postings")})
    assert [f.chunk.symbol for f in execute(index, must, None, Pools()).found] == [
        "SearchIndex.build_with_files"]
    assert execute(index, request.model_copy(update={"must": ("zebra",)}), None,
                   Pools()).found == ()
    plain = request.model_copy(update={"members": False})
    assert [f.chunk.symbol for f in execute(index, plain, None, Pools()).found] == [
        "SearchIndex.build"]


def test_where_is_x_built_leads_with_the_build_the_product_calls() -> None:
    env = ask(files_index(REPO), QUESTION)
    assert env.evidence[0].symbol == "SearchIndex.build_with_files" or (
        [e.symbol for e in env.evidence].index("SearchIndex.build_with_files")
        < [e.symbol for e in env.evidence].index("SearchIndex.build"))
    assert env.answer.splitlines()[0].startswith(
        "The search index is built in `SearchIndex.build_with_files`, search/index.py:")


def test_with_no_product_caller_the_exact_member_still_leads() -> None:
    """A library's methods have no callers inside it: the prior says nothing, and the member
    the question spells keeps its place."""
    library = {"search/index.py": INDEX}
    env = ask(files_index(library), QUESTION)
    assert env.answer.splitlines()[0].startswith(
        "The search index is built in `SearchIndex.build`, search/index.py:")


@pytest.mark.slow  # indexes this repository (lexical only: about 6 s of CPU)
def test_the_readme_question_on_this_repository_cites_build_with_files_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's first example, on Helix itself (dry run, no model, no vectors): the
    index the product searches is built by `BM25Index.build_with_files` (called from
    indexers/build_lexical.py); `BM25Index.build` serves the benchmarks, the tests and the
    cluster router's small index."""
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    root = Path(__file__).resolve().parent.parent
    config = load_config(root, env={})
    config = config.model_copy(update={"index": config.index.model_copy(
        update={"embed_enabled": False})})
    index, _ = ensure_index(root, config)
    env = run_controller(read_question(README_QUESTION, config.retrieval), index, config,
                         query_embedder=None, clock=FakeClock())
    first = env.answer.splitlines()[0]
    assert first.startswith("The BM25 index is built in `BM25Index.build_with_files`, "
                            "indexers/bm25.py:"), first
