"""Absence claims found by what they say, not by a list of phrases: a negation over finding,
existence or the evidence, in wordings no pattern names, is a claim the contract checks against
the evidence whatever it cites; a sentence about what code does is not one. The deterministic
answers of the golden questions make no claim their own evidence contradicts."""

from __future__ import annotations

import pytest
from controller_helpers import ask, fixture_index
from helpers_synthesis import envelope

from helix.synthesis.absence import absence_claims, contradicted, evidence_words
from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
from helix.synthesis.prompt import build_prompt

REFS = build_prompt(envelope()).refs

CLAIMS = [
    "The tool results are empty [E1].",
    "The search returned nothing useful [E1].",
    "Nothing relevant turned up in the search [E1].",
    "The retrieved excerpts say nothing about it [E1].",
    "The evidence lacks any discussion of this [E1].",
    "No result came back for that [E1].",
    "The results were empty, so I can only guess [E1].",
    "We saw no trace of it [E1].",
    "I spotted nothing of the kind [E1].",
    "None of the passages touch on it [E1].",
    "The context is silent and holds nothing on this [E1].",
    "The lookup came back empty [E1].",
    "Sadly the snippets provided are devoid of it [E1].",
    "The given material has no information on that [E1].",
    "The search produced zero matches [E1].",
    # no negation word: silent, unexplained, outside, left open (issue 32, third round)
    "The excerpts are mute on this [E1].",
    "These excerpts leave it unexplained [E1].",
    "That happens somewhere outside the material I was handed [E1].",
    "It is left open by the material I was given [E1].",
]

NOT_CLAIMS = [
    "The search returns no results for an empty query [E1].",
    "If the file does not exist, `load` raises FileNotFoundError [E1].",
    "No retries happen for permanent errors [E1].",
    "The index has no vectors until the worker finishes [E1].",
    "It returns None when the cache holds nothing [E1].",
    "The parser never reads the file twice [E1].",
    "`decide_retry` gives up after MAX_ATTEMPTS attempts [E1].",
    "An empty list disables the filter [E1].",
    "Requests beyond the limit are left unanswered [E1].",
    "The door is left open until the timer fires [E1].",
]


@pytest.mark.parametrize("answer", CLAIMS)
def test_a_claim_in_new_words_is_found_and_refused_with_evidence(answer: str) -> None:
    assert absence_claims(answer), answer
    result = check_answer(answer, REFS)
    assert not result.ok and result.reason == NO_EVIDENCE_CLAIM


@pytest.mark.parametrize("answer", NOT_CLAIMS)
def test_what_code_does_is_not_a_claim(answer: str) -> None:
    assert absence_claims(answer) == [], answer
    assert check_answer(answer, REFS).ok


def test_a_claim_about_named_terms_is_checked_against_the_evidence() -> None:
    (claim,) = absence_claims("The search returned nothing about the backoff policy [E1].")
    assert set(claim.terms) >= {"backoff", "policy"}
    assert contradicted(claim, evidence_words(["def backoff_policy(): the backoff policy"]))
    assert not contradicted(claim, evidence_words(["def retry(): pass"]))


@pytest.mark.parametrize("question", [
    "where is the retry policy decided?", "how does the retry policy work?",
    "what is MAX_ATTEMPTS?", "who calls decide_retry?", "what does the README say about "
    "retries?", "is the backoff in seconds?"])
def test_deterministic_answers_make_no_claim_their_evidence_contradicts(question: str) -> None:
    env = ask(fixture_index("answer_repo"), question)
    words = evidence_words(e.text for e in env.evidence)
    assert env.evidence
    bad = [c for c in absence_claims(env.answer or "") if contradicted(c, words)]
    assert bad == [], env.answer


def test_exemplar_vectors_through_the_embedding_cache_are_one_lookup(tmp_path, monkeypatch):
    """The exemplars' vectors through the embedding cache (`helix ask`'s exemplar embedder):
    one call for each list, each text still embedded alone (the same vectors), and a later
    process reads them back without embedding any (one cache lookup, not one a text)."""
    import numpy as np

    from helix.core.config import HelixConfig
    from helix.core.ports import FakeEmbedder
    from helix.synthesis import absence_meaning as am
    from indexers.embed_cache import CachedEmbedder

    calls: list[int] = []
    real = CachedEmbedder.embed

    def counted(self, texts):  # type: ignore[no-untyped-def]
        calls.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(CachedEmbedder, "embed", counted)
    policy = HelixConfig().synthesis.absence
    monkeypatch.setattr(am, "_VECTORS", {})
    inner = FakeEmbedder()
    meaning = am.AbsenceMeaning(FakeEmbedder(), policy,
                                exemplar_embedder=CachedEmbedder(inner, tmp_path / "cache"))
    absence, answer = meaning._exemplar_vectors()
    sizes = [len(meaning.ex.absence), len(meaning.ex.answer)]
    assert calls == sizes and inner.calls == inner.texts_embedded == sum(sizes)
    alone = FakeEmbedder()
    for got, texts in ((absence, meaning.ex.absence), (answer, meaning.ex.answer)):
        np.testing.assert_array_equal(got, np.vstack([alone.embed([t]) for t in texts]))
    monkeypatch.setattr(am, "_VECTORS", {})  # another process: the cache has them
    later = FakeEmbedder()
    again = am.AbsenceMeaning(FakeEmbedder(), policy,
                              exemplar_embedder=CachedEmbedder(later, tmp_path / "cache"))
    read_back = again._exemplar_vectors()
    assert later.calls == 0 and len(calls) == 4
    np.testing.assert_array_equal(read_back[0], absence)
