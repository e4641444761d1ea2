from __future__ import annotations

from helix.core.english import stems
from indexers.bm25 import BM25Index
from indexers.tokenize import tokenize


def test_the_inflection_strength_offers_base_forms() -> None:
    assert stems("decided", "inflection")[0] == "decide"
    assert stems("built", "inflection") == ("build", "built")
    assert stems("indexes", "inflection")[0] == "index"
    assert "build" in stems("building", "inflection")
    assert "stop" in stems("stopped", "inflection")
    assert stems("policies", "inflection")[0] == "policy"
    assert stems("class", "inflection") == ("class",)


def test_query_word_unknown_to_the_corpus_matches_its_base_form() -> None:
    docs = {"a": "def decide_retry(attempt): the retry policy", "b": "retry budget and backoff",
            "c": "unrelated text about graphs"}
    index = BM25Index.build(list(docs), [tokenize(t) for t in docs.values()])
    hits = index.search("where is the retry decided", 3)
    assert hits[0][0] == "a"
    # a known word is used as is, never replaced
    assert index.known_forms(["retry", "decided", "zzzqqq"]) == ["retry", "decide"]
