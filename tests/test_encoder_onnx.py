"""The ONNX Runtime encoder: export (atomic, cached), vectors against the reference, keys."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from helix.core.config import IndexSettings
from helix.core.errors import HelixError, UnknownModelError
from helix.core.ports import Embedder
from indexers import onnx_encoder
from indexers.encoder import NumpyMiniLMEncoder, default_model_path, model_key_for, query_embedder
from indexers.onnx_encoder import (
    VARIANT_FP32,
    VARIANT_INT8,
    OnnxEncoder,
    ensure_model,
    file_digest,
    model_file,
    shared_encoder,
)

MODEL_PATH = default_model_path(IndexSettings())
MODEL_DIR = Path(MODEL_PATH)
# The int8 variant's lowest cosine with the reference over TEXTS depends on the CPU's int8
# kernel, not on the versions (benchmarks/encoder_tolerance.py, results/encoder_tolerance.json):
# 0.99034 under onnxruntime 1.20.1 / onnx 1.17.0, 1.26.0 / 1.20.1 and 1.32.0 / 1.23.2 (the
# lock, the newest) on an AVX-512 VNNI CPU; 0.9807 under 1.32.0 / 1.23.2 on a CPU without
# AVX-512 (Haswell, emulated: the u8s8 kernel's saturation; issue 29's failing machine read the
# same 0.9807). The bar sits below the lowest measured, with room for another CPU's rounding;
# fp32 (the variant Helix uses) is 1.0 to 5 places everywhere measured.
INT8_MIN_COSINE = 0.975
FP32_MIN_COSINE = 0.9999

TEXTS = [
    "where is the retry policy decided?",
    "def get_user_name(self) -> str:\n    return self._name",
    "networkx/algorithms/shortest_paths/weighted.py :: dijkstra_path (function)\n"
    "def dijkstra_path(G, source, target, weight='weight'):\n"
    "Returns the shortest weighted path from source to target in G.",
    "docs/guide.md\nGuide > Installation\nRun pip install helix to set it up.",
    "x",
    "",
    "Ünïcödé — naïve café, 日本語のテキスト, emoji 🚀",
    "class LRUCache:\n    \"\"\"A least-recently-used cache with a fixed capacity.\"\"\"",
    "long " + " ".join(f"token{i} word" for i in range(400)),  # beyond max_seq_length
]

# sentence-transformers' reference texts (tests/test_encoder.py kept them before)
ST_TEXTS = [
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


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One export for the module (a second or two), in a home of its own."""
    home = tmp_path_factory.mktemp("onnx_home")
    ensure_model(MODEL_DIR, VARIANT_INT8, home)
    return home


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """The reference vectors (sentence-transformers computes the same, to cosine >= 0.999:
    test_numpy_encoder_matches_the_reference_model); numpy spares the other tests a torch
    import. The text beyond max_seq_length is embedded alone: in one batch it padded the
    others to its 256 tokens (padding changes no vector: checked in that test)."""
    encoder = NumpyMiniLMEncoder(MODEL_PATH)
    return np.vstack([encoder.embed(TEXTS[:-1]), encoder.embed(TEXTS[-1:])])


def _seed(models: Path, home: Path) -> None:
    """Give `home` the module's fp32 export (a copy: no second export)."""
    import shutil

    source = model_file(MODEL_DIR, VARIANT_FP32, models)
    (home / "models").mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, home / "models" / source.name)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1))


