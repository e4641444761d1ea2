from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helix.core.config import IndexSettings
from helix.core.errors import UnknownModelError
from indexers.encoder import (
    NumpyMiniLMEncoder,
    SentenceTransformerEmbedder,
    default_model_path,
    model_key_for,
    numpy_compatible,
    query_embedder,
)

MODEL_DIR = Path(default_model_path(IndexSettings()))

def _copy_configs(target: Path) -> Path:
    target.mkdir()
    for name in ("config.json", "modules.json", "sentence_bert_config.json", "tokenizer.json"):
        shutil.copy(MODEL_DIR / name, target / name)
    (target / "1_Pooling").mkdir()
    shutil.copy(MODEL_DIR / "1_Pooling" / "config.json", target / "1_Pooling" / "config.json")
    return target


def test_model_key_depends_on_content_not_path(tmp_path: Path) -> None:
    one = _copy_configs(tmp_path / "one")
    two = _copy_configs(tmp_path / "elsewhere")
    assert model_key_for(one) == model_key_for(two)
    assert model_key_for(one).startswith("bert-l6-h384:")
    config = json.loads((two / "config.json").read_text())
    config["num_hidden_layers"] = 12
    (two / "config.json").write_text(json.dumps(config))
    assert model_key_for(one) != model_key_for(two)


def test_numpy_compatibility_checks_architecture(tmp_path: Path) -> None:
    assert numpy_compatible(MODEL_DIR)
    copy = _copy_configs(tmp_path / "m")
    assert not numpy_compatible(copy)  # no weights
    (copy / "model.safetensors").write_bytes(b"")
    assert numpy_compatible(copy)
    pooling = {"word_embedding_dimension": 384, "pooling_mode_cls_token": True}
    (copy / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    assert not numpy_compatible(copy)


def test_unknown_model_path_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UnknownModelError):
        SentenceTransformerEmbedder(str(tmp_path / "nope"))
    with pytest.raises(UnknownModelError):
        query_embedder(IndexSettings(embed_model=str(tmp_path / "nope")))


def test_the_sentence_transformers_wrapper_gives_the_vectors_in_input_order() -> None:
    """It embeds the texts longest first (each batch pads to similar lengths) and puts the
    vectors back in the input's order (tests/test_encoder_onnx.py checked it against the bare
    model with torch; scripts/encoder_reference.py still does, writing the reference)."""

    class Model:  # a vector that names its text: the length and a sum of its characters
        def encode(self, texts: list[str], **_: object) -> np.ndarray:
            return np.array([[len(t), sum(map(ord, t))] for t in texts], dtype=np.float32)

    embedder = SentenceTransformerEmbedder(str(MODEL_DIR), batch_size=2)
    embedder._model = Model()  # the model is loaded on the first embed: this one instead
    texts = ["bb", "a", "dddd", "ccc", "a", "ba"]
    np.testing.assert_array_equal(embedder.embed(texts), Model().encode(texts))
    assert embedder.embed([]).shape == (0, 384)


def test_default_model_path_honours_setting(tmp_path: Path) -> None:
    assert default_model_path(IndexSettings(embed_model=str(tmp_path))) == str(tmp_path)
    assert (MODEL_DIR / "modules.json").is_file()


_NO_TORCH = """
import sys
from helix.core.config import IndexSettings
from indexers.encoder import NumpyMiniLMEncoder, default_model_path
encoder = NumpyMiniLMEncoder(default_model_path(IndexSettings()))
vec = encoder.embed(["where is the retry policy decided?"])
assert vec.shape == (1, 384)
bad = [m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules]
print("LOADED:" + ",".join(bad))
"""


@pytest.mark.slow
def test_numpy_encoder_never_imports_torch() -> None:
    out = subprocess.run([sys.executable, "-c", _NO_TORCH], capture_output=True, text=True,
                         timeout=300, check=True)
    assert out.stdout.strip() == "LOADED:"


def test_module_import_is_light() -> None:
    code = ("import sys, indexers.encoder, indexers.dense, indexers.bm25, indexers.embed_cache;"
            "print(sorted(m for m in ('torch','sentence_transformers','faiss','rank_bm25',"
            "'tokenizers','safetensors') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_query_embedder_is_shared_and_repeats_are_identical() -> None:
    encoder = query_embedder(IndexSettings())
    assert encoder is query_embedder(IndexSettings())
    first = encoder.embed(["where is the retry policy decided?"])
    first[0, 0] = 42.0  # callers may mutate what they get back
    again = encoder.embed(["where is the retry policy decided?"])
    assert again.shape == (1, 384) and float(again[0, 0]) != 42.0
    batch = encoder.embed(["where is the retry policy decided?", "other"])
    np.testing.assert_allclose(batch[0], again[0], atol=1e-5)


def test_numpy_encoder_with_broken_weights_is_a_user_error(tmp_path: Path) -> None:
    copy = _copy_configs(tmp_path / "m")
    (copy / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(UnknownModelError):
        NumpyMiniLMEncoder(str(copy))
    from safetensors.numpy import save_file

    save_file({"embeddings.word_embeddings.weight": np.zeros((4, 4), dtype=np.float32)},
              str(copy / "model.safetensors"))
    with pytest.raises(UnknownModelError, match="lacks weights"):
        NumpyMiniLMEncoder(str(copy))


@pytest.mark.slow
def test_a_first_embed_copies_no_weight_and_later_ones_give_the_same_bits() -> None:
    """The first product with each dense layer takes the mapped file's transposed view (a
    process that embeds one message copies none of the 42 MB); the second makes the
    contiguous copy the warm path multiplies by: the same vector to the bit."""
    texts = ["who calls the second one?", "and where is the retry policy decided"]
    viewed, copied = [], []
    for order in (texts, texts[::-1]):  # each text once first (views), once after (copies)
        encoder = NumpyMiniLMEncoder(default_model_path(IndexSettings()))
        viewed.append(encoder.embed([order[0]]))
        assert encoder._transposed == {}
        copied.append(encoder.embed([order[1]]))
        assert len(encoder._transposed) == 6 * encoder._layers
    assert np.array_equal(viewed[0], copied[1]) and np.array_equal(viewed[1], copied[0])
