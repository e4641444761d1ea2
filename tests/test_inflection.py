from __future__ import annotations

from helix.core.english import inflection_variants
from indexers.bm25 import BM25Index
from indexers.tokenize import tokenize


def test_inflection_variants_offer_base_forms() -> None:
    assert inflection_variants("decided")[0] == "decide"
    assert inflection_variants("built") == ("build",)
    assert inflection_variants("indexes")[0] == "index"
    assert "build" in inflection_variants("building")
    assert "stop" in inflection_variants("stopped")
    assert inflection_variants("policies")[0] == "policy"
    assert inflection_variants("class") == ()


def test_query_word_unknown_to_the_corpus_matches_its_base_form() -> None:
    docs = {"a": "def decide_retry(attempt): the retry policy", "b": "retry budget and backoff",
            "c": "unrelated text about graphs"}
    index = BM25Index.build(list(docs), [tokenize(t) for t in docs.values()])
    hits = index.search("where is the retry decided", 3)
    assert hits[0][0] == "a"
    # a known word is used as is, never replaced
    assert index.known_forms(["retry", "decided", "zzzqqq"]) == ["retry", "decide"]
