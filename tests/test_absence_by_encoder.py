"""Absence claims by meaning (issue 32): the contract refuses an answer that says, in any
wording, that the evidence lacks the answer while the evidence holds it. The sentence encoder
is injected: a deterministic fake for the plumbing, the shipped all-MiniLM-L6-v2 (numpy
encoder, no torch) on the hand-written answers of data/evals/meaning/absence_answers.json."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from helpers_synthesis import envelope

from helix.core.config import AbsencePolicy, HelixConfig, SynthesisSettings, load_config
from helix.core.errors import UnknownModelError
from helix.core.ports import FakeClock, FakeEmbedder
from helix.synthesis.absence_meaning import AbsenceMeaning, load_exemplars, masked, spans
from helix.synthesis.answer import synthesize
from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
from helix.synthesis.fake_llm import FakeLLM
from helix.synthesis.prompt import citation_refs
from indexers.embed_cache import CachedEmbedder

ISSUE = ["There's nothing in these files that decides retries; see src/retry.py:10-12",
         "The snippets shown are unrelated to retrying [E1][E2]"]
ENV = envelope()  # E1 src/retry.py:10-12 decide_retry, E2 docs/retries.md:1-3
REFS = citation_refs(ENV.evidence)
DATA = Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning" / "absence_answers.json"


class Marker:
    """A fake encoder that knows meaning by a marker: the absence exemplars and any text
    saying "unrelated" or "nothing in" point one way, everything else the other."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.ex = load_exemplars()

    model_key = "fake-marker"
    dim = 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += texts
        rows = [[1.0, 0.0] if t in self.ex.absence or (
            t not in self.ex.answer and ("unrelated" in t or "nothing in" in t))
            else [0.0, 1.0] for t in texts]
        return np.array(rows, dtype=np.float32)


@pytest.mark.parametrize("answer", ISSUE)
def test_the_issue_paraphrases_pass_the_rules_and_are_refused_by_meaning(answer: str) -> None:
    assert check_answer(answer, REFS, evidence=ENV.evidence).ok  # the phrase rules miss it
    result = check_answer(answer, REFS, evidence=ENV.evidence,
                          meaning=AbsenceMeaning(Marker(), AbsencePolicy()))
    assert not result.ok and result.reason == NO_EVIDENCE_CLAIM


def test_an_ordinary_answer_is_never_compared_nor_refused() -> None:
    fake = Marker()
    meaning = AbsenceMeaning(fake, AbsencePolicy())
    for answer in ["Retries are decided by `decide_retry` [E1]; it gives up after 5 attempts.",
                   "The evidence says: def decide_retry(attempt, error) [E1]",
                   "decide_retry never retries a permanent error [E1]."]:
        assert check_answer(answer, REFS, evidence=ENV.evidence, meaning=meaning).ok
    # no sentence speaks of the material and of something missing: nothing was embedded
    assert fake.texts == []


def test_a_claim_is_compared_with_the_subject_masked() -> None:
    held = frozenset({"retry", "retrying", "decide", "ledger", "posts"})
    ex = load_exemplars()
    assert masked("The snippets shown are unrelated to retrying ledger posts [E1][E2]",
                  held, ex) == "The snippets shown are unrelated to it"
    # a citation is cut out, an identifier or number masked
    assert masked("Nothing in src/retry.py:10 or `MAX_ATTEMPTS` explains 5 tries.",
                  held, ex) == "Nothing in or ` it ` explains it tries."
    found = spans("decide_retry decides [E1]. The excerpts I have are silent on the "
                  "backoff, but the docs are not.", held, ex)
    assert [s.masked for s in found] == [
        "The excerpts I have are silent on the backoff, but the docs are not.",
        "The excerpts I have are silent on the backoff",
        "but the docs are not."]


def test_a_sentence_runs_past_a_path_and_a_hyphenated_subject_is_masked() -> None:
    held = frozenset({"retry", "delimiter"})
    ex = load_exemplars()
    # "csv_writer.py:5-11" does not end the sentence: the claim is read whole
    found = spans("I looked through export/csv_writer.py:5-11 but couldn't find the delimiter.",
                  held, ex)
    assert found and found[0].masked == "I looked through but couldn't find the it."
    # a line without a full stop is a sentence too
    assert [s.masked for s in spans("Answer first\nthe files shown don't say\n", held, ex)] == [
        "the files shown don't say"]
    assert masked("Can't see anything retry-related in the context.", held, ex) == (
        "Can't see anything it in the context.")


