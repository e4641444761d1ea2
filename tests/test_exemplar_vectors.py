"""The absence exemplars' vectors ship with Helix (`helix.synthesis.exemplar_vectors`): a new
$HELIX_HOME's first answer embeds no exemplar with the shipped encoder, the shipped vectors are
the ones that encoder gives the current exemplars, and another encoder (or edited exemplars)
gets them embedded as before."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from helix.core.config import HelixConfig, IndexSettings
from helix.core.ports import FakeEmbedder
from helix.synthesis import absence_meaning as am
from helix.synthesis.exemplar_vectors import shipped_vectors


class Counted:
    """An embedder that records every text it is asked for."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts: list[str] = []
        self.model_key, self.dim = inner.model_key, inner.dim

    def embed(self, texts: Any) -> np.ndarray:
        self.texts += list(texts)
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def encoder() -> Any:
    from indexers.encoder import query_embedder

    return query_embedder(IndexSettings())


def test_a_new_home_embeds_only_the_answer_with_the_shipped_encoder(
        encoder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(am, "_VECTORS", {})  # a new process (and no embedding cache)
    counted = Counted(encoder)
    meaning = am.AbsenceMeaning(counted, HelixConfig().synthesis.absence)
    text = "There's nothing in these files that decides retries [E1]."
    assert meaning.claims(text, frozenset())  # the shipped vectors decide as before
    assert counted.texts and len(counted.texts) <= 3  # the answer's spans, no exemplar
    assert not set(counted.texts) & set(meaning.ex.absence + meaning.ex.answer)
    assert (encoder.model_key, meaning.ex.digest) in am._VECTORS  # read once a process


def test_the_shipped_vectors_are_the_shipped_encoders(encoder: Any) -> None:
    ex = am.load_exemplars()
    found = shipped_vectors(encoder.model_key, ex.digest)
    assert found is not None, "stale: run python -m evals.absence_vectors"
    absence, answer = found
    assert absence.shape == (len(ex.absence), encoder.dim)
    assert answer.shape == (len(ex.answer), encoder.dim)
    for rows, texts in ((absence, ex.absence), (answer, ex.answer)):
        for i in (0, len(texts) // 2, len(texts) - 1):  # a few, each embedded alone
            np.testing.assert_allclose(rows[i], encoder.embed([texts[i]])[0], atol=1e-5)


def test_another_encoder_or_other_exemplars_embed_them(monkeypatch: pytest.MonkeyPatch) -> None:
    ex = am.load_exemplars()
    assert shipped_vectors(FakeEmbedder().model_key, ex.digest) is None
    assert shipped_vectors(FakeEmbedder().model_key, "sha256:" + "0" * 64) is None
    monkeypatch.setattr(am, "_VECTORS", {})
    fake = FakeEmbedder()
    absence, answer = am.AbsenceMeaning(fake, HelixConfig().synthesis.absence
                                        )._exemplar_vectors()
    assert fake.texts_embedded == len(ex.absence) + len(ex.answer)
    np.testing.assert_array_equal(absence[0], FakeEmbedder().embed([ex.absence[0]])[0])
    np.testing.assert_array_equal(answer[-1], FakeEmbedder().embed([ex.answer[-1]])[0])
