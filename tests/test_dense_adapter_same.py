"""The adapter is computed in two places: the product's low-rank form (controller.dense_adapter,
x + (x U) V^T) and the measurement's full matrix (evals.corpus.dense_adapter, x (I + U V^T)),
which produced docs/ranker.md's Round 31 figures. The shipped adapter must give the same
vectors through both, or those figures do not describe what `retrieval.dense_adapter` does."""

from __future__ import annotations

import numpy as np

from controller.dense_adapter import shipped
from evals.corpus.dense_adapter import adapter_matrix, apply


def test_the_product_and_the_measurement_adapt_a_question_alike() -> None:
    turn = shipped()
    rng = np.random.default_rng(31)
    queries = rng.standard_normal((64, turn.dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    product = turn.apply(queries)
    measured = apply(queries, adapter_matrix(turn.u, turn.v))
    assert np.allclose(product, measured, atol=1e-5)
    assert (product @ measured.T).argmax(axis=1).tolist() == list(range(64))