@pytest.mark.slow
def test_numpy_encoder_matches_the_reference_model(models: Path) -> None:
    """The numpy encoder (the query path) and the build's ONNX encoders against the reference
    model's vectors: sentence-transformers' over ST_TEXTS, committed with a manifest by
    scripts/encoder_reference.py (this test imported torch for them, ~15 CPU s a run; the
    script's --check recomputes them). The manifest must match what is installed: every file of
    the model (weights, tokenizer, configs) by sha256, the texts, and the versions of the
    libraries that computed them, so a changed model, tokenizer or library fails here until the
    script is run again."""
    import json

    from indexers.encoder import SentenceTransformerEmbedder
    from tests._encoder_reference import (
        MANIFEST,
        VECTORS,
        library_versions,
        model_files,
        vectors_digest,
    )

    made = json.loads(MANIFEST.read_text(encoding="utf-8"))
    reference = np.load(VECTORS, allow_pickle=False)
    assert made["texts"] == ST_TEXTS
    assert made["model_files"] == model_files(MODEL_DIR), "the model changed: rerun the script"
    assert made["libraries"] == library_versions(), "a library changed: rerun the script"
    assert made["vectors"] == vectors_digest(reference)
    fast = NumpyMiniLMEncoder(MODEL_PATH)
    assert isinstance(fast, Embedder)
    slow = SentenceTransformerEmbedder.from_settings(IndexSettings())  # loads nothing yet
    assert fast.model_key == slow.model_key and fast.dim == slow.dim == 384
    # the text beyond max_seq_length in a batch of its own: a batch pads every text to its
    # longest, and the other 19 padded to its 256 tokens cost ~6x the CPU of what they are
    # (padding changes no vector: checked below, to those 256 tokens)
    ours = np.vstack([fast.embed(ST_TEXTS[:-1]), fast.embed(ST_TEXTS[-1:])])
    assert ours.shape == reference.shape == (len(ST_TEXTS), 384)
    assert ours.dtype == reference.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(reference, axis=1), 1.0, rtol=1e-5)
    cosines = (ours * reference).sum(axis=1)
    # measured 1.000000 (6 places) under the lock's versions and onnxruntime 1.20.1 / 1.26.0
    # (benchmarks/encoder_tolerance.py): the bar leaves room for another BLAS's rounding
    assert float(cosines.min()) >= 0.999, cosines
    # one at a time (the query path) gives the same vectors as a padded batch
    single = np.stack([fast.embed([t])[0] for t in ST_TEXTS[:4]])
    np.testing.assert_allclose(single, ours[:4], atol=1e-5)
    # ... and as one padded to the longest text's 256 tokens ("x" beside the long text)
    padded = fast.embed([ST_TEXTS[-1], ST_TEXTS[3]])
    np.testing.assert_allclose(padded, np.stack([ours[-1], single[3]]), atol=1e-5)
    # the build's ONNX encoder against the same reference: fp32 shares the vectors (and key),
    # int8 keeps the bar measured across CPUs and versions (said above; the tests below cover
    # the rest); the module's export (one export and quantization for both modules' checks)
    fp32 = OnnxEncoder(MODEL_PATH, VARIANT_FP32, home=models)
    assert fp32.model_key == slow.model_key
    assert float((fp32.embed(ST_TEXTS) * reference).sum(axis=1).min()) >= FP32_MIN_COSINE
    int8 = (OnnxEncoder(MODEL_PATH, VARIANT_INT8, home=models).embed(ST_TEXTS)
            * reference).sum(axis=1)
    assert float(int8.min()) >= INT8_MIN_COSINE, int8


def test_export_lands_in_helix_home_models_and_is_reused(models: Path) -> None:
    fp32 = model_file(MODEL_DIR, VARIANT_FP32, models)
    int8 = model_file(MODEL_DIR, VARIANT_INT8, models)
    assert fp32.parent == int8.parent == models / "models"
    assert fp32.is_file() and int8.is_file() and fp32 != int8
    assert fp32.name.startswith(model_key_for(MODEL_DIR).replace(":", "-") + "-fp32-")
    # nothing half-written is left beside them
    assert sorted(p.name for p in (models / "models").iterdir()) == sorted(
        [fp32.name, int8.name, int8.name + ".sha256"])
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in (fp32, int8)}
    assert ensure_model(MODEL_DIR, VARIANT_INT8, models) == int8
    OnnxEncoder(MODEL_PATH, VARIANT_INT8, home=models)
    assert {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in (fp32, int8)} == before


def test_second_use_does_not_export_again(models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_encoder, "_export_fp32", refuse)
    monkeypatch.setattr(onnx_encoder, "_quantize", refuse)
    for variant in (VARIANT_FP32, VARIANT_INT8):
        assert OnnxEncoder(MODEL_PATH, variant, home=models).embed(["x"]).shape == (1, 384)


