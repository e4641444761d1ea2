"""The meaning router reads a turn with the layers its model was trained on: the whole sentence
model, or its first layers (`indexers.first_layers`, the trainer's `ENCODER_LAYERS`), in both
encoders, under a key of its own; the index and its queries keep the whole model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from controller.continuity.meaning import MeaningModel, products
from evals.router_train import ENCODER_LAYERS
from helix.core.config import IndexSettings
from helix.core.errors import UnknownModelError
from helix.session import certain, reader, warm
from indexers.encoder import (
    NumpyMiniLMEncoder,
    default_model_path,
    model_dir,
    model_key_for,
    query_embedder,
)
from indexers.first_layers import FirstLayersEncoder, first_layers_key, layers_of
from indexers.onnx_encoder import VARIANT_FP32, VARIANT_INT8, model_file

PATH = default_model_path(IndexSettings())
MODEL_DIR = model_dir(PATH)
LAYERS = 3  # a first-layers encoder (the trainer's ENCODER_LAYERS may be the whole model)
TEXTS = ("open the second one", "who calls it?", "only in the storage folder",
         "cool, can you pull up the resonator.py one from that list and explain it?")


def test_the_router_reads_with_the_layers_its_model_was_trained_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    whole = model_key_for(MODEL_DIR)
    assert reader.encoder_of(None).model_key == whole
    trained = reader.encoder_of(LAYERS)
    assert trained.model_key == first_layers_key(whole, LAYERS) != whole
    assert layers_of(trained.model_key) == LAYERS and layers_of(whole) is None
    shipped = MeaningModel.load()
    for key in (whole, trained.model_key):
        monkeypatch.setattr(reader, "shipped_model", lambda k=key: replace(shipped, model_key=k))
        assert reader.router_embedder().model_key == key  # no reader embeds the bank again
    # the index's queries (and so the embedding cache of a search) keep the whole model
    assert query_embedder(IndexSettings()).model_key == whole


def test_the_first_layers_are_another_encoder_and_all_of_them_the_whole_model() -> None:
    whole = NumpyMiniLMEncoder(PATH).embed(list(TEXTS))
    first = FirstLayersEncoder(PATH, LAYERS).embed(list(TEXTS))
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert float((whole * first).sum(axis=1).max()) < 0.99
    every = FirstLayersEncoder(PATH, 6)
    assert np.array_equal(every.embed(list(TEXTS)), whole)
    with pytest.raises(UnknownModelError):
        FirstLayersEncoder(PATH, 7)


def test_onnx_runtime_reads_the_same_layers_within_the_bound(
        shared_models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from indexers.onnx_query import QueryOnnxEncoder

    monkeypatch.setenv("HELIX_MODELS_DIR", str(shared_models))
    query = QueryOnnxEncoder(PATH, layers=LAYERS)
    exact = reader.encoder_of(LAYERS)
    assert query.model_key == exact.model_key
    assert query.model_file.name != QueryOnnxEncoder(PATH).model_file.name
    model = MeaningModel.load()
    assert warm.largest_difference(query, exact, model, TEXTS) <= certain.SLACK / warm.CHECK_MARGIN
    whole = NumpyMiniLMEncoder(PATH)
    assert float(np.abs(products(model.vectors, query.embed([TEXTS[0]])[0])
                        - products(model.vectors, whole.embed([TEXTS[0]])[0])).max()) > 0.01


def test_an_export_of_the_first_layers_has_a_file_of_its_own(tmp_path: Path) -> None:
    whole = model_file(MODEL_DIR, VARIANT_FP32, tmp_path)
    first = model_file(MODEL_DIR, VARIANT_FP32, tmp_path, layers=LAYERS)
    assert first != whole and first.parent == whole.parent
    with pytest.raises(UnknownModelError):
        model_file(MODEL_DIR, VARIANT_INT8, tmp_path, layers=LAYERS)


def test_the_shipped_model_was_trained_on_the_trainers_layers() -> None:
    assert layers_of(MeaningModel.load().model_key) == ENCODER_LAYERS
