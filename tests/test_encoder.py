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
from helix.core.ports import Embedder
from indexers.encoder import (
    NumpyMiniLMEncoder,
    SentenceTransformerEmbedder,
    default_model_path,
    model_key_for,
    numpy_compatible,
    query_embedder,
)

MODEL_DIR = Path(default_model_path(IndexSettings()))

TEXTS = [
    "where is the retry policy decided?",
    "def get_user_name(self) -> str:\n    return self._name",
    "HTTPServerError raised when the upstream server fails",
    "x",
    "",
    "Ünïcödé — naïve café, 日本語のテキスト, emoji 🚀",
    "class LRUCache:\n    \"\"\"A least-recently-used cache with a fixed capacity.\"\"\"",
    "networkx/algorithms/shortest_paths/weighted.py :: dijkstra_path (function)",
    "   leading and trailing whitespace   ",
    "SELECT * FROM users WHERE id = ? AND name LIKE '%bob%'",
    "The quick brown fox jumps over the lazy dog.",
    "import os\nimport sys\nfrom pathlib import Path",
    "docs/guide.md\nGuide > Installation\nRun pip install helix to set it up.",
    "1234567890 3.14159 0xdeadbeef",
    "async def fetch(session, url):\n    async with session.get(url) as r:\n"
    "        return await r.json()",
    "Note: remove this hack once the upstream bug is fixed",
    "func Retry(n int) error { return nil }",
    "a b c d e f g h i j k l m n o p",
    "How do I configure the embedding model?",
    "long " + " ".join(f"token{i} word" for i in range(400)),  # far beyond max_seq_length
]


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


def test_default_model_path_honours_setting(tmp_path: Path) -> None:
    assert default_model_path(IndexSettings(embed_model=str(tmp_path))) == str(tmp_path)
    assert (MODEL_DIR / "modules.json").is_file()


@pytest.mark.slow
def test_numpy_encoder_matches_sentence_transformers() -> None:
    fast = NumpyMiniLMEncoder(default_model_path(IndexSettings()))
    assert isinstance(fast, Embedder)
    slow = SentenceTransformerEmbedder.from_settings(IndexSettings())
    assert fast.model_key == slow.model_key and fast.dim == slow.dim == 384
    # the text beyond max_seq_length in a batch of its own: a batch pads every text to its
    # longest, and the other 19 padded to its 256 tokens cost ~6x the CPU of what they are
    # (padding changes no vector: checked below, to those 256 tokens)
    ours = np.vstack([fast.embed(TEXTS[:-1]), fast.embed(TEXTS[-1:])])
    reference = np.vstack([slow.embed(TEXTS[:-1]), slow.embed(TEXTS[-1:])])
    assert ours.shape == reference.shape == (len(TEXTS), 384)
    assert ours.dtype == reference.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, rtol=1e-5)
    cosines = (ours * reference).sum(axis=1)
    # measured 1.000000 (6 places) under the lock's versions and onnxruntime 1.20.1 / 1.26.0
    # (benchmarks/encoder_tolerance.py): the bar leaves room for another BLAS's rounding
    assert float(cosines.min()) >= 0.999, cosines
    # one at a time (the query path) gives the same vectors as a padded batch
    single = np.stack([fast.embed([t])[0] for t in TEXTS[:4]])
    np.testing.assert_allclose(single, ours[:4], atol=1e-5)
    # ... and as one padded to the longest text's 256 tokens ("x" beside the long text)
    padded = fast.embed([TEXTS[-1], TEXTS[3]])
    np.testing.assert_allclose(padded, np.stack([ours[-1], single[3]]), atol=1e-5)
    # the wrapper restores input order after sorting by length
    bare = slow._load().encode(TEXTS[:-1], normalize_embeddings=True, convert_to_numpy=True)
    np.testing.assert_allclose(reference[:-1], bare, atol=1e-5)
    # the build's ONNX encoder against the same reference: fp32 shares the vectors (and key),
    # int8 keeps the bar measured across CPUs and versions (tests/test_encoder_onnx.py says
    # what was measured, and covers the rest)
    from indexers.onnx_encoder import VARIANT_FP32, VARIANT_INT8, OnnxEncoder
    from tests.test_encoder_onnx import FP32_MIN_COSINE, INT8_MIN_COSINE

    path = default_model_path(IndexSettings())
    fp32 = OnnxEncoder(path, VARIANT_FP32)
    assert fp32.model_key == slow.model_key
    assert float((fp32.embed(TEXTS) * reference).sum(axis=1).min()) >= FP32_MIN_COSINE
    int8 = (OnnxEncoder(path, VARIANT_INT8).embed(TEXTS) * reference).sum(axis=1)
    assert float(int8.min()) >= INT8_MIN_COSINE, int8


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