def test_similarities_are_rounded_and_the_same_every_time() -> None:
    meaning = AbsenceMeaning(FakeEmbedder(), AbsencePolicy(decimals=2))
    first = meaning.score(ISSUE[1], frozenset({"retrying"}))
    assert first == meaning.score(ISSUE[1], frozenset({"retrying"}))
    assert all(round(s.absence, 2) == s.absence and round(s.answer, 2) == s.answer
               for s in first)


def test_synthesis_refuses_the_claim_only_with_an_injected_encoder() -> None:
    settings = SynthesisSettings(model="m")
    kept = synthesize(ENV, llm=FakeLLM(ISSUE[1]), settings=settings, clock=FakeClock())
    assert kept.envelope.answer_mode == "llm"
    refused = synthesize(ENV, llm=FakeLLM(ISSUE[1]), settings=settings, clock=FakeClock(),
                         embedder=Marker())
    assert (refused.envelope.answer_mode, refused.envelope.fallback_reason) == (
        "fallback", NO_EVIDENCE_CLAIM)
    off = SynthesisSettings(model="m", absence=AbsencePolicy(enabled=False))
    assert synthesize(ENV, llm=FakeLLM(ISSUE[1]), settings=off, clock=FakeClock(),
                      embedder=Marker()).envelope.answer_mode == "llm"


class Broken(Marker):
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise UnknownModelError("embedding model not found: /nowhere")


def test_an_encoder_that_cannot_load_leaves_the_phrase_rules_and_says_so() -> None:
    told: list[str] = []
    done = synthesize(ENV, llm=FakeLLM(ISSUE[1]), settings=SynthesisSettings(model="m"),
                      clock=FakeClock(), embedder=Broken(), notify=told.append)
    assert done.envelope.answer_mode == "llm"
    assert told == ["absence claims checked by phrase only (the sentence encoder failed: "
                    "embedding model not found: /nowhere)"]


def test_the_thresholds_are_in_the_config_hash_and_a_repository_cannot_set_them(
        tmp_path: Path) -> None:
    base = HelixConfig()
    moved = load_config(None, flags={"synthesis.absence": {"margin_min": 0.1}},
                        env={"HELIX_HOME": str(tmp_path)})
    assert moved.synthesis.absence.margin_min == 0.1
    assert moved.evidence_hash != base.evidence_hash
    (tmp_path / ".helix.toml").write_text("[synthesis.absence]\nmargin_min = 1.5\n")
    assert load_config(tmp_path, env={"HELIX_HOME": str(tmp_path / "h")}
                       ).synthesis.absence == base.synthesis.absence


def test_exemplar_vectors_are_kept_in_the_embedding_cache(tmp_path: Path) -> None:
    inner = FakeEmbedder()
    first = CachedEmbedder(inner, tmp_path).embed(["a b", "c d"])
    again = CachedEmbedder(inner, tmp_path).embed(["c d", "a b"])
    assert inner.calls == 2 and np.array_equal(first[::-1], again)
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert CachedEmbedder(inner, blocked).embed(["e f"]).shape == (1, inner.dim)


