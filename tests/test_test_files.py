"""A question that asks about tests: the test files' own list (`pools.test_files`, round 29)."""

from __future__ import annotations

from controller_helpers import ask, files_index

from controller.channels import Request, execute
from controller.fusion import FAMILIES, Ranked, channel_weight, rrf
from helix.core.config import HelixConfig, RetrievalSettings
from helix.core.policy import Pools
from indexers.api import IndexReader

# The cache's code says "cache", "loaded", "modified" many times over; the test that checks
# the flag after a load says it once each, so chunk BM25 over everything ranks the code first.
FILES = {
    "pkg/cache.py": '''class Cache:
    """The cache: loaded entries, modified flag; a loaded cache is not modified."""

    def load(self, data):
        """Load the cache; the loaded cache is not modified until an entry is modified."""
        self.entries = dict(data)
        self.modified = False

    def set(self, key, value):
        """Set an entry of the cache: the cache is modified."""
        self.entries[key] = value
        self.modified = True
''',
    "pkg/store.py": '''def save_cache(cache, path):
    """Write the cache when it was modified since it was loaded; a loaded cache is kept."""
    if cache.modified:
        write(path, cache.entries)
''',
    # a long test: its one mention of each word weighs little against the code's
    "tests/test_cache.py": '''def test_flag_after_load(tmp_path):
    c = Cache()
''' + "".join(f"    c.put('k{n}', {n})\n    c.drop('k{n}')\n" for n in range(12))
    + '''    c.load({"a": 1})
    assert not c.modified
''',
    "tests/test_other.py": '''def test_upper():
    assert upper("a") == "A"
''',
    **{f"pkg/extra{n}.py": f'''def unrelated_{n}(value):
    """Format the value number {n} for display."""
    return str(value).upper()
''' for n in range(6)},
}

QUESTION = "which test checks the modified flag of the cache after it is loaded"
NOT_TESTS = "how is the modified flag of the cache set after it is loaded"


def _index() -> IndexReader:
    return files_index(FILES)


def _on(k: int = 5, weight: float = 1.0) -> HelixConfig:
    return HelixConfig().model_copy(update={"retrieval": RetrievalSettings(
        pools=Pools(test_files=k, w_test_files=weight))})


def test_the_list_ranks_test_files_only_by_their_pooled_bm25() -> None:
    index = _index()
    request = Request(channel="test_files", query=QUESTION, k=5)
    paths = [f.chunk.path for f in execute(index, request, None, Pools()).found]
    # test_other.py holds only the word "test"
    assert paths == ["tests/test_cache.py", "tests/test_other.py"]
    every = Request(channel="files", query=QUESTION, k=5)
    assert len(execute(index, every, None, Pools()).found) > 2  # the plain list: code too


def test_the_seed_asks_for_it_only_when_on_and_the_question_asks_about_tests() -> None:
    index = _index()
    assert all("test_files" not in s.channels for s in ask(index, QUESTION).controller_steps)
    on = ask(index, QUESTION, _on())
    assert "test_files" in on.controller_steps[0].channels
    assert all("test_files" not in s.channels
               for s in ask(index, NOT_TESTS, _on()).controller_steps)


def _place(envelope: object, path: str = "tests/test_cache.py") -> int:
    paths = [e.path for e in envelope.evidence]  # type: ignore[attr-defined]
    return paths.index(path)


def test_the_test_a_question_asks_about_comes_forward() -> None:
    index = _index()
    hand = ask(index, QUESTION)
    assert _place(hand) == 2  # behind the cache's code and the store's
    assert _place(ask(index, QUESTION, _on())) == 1
    assert ask(index, QUESTION, _on()).evidence == ask(index, QUESTION, _on()).evidence


def test_the_list_is_one_lexical_vote_with_bm25() -> None:
    settings = RetrievalSettings(pools=Pools(w_test_files=0.5))
    assert channel_weight("test_files", settings) == 0.5
    assert FAMILIES["test_files"] == "bm25"
    lists = [Ranked(channel="bm25", query="q", chunk_ids=("a", "t")),
             Ranked(channel="test_files", query="q", chunk_ids=("t",))]
    fused = {f.chunk_id: f.score for f in rrf(lists, settings)}
    k = settings.rrf_k
    assert fused["t"] == round(max(settings.w_bm25 / (k + 2), 0.5 / (k + 1)), 9)
    assert Pools().test_files == 0  # off by default