def _export_by_copy(models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fp32 export writes the module's exported model (through the same atomic write)
    instead of building the graph again: for the tests of what is around the build (the
    build itself: test_export_lands_..., test_export_is_deterministic)."""
    import shutil

    source = model_file(MODEL_DIR, VARIANT_FP32, models)
    monkeypatch.setattr(onnx_encoder, "_export_fp32", lambda model_path, target, layers=None: (
        onnx_encoder._write_atomically(target, lambda tmp: shutil.copyfile(source, tmp))))


def test_export_is_atomic_a_failure_leaves_nothing(tmp_path: Path, models: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _export_by_copy(models, monkeypatch)

    def broken_write(target: Path, write: object) -> None:
        def half(tmp: Path) -> None:
            tmp.write_bytes(b"half a model")
            raise OSError("disk full")

        real_write(target, half)

    real_write = onnx_encoder._write_atomically
    monkeypatch.setattr(onnx_encoder, "_write_atomically", broken_write)
    with pytest.raises(HelixError, match="cannot write the exported embedding model"):
        ensure_model(MODEL_DIR, VARIANT_FP32, tmp_path)
    assert list((tmp_path / "models").iterdir()) == []  # no temp file, no partial model
    monkeypatch.setattr(onnx_encoder, "_write_atomically", real_write)
    path = ensure_model(MODEL_DIR, VARIANT_FP32, tmp_path)
    assert [p.name for p in (tmp_path / "models").iterdir()] == [path.name]


def test_a_killed_exports_leftover_is_swept_a_live_one_kept(
        tmp_path: Path, models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _export_by_copy(models, monkeypatch)
    target = model_file(MODEL_DIR, VARIANT_FP32, tmp_path)
    target.parent.mkdir(parents=True)
    stale = target.with_name(f".{target.name}.dead.tmp")
    live = target.with_name(f".{target.name}.live.tmp")
    other = target.with_name("unrelated.tmp")  # not a name an export of ours uses
    for path in (stale, live, other):
        path.write_bytes(b"partial")
    old = time.time() - onnx_encoder.STALE_TMP_S - 60
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    ensure_model(MODEL_DIR, VARIANT_FP32, tmp_path)
    assert not stale.exists() and live.exists() and other.exists() and target.is_file()


def test_export_is_deterministic(models: Path, tmp_path: Path) -> None:
    again = ensure_model(MODEL_DIR, VARIANT_INT8, tmp_path)
    assert again.read_bytes() == model_file(MODEL_DIR, VARIANT_INT8, models).read_bytes()


def test_fp32_matches_the_reference_and_shares_its_key(models: Path,
                                                       reference: np.ndarray) -> None:
    encoder = OnnxEncoder(MODEL_PATH, VARIANT_FP32, home=models)
    assert isinstance(encoder, Embedder) and encoder.dim == 384
    vectors = encoder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert float(_cosines(vectors, reference).min()) >= FP32_MIN_COSINE
    assert encoder.model_key == model_key_for(MODEL_DIR) == NumpyMiniLMEncoder(
        MODEL_PATH).model_key


def test_int8_keeps_cosine_and_has_its_own_key(models: Path, reference: np.ndarray) -> None:
    encoder = OnnxEncoder(MODEL_PATH, VARIANT_INT8, home=models)
    vectors = encoder.embed(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    cosines = _cosines(vectors, reference)
    assert float(cosines.min()) >= INT8_MIN_COSINE, cosines
    # different vectors, different key: a cache never mixes int8 and fp32 vectors
    assert encoder.model_key != model_key_for(MODEL_DIR)
    assert encoder.model_key.startswith(model_key_for(MODEL_DIR) + "+onnx-int8:")
    digest = file_digest(model_file(MODEL_DIR, VARIANT_INT8, models))
    assert encoder.model_key.endswith(":" + digest)


def test_embedding_is_deterministic_and_independent_of_batch_mates(models: Path) -> None:
    encoder = OnnxEncoder(MODEL_PATH, VARIANT_INT8, home=models, workers=2)
    first = encoder.embed(TEXTS)
    again = encoder.embed(TEXTS)
    assert first.tobytes() == again.tobytes()
    # a text's vector is a function of the text alone: other company, other order, alone
    shuffled = encoder.embed([*reversed(TEXTS), "unrelated filler text"])
    assert shuffled[:len(TEXTS)][::-1].tobytes() == first.tobytes()
    serial = OnnxEncoder(MODEL_PATH, VARIANT_INT8, home=models, workers=1)
    assert serial.embed(TEXTS[2:4]).tobytes() == first[2:4].tobytes()
    alone = np.stack([serial.embed([t])[0] for t in TEXTS[:3]])
    assert alone.tobytes() == first[:3].tobytes()


def test_padded_batches_still_match(models: Path) -> None:
    batched = OnnxEncoder(MODEL_PATH, VARIANT_FP32, batch_size=4, home=models).embed(TEXTS)
    single = OnnxEncoder(MODEL_PATH, VARIANT_FP32, home=models).embed(TEXTS)
    assert float(_cosines(batched, single).min()) >= 0.9999


def test_repeated_query_is_served_from_memory_and_safe_to_mutate(models: Path) -> None:
    encoder = OnnxEncoder(MODEL_PATH, VARIANT_INT8, home=models)
    first = encoder.embed(["where is the retry policy decided?"])
    first[0, 0] = 42.0
    again = encoder.embed(["where is the retry policy decided?"])
    assert float(again[0, 0]) != 42.0
    assert encoder.embed([]).shape == (0, 384)


def test_stale_digest_note_is_recomputed(models: Path, tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"one")
    first = file_digest(model)
    note = tmp_path / "m.onnx.sha256"
    assert note.read_text().strip() == first
    model.write_bytes(b"two")
    os.utime(note, ns=(1, 1))  # the note is older than the file it describes
    assert file_digest(model) != first
    note.write_text("not a digest")
    assert file_digest(model) == file_digest(model) != first


def test_unknown_variant_and_model_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UnknownModelError, match="unknown ONNX variant"):
        model_file(MODEL_DIR, "int4", tmp_path)
    with pytest.raises(UnknownModelError):
        OnnxEncoder(str(tmp_path / "nope"), home=tmp_path)


def test_broken_exported_model_is_a_clear_error(tmp_path: Path) -> None:
    target = model_file(MODEL_DIR, VARIANT_FP32, tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not an onnx model")
    with pytest.raises(UnknownModelError, match="cannot load exported model"):
        OnnxEncoder(MODEL_PATH, VARIANT_FP32, home=tmp_path)


def test_build_encoder_follows_the_selection_size_not_the_cache_history(
        models: Path, helix_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from indexers import build_embed
    from indexers.dense import text_hash
    from indexers.embed_cache import EmbeddingCache
    from indexers.encoder import SentenceTransformerEmbedder

    _seed(models, helix_home)
    settings = IndexSettings()
    key = model_key_for(MODEL_DIR)
    small = [(f"c{i}", f"text {i}") for i in range(build_embed.NUMPY_EMBED_MAX_TEXTS)]
    large = [*small, ("c-last", "one text too many")]
    with EmbeddingCache(helix_home / "embeddings") as cache:
        assert isinstance(build_embed._default_embedder(small, settings, cache),
                          NumpyMiniLMEncoder)
        bulk = build_embed._default_embedder(large, settings, cache)
        assert isinstance(bulk, OnnxEncoder) and bulk.variant == VARIANT_FP32
        assert bulk is shared_encoder(MODEL_PATH, helix_home)
        assert bulk.model_file.parent == helix_home / "models"
        # same key as the numpy query encoder: what the build caches, queries can compare with
        assert bulk.model_key == query_embedder(settings).model_key == key
        # a refresh or a resumed worker missing one text of a large selection: the same
        # encoder as the fresh build, so the text gets the bits a fresh build gives it
        vector = np.zeros(384, dtype=np.float32)
        cache.put_many(key, {text_hash(t): vector for _, t in large[1:]})
        assert build_embed._default_embedder(large, settings, cache) is bulk
        # nothing missing: no model is run, the light encoder only names the key
        cache.put_many(key, {text_hash(large[0][1]): vector})
        assert isinstance(build_embed._default_embedder(large, settings, cache),
                          NumpyMiniLMEncoder)
        monkeypatch.setattr(onnx_encoder, "onnx_available", lambda: False)
        cache.put_many("other-model", {})
        fresh = [(f"n{i}", f"new text {i}") for i in range(build_embed.NUMPY_EMBED_MAX_TEXTS + 1)]
        assert isinstance(build_embed._default_embedder(fresh, settings, cache),
                          SentenceTransformerEmbedder)


_NO_TORCH = """
import sys
from helix.core.config import IndexSettings, helix_home
from indexers.encoder import default_model_path
from indexers.onnx_encoder import shared_encoder
encoder = shared_encoder(default_model_path(IndexSettings()), helix_home())
vec = encoder.embed(["where is the retry policy decided?", "a second text"])
assert vec.shape == (2, 384)
bad = [m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules]
print("LOADED:" + ",".join(bad))
"""


def test_onnx_path_never_imports_torch(models: Path, helix_home: Path) -> None:
    _seed(models, helix_home)
    out = subprocess.run([sys.executable, "-c", _NO_TORCH], capture_output=True, text=True,
                         timeout=300, check=True, env={**os.environ, "HELIX_HOME": str(helix_home)})
    assert out.stdout.strip() == "LOADED:"