def test_shipped_test_vectors_fill_an_empty_cache_of_their_digest_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/_vector_cache.py: a run with no cache (CI) reads the vectors shipped for its
    encoder digest instead of embedding them; another digest or model reads nothing."""
    import tests._vector_cache as vc
    from helix.core.hashing import digest

    inner = FakeEmbedder()
    vectors = inner.embed(["a b", "c d"])
    monkeypatch.setattr(vc, "SHIPPED", tmp_path / "shipped")
    vc.SHIPPED.mkdir()
    np.savez_compressed(vc.shipped_file("d1"), model_key=np.array(inner.model_key),
                        text_hashes=np.array([digest("a b"), digest("c d")]), vectors=vectors)
    assert vc.seed_from_shipped(tmp_path / "other", "d2", inner.model_key) == 0
    assert vc.seed_from_shipped(tmp_path / "other", "d1", "another model") == 0
    assert vc.seed_from_shipped(tmp_path / "cache", "d1", inner.model_key) == 2
    counted = FakeEmbedder()
    read = CachedEmbedder(counted, tmp_path / "cache").embed(["c d", "a b"])
    assert counted.calls == 0 and np.array_equal(read, vectors[::-1])
    monkeypatch.setenv(vc.FROM_SCRATCH, "1")  # scripts/test_vectors.py: nothing read
    assert vc.seed_from_shipped(tmp_path / "again", "d1", inner.model_key) == 0


# --- the shipped encoder on the hand-written answers ------------------------------------------

def _cases() -> list[dict]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from absence_meaning import _cases as cases

    return cases(json.loads(DATA.read_text(encoding="utf-8")))


@pytest.mark.slow
def test_the_shipped_encoder_refuses_the_written_absence_claims() -> None:
    # the shipped encoder's vectors of these texts, kept across runs (tests/_vector_cache.py;
    # tests/test_absence_sets.py proves a sample of them against the encoder)
    from tests._vector_cache import shipped_encoder_cached

    meaning = AbsenceMeaning(shipped_encoder_cached(), HelixConfig().synthesis.absence)
    wrong = {}
    for case in _cases():
        result = check_answer(case["text"], case["refs"], evidence=case["evidence"],
                              meaning=meaning)
        refused = result.reason == NO_EVIDENCE_CLAIM
        if refused != case["absence"]:
            wrong.setdefault(case["split"], []).append(case["text"])
    # the issue's two examples are refused; the reported half is what the benchmark reports
    assert not any(t.startswith(("There's nothing in these files", "The snippets shown"))
                   for texts in wrong.values() for t in texts)
    # held-apart texts are never shown (a failure must not invite tuning on them): counts only
    counts = {split: len(texts) for split, texts in sorted(wrong.items())}
    assert len(wrong.get("tune", [])) <= 3, wrong.get("tune")  # of 116 (16 added in round 3)
    assert (counts.get("report", 0) <= 3 and counts.get("fresh", 0) <= 2
            and counts.get("fresh2", 0) <= 4), counts


_NO_TORCH = """
import sys
from helix.core.config import HelixConfig, IndexSettings
from helix.synthesis.absence_meaning import AbsenceMeaning
from indexers.encoder import query_embedder
meaning = AbsenceMeaning(query_embedder(IndexSettings()), HelixConfig().synthesis.absence)
assert meaning.claims("The snippets shown are unrelated to retrying posts.", frozenset())
print("LOADED:" + ",".join(m for m in ("torch", "sentence_transformers") if m in sys.modules))
"""


@pytest.mark.slow
def test_the_absence_check_never_imports_torch() -> None:
    out = subprocess.run([sys.executable, "-c", _NO_TORCH], capture_output=True, text=True,
                         timeout=300, check=True)
    assert out.stdout.strip() == "LOADED:", out.stdout + out.stderr


def test_a_sentence_that_reports_what_the_evidence_holds_is_no_claim() -> None:
    """meaning7: a clause that negates nothing and names an identifier or a number of the
    evidence says what the evidence says; the sentence is no absence claim whatever the
    encoder makes of it. A name under the negation is what is said to be missing."""
    meaning = AbsenceMeaning(Marker(), AbsencePolicy())

    def refused(text: str) -> bool:
        return check_answer(text, REFS, evidence=ENV.evidence,
                            meaning=meaning).reason == NO_EVIDENCE_CLAIM

    assert not refused("Nothing in the docs is unrelated: decide_retry makes the call.")
    assert not refused("Nothing in the docs is unrelated, and it gives up after 5 tries.")
    assert refused("The excerpts are unrelated to how decide_retry is scheduled.")
    # a file's name names the material, as a claim does
    assert refused("src/retry.py shows something unrelated to the policy.")


def test_the_shipped_vectors_are_named_for_any_cpu_the_cache_for_this_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new machine (another CPU model) reads the shipped vectors (their name leaves the CPU
    out) into a cache of its own CPU's digest; the sample test then allows VECTOR_TOLERANCE."""
    import tests._vector_cache as vc

    here_portable, here_full = vc.portable_digest(), vc.encoder_digest()
    monkeypatch.setattr(vc, "_cpu", lambda: "model name : another CPU")
    assert vc.portable_digest() == here_portable
    assert vc.encoder_digest() != here_full
    shipped = sorted(vc.SHIPPED.glob("*.npz"))
    assert [p.stem for p in shipped] == [here_portable]
    assert vc.shipped_cpu(here_portable)  # the file says which CPU computed it
