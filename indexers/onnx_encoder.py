"""ONNX Runtime sentence encoder: the build-time embedder (no torch, no sentence-transformers).

`benchmarks/embed_bench.py` measured it against sentence-transformers on the same cards in
one run; `ADOPTED_VARIANT` says what builds use and why.

The model is exported once per user from the sentence-transformers directory's safetensors by
`indexers.onnx_graph` (pure numpy + onnx, a second or two) into
`$HELIX_HOME/models/<model>-<variant>-<graph digest>.onnx` (`$HELIX_MODELS_DIR/...` when the
user sets it: one export for several homes), written to a temporary file and
renamed into place, so a killed export never leaves a half-written model (its temporary file
is swept by a later export) and two processes exporting at once both end with the same complete
file (the export is deterministic). Later runs load the file in a fraction of a second.

Variants (`benchmarks/embed_bench.py` measures both against sentence-transformers):
- `fp32`: the reference vectors up to float rounding (cosine >= 0.9999), so it shares the
  reference's `model_key` and the embedding cache with `SentenceTransformerEmbedder` and the
  numpy query encoder.
- `int8`: dynamic int8 quantization (per-channel weights; the feed-forward output projections,
  which read GELU outliers, stay fp32: quantizing them too took the minimum cosine under 0.99).
  Its vectors differ from the reference, so its key does too (`<reference key>+onnx-int8:<digest
  of the quantized model>`): a cache never mixes int8 and fp32 vectors.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.config import IndexSettings
from helix.core.errors import HelixError, UnknownModelError
from helix.core.hashing import digest
from helix.core.home import models_dir
from indexers.encoder import (
    BERT_LAYER_NORM_EPS,
    ST_NORMALIZE,
    default_model_path,
    max_seq_length,
    mmap_safetensors,
    model_dir,
    model_key_for,
    numpy_compatible,
    read_json,
)

VARIANT_FP32 = "fp32"
VARIANT_INT8 = "int8"
VARIANTS = (VARIANT_FP32, VARIANT_INT8)
MODELS_DIR = "models"
DEFAULT_BATCH = 1
# What builds use (benchmarks/embed_bench.py): fp32, one text per run, texts spread over the
# available cores. int8 was faster again (~1.5x per CPU second, cosine >= 0.994) but moved the
# eval numbers (networkx hit@5 .875 -> .854, holdout hit@3 .533 -> .467) and changes the key;
# fp32 keeps the reference's vectors and key, so the numpy query encoder stays interchangeable.
ADOPTED_VARIANT = VARIANT_FP32
MAX_WORKERS = 8
RECENT_QUERIES = 256
_DIGEST_CHARS = 12
_READ_CHUNK = 1 << 20


def onnx_available() -> bool:
    """onnxruntime and onnx importable (the export needs onnx, running needs onnxruntime)."""
    from importlib.util import find_spec

    return find_spec("onnxruntime") is not None and find_spec("onnx") is not None


def import_onnxruntime() -> Any:
    """onnxruntime, imported with its telemetry files (a device id and a database it writes
    under the user's cache directory at import) kept under $HELIX_HOME/cache instead: all of
    Helix's state lives under $HELIX_HOME."""
    if "onnxruntime" in sys.modules:
        return sys.modules["onnxruntime"]
    from helix.core.config import helix_home

    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(helix_home() / "cache")
    try:
        import onnxruntime
    finally:
        if saved is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = saved
    return onnxruntime


def _graph_digest() -> str:
    """Digest of the graph builder's source: a changed graph is a new file, never a stale one."""
    from indexers import onnx_graph

    return digest(Path(onnx_graph.__file__).read_bytes()).split(":", 1)[1][:_DIGEST_CHARS]


def model_file(model_path: Path, variant: str, home: Path | None = None,
               key: str | None = None, layers: int | None = None) -> Path:
    """Where the exported model of `variant` lives (it may not exist yet); `key`: the model's
    `model_key_for`, when the caller has it already (it reads and hashes the model's files);
    `layers`: only the first `layers` transformer layers (`indexers.first_layers`; fp32 only)."""
    if variant not in VARIANTS:
        raise UnknownModelError(f"unknown ONNX variant {variant!r} (one of {', '.join(VARIANTS)})")
    if layers is not None and variant != VARIANT_FP32:
        raise UnknownModelError(f"a first-layers export is {VARIANT_FP32}, not {variant}")
    base = (key or model_key_for(model_path)).replace(":", "-")
    models = home / MODELS_DIR if home is not None else models_dir()  # $HELIX_MODELS_DIR
    cut = "" if layers is None else f"-l{layers}"
    return models / f"{base}-{variant}{cut}-{_graph_digest()}.onnx"


STALE_TMP_S = 3600.0  # a temporary export file this old belongs to no live export


def _sweep_stale(target: Path) -> None:
    """Temporary files an export killed mid-way left beside `target` (ours by name)."""
    import time

    for old in target.parent.glob(f".{target.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if time.time() - old.stat().st_mtime > STALE_TMP_S:
                old.unlink()


def _write_atomically(target: Path, write: Any) -> None:
    """`write(tmp_path)` fills a temporary file beside `target`, which is then renamed onto it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    _sweep_stale(target)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        with tmp.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _export_fp32(model_path: Path, target: Path, layers: int | None = None) -> None:
    from indexers.onnx_graph import BertShape, build_bert_model

    config = read_json(model_path / "config.json")
    shape = BertShape(
        layers=int(config["num_hidden_layers"]) if layers is None else layers,
        heads=int(config["num_attention_heads"]),
        hidden=int(config["hidden_size"]),
        eps=float(config.get("layer_norm_eps", BERT_LAYER_NORM_EPS)),
        normalize=any(m["type"] == ST_NORMALIZE for m in read_json(model_path / "modules.json")))
    try:
        model = build_bert_model(mmap_safetensors(model_path / "model.safetensors"), shape)
    except KeyError as exc:
        raise UnknownModelError(f"embedding model {model_path} lacks weight {exc}") from None
    _write_atomically(target, lambda tmp: tmp.write_bytes(model.SerializeToString()))


def _quantize(source: Path, target: Path) -> None:
    import onnx

    import_onnxruntime()
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source))
    # the second projection of each feed-forward block reads the GELU's outliers: kept fp32
    keep = [node.name for node in model.graph.node
            if node.op_type == "MatMul" and node.input[1].endswith(".output.dense.weight")
            and ".attention." not in node.input[1]]

    def write(tmp: Path) -> None:
        quantize_dynamic(source, tmp, op_types_to_quantize=["MatMul"], per_channel=True,
                         weight_type=QuantType.QInt8, nodes_to_exclude=keep)

    _write_atomically(target, write)


def ensure_model(model_path: Path, variant: str, home: Path | None = None,
                 layers: int | None = None) -> Path:
    """The exported model file of `variant` (of its first `layers` layers), exported now if it
    is missing."""
    target = model_file(model_path, variant, home, layers=layers)
    if target.is_file():
        return target
    fp32 = model_file(model_path, VARIANT_FP32, home, layers=layers)
    try:
        if not fp32.is_file():
            _export_fp32(model_path, fp32, layers)
        if variant == VARIANT_INT8:
            _quantize(fp32, target)
            file_digest(target)
    except OSError as exc:
        raise HelixError(f"cannot write the exported embedding model {target}: {exc}") from None
    return target


def file_digest(path: Path) -> str:
    """Short sha256 of a model file, remembered beside it (`<file>.sha256`, written after the
    file) so a start does not re-read 70 MB; a missing, older or malformed note is recomputed."""
    import hashlib

    note = path.with_name(path.name + ".sha256")
    with contextlib.suppress(OSError, UnicodeDecodeError):
        fresh = note.stat().st_mtime_ns >= path.stat().st_mtime_ns  # not from an older file
        known = note.read_text("ascii").strip()
        if fresh and len(known) == _DIGEST_CHARS and all(c in "0123456789abcdef" for c in known):
            return known
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_READ_CHUNK):
            sha.update(block)
    value = sha.hexdigest()[:_DIGEST_CHARS]
    with contextlib.suppress(OSError):  # a read-only home still works, only slower
        _write_atomically(note, lambda tmp: tmp.write_text(value + "\n", "ascii"))
    return value


class OnnxEncoder:
    """Embedder over an ONNX Runtime session of the exported model (see module docstring)."""

    def __init__(self, model_path: str, variant: str = VARIANT_FP32,
                 batch_size: int = DEFAULT_BATCH, threads: int = 1, workers: int = 1,
                 home: Path | None = None) -> None:
        self._dir = model_dir(model_path)
        if not numpy_compatible(self._dir):
            raise UnknownModelError(f"not a mean-pooled BERT sentence model: {model_path}")
        self._variant = variant
        self._batch = max(1, batch_size)
        self._workers = max(1, workers)
        self._file = ensure_model(self._dir, variant, home)
        base = model_key_for(self._dir)
        self._key = base if variant == VARIANT_FP32 else (
            f"{base}+onnx-{variant}:{file_digest(self._file)}")
        config = read_json(self._dir / "config.json")
        self._hidden = int(config["hidden_size"])
        max_len = min(max_seq_length(self._dir), int(config["max_position_embeddings"]))
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(self._dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_len)
        self._session = self._open(threads)
        self._recent: dict[str, np.ndarray] = {}
        self._recent_lock = threading.Lock()  # one encoder is shared by the whole process

    def _open(self, threads: int) -> Any:
        ort = import_onnxruntime()

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: shape-merge notes are not the user's
        try:
            return ort.InferenceSession(str(self._file), options,
                                        providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own Fail / InvalidGraph types
            raise UnknownModelError(f"cannot load exported model {self._file}: {exc}") from None

    @classmethod
    def from_settings(cls, settings: IndexSettings, variant: str = VARIANT_FP32,
                      workers: int = 1) -> OnnxEncoder:
        return cls(default_model_path(settings), variant=variant, workers=workers)

    @property
    def model_key(self) -> str:
        return self._key

    @property
    def variant(self) -> str:
        return self._variant

    @property
    def model_file(self) -> Path:
        return self._file

    @property
    def dim(self) -> int:
        return self._hidden

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) != 1:
            return self._embed(texts)
        with self._recent_lock:
            hit = self._recent.get(texts[0])
        if hit is None:  # the controller re-embeds the same question across its steps
            hit = self._embed(texts)[0]
            with self._recent_lock:
                if len(self._recent) >= RECENT_QUERIES:
                    self._recent.pop(next(iter(self._recent)))
                self._recent[texts[0]] = hit
        return hit[None, :].copy()

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._hidden), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        if self._batch == 1:
            # One text per run, no padding: a vector is a function of its text alone (int8's
            # dynamic activation scale is per run, so batch-mates would change it), and it was
            # also the fastest per CPU second. Runs are spread over `workers` threads
            # (onnxruntime releases the GIL); each row is written by exactly one run.
            def one(i: int) -> None:
                out[i] = self._run([encodings[i]])[0]

            if self._workers > 1 and len(texts) > 1:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(max_workers=self._workers) as pool:
                    list(pool.map(one, range(len(texts))))
            else:
                for i in range(len(texts)):
                    one(i)
            return out
        # longest first: each batch pads to similar lengths (ties by position: deterministic)
        order = sorted(range(len(texts)), key=lambda i: (-len(encodings[i].ids), i))
        for start in range(0, len(order), self._batch):
            rows = order[start:start + self._batch]
            out[np.array(rows, dtype=np.int64)] = self._run([encodings[i] for i in rows])
        return out

    def _run(self, encodings: Sequence[Any]) -> np.ndarray:
        length = max(len(enc.ids) for enc in encodings)
        ids = np.zeros((len(encodings), length), dtype=np.int64)
        types = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros((len(encodings), length), dtype=np.int64)
        for r, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[r, :n] = enc.ids
            types[r, :n] = enc.type_ids
            mask[r, :n] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return np.asarray(self._session.run(None, feed)[0], dtype=np.float32)


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


@functools.lru_cache(maxsize=4)
def shared_encoder(model_path: str, home: Path | None = None) -> OnnxEncoder:
    """The adopted encoder, one per model and process (every index an eval builds shares its
    session). `home` is part of the cache key so that each $HELIX_HOME has its own export."""
    return OnnxEncoder(model_path, variant=ADOPTED_VARIANT, batch_size=DEFAULT_BATCH,
                       workers=min(available_cores(), MAX_WORKERS), home=home)
