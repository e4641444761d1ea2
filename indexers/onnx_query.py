"""ONNX Runtime for one short text at a time: a session turn's message, read by the meaning router.

The build's fp32 export (`indexers.onnx_encoder`: the reference vectors up to float rounding and
the reference's `model_key`) run as a query-sized session: one thread, no spinning (on a loaded
2-core machine a spinning pool burns CPU waiting), sequential execution. ONNX Runtime's kernels
take a 9-token message in about half the CPU time of the numpy encoder's BLAS calls
(benchmarks/router_cost.py, `warm`).

A cold start must not parse the 90 MB export and optimize its graph each time: the graph is
optimized once (`ORT_ENABLE_EXTENDED`: no hardware-specific layout) and saved beside the export
(`$HELIX_MODELS_DIR`, else `$HELIX_HOME/models/`), named by the export's name (model key and
graph digest) and the onnxruntime version, its weights in a side file (`.data`) that onnxruntime
maps instead of copying; later processes load it with optimization off (`optimized_file`). The
export itself is unchanged (`indexers.onnx_encoder.model_file`): builds find it where they did.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.errors import HelixError, UnknownModelError
from indexers.encoder import max_seq_length, model_dir, model_key_for, numpy_compatible, read_json
from indexers.first_layers import first_layers_key
from indexers.onnx_encoder import (
    RECENT_QUERIES,
    STALE_TMP_S,
    VARIANT_FP32,
    ensure_model,
    import_onnxruntime,
    model_file,
)
from indexers.wordpiece import ModelTokenizer

OPTIMIZED_TAG = "opt"
DATA_SUFFIX = ".data"
# initializers at least this large go to the side file (every weight matrix; a LayerNorm's
# vectors stay inline: small enough that mapping them saves nothing)
EXTERNAL_MIN_BYTES = 1024
LOG_ERRORS_ONLY = 3


def optimized_file(model_path: Path, home: Path | None = None, key: str | None = None,
                   layers: int | None = None) -> Path:
    """The optimized graph of `model_path`'s fp32 export (of its first `layers` layers) for
    this onnxruntime (it may not exist yet); its weights are `<same name>.data` beside it.
    Beside the export: `home`'s models, or where exported models are kept
    (`$HELIX_MODELS_DIR`, else `$HELIX_HOME/models`)."""
    ort = import_onnxruntime()
    export = model_file(model_path, VARIANT_FP32, home, key, layers)
    return export.with_name(f"{export.stem}-{OPTIMIZED_TAG}-ort{ort.__version__}.onnx")


def _session_options(ort: Any, *, optimize: bool) -> Any:
    options = ort.SessionOptions()
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
                                        if optimize else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    options.log_severity_level = LOG_ERRORS_ONLY
    return options


def ensure_optimized(model_path: Path, home: Path | None = None,
                     key: str | None = None, layers: int | None = None) -> Path:
    """The optimized graph file, written now (from the export, exported first if missing) when
    absent. Both files are written in a private directory and renamed into place, the weights
    first: the graph file appears only when its weights are complete."""
    target = optimized_file(model_path, home, key, layers)
    if target.is_file() and target.with_suffix(DATA_SUFFIX).is_file():
        return target
    ort = import_onnxruntime()
    source = ensure_model(model_path, VARIANT_FP32, home, layers)
    _sweep_stale_work(target)
    try:
        work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.stem}."))
        try:
            options = _session_options(ort, optimize=True)
            options.optimized_model_filepath = str(work / target.name)
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_file_name",
                target.with_suffix(DATA_SUFFIX).name)
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_min_size_in_bytes",
                str(EXTERNAL_MIN_BYTES))
            ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
            data = target.with_suffix(DATA_SUFFIX)
            os.replace(work / data.name, data)
            os.replace(work / target.name, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    except OSError as exc:
        raise HelixError(f"cannot write the optimized embedding model {target}: {exc}") from None
    except Exception as exc:  # onnxruntime raises its own Fail / InvalidGraph types
        raise UnknownModelError(f"cannot optimize exported model {source}: {exc}") from None
    return target


def _sweep_stale_work(target: Path) -> None:
    """Private directories an optimization killed mid-way left beside `target` (ours by name;
    old enough to belong to no live one)."""
    for work in target.parent.glob(f".{target.stem}.*"):
        with contextlib.suppress(OSError):
            if work.is_dir() and time.time() - work.stat().st_mtime > STALE_TMP_S:
                shutil.rmtree(work, ignore_errors=True)


class QueryOnnxEncoder:
    """Embedder for a few short texts per call, each run alone (its vector depends on its text
    only); vectors of texts seen before in the process are kept (`RECENT_QUERIES`). With
    `layers`, the first `layers` transformer layers only (`FirstLayersEncoder`'s, same key)."""

    def __init__(self, model_path: str, home: Path | None = None,
                 layers: int | None = None) -> None:
        self._dir = model_dir(model_path)
        if not numpy_compatible(self._dir):
            raise UnknownModelError(f"not a mean-pooled BERT sentence model: {model_path}")
        config = read_json(self._dir / "config.json")
        if layers is not None and not 1 <= layers <= int(config["num_hidden_layers"]):
            raise UnknownModelError(f"embedding model {model_path} has no {layers} layers")
        base = model_key_for(self._dir)  # the fp32 export's: the reference's key
        self._key = first_layers_key(base, layers)
        self._file = ensure_optimized(self._dir, home, base, layers)
        self._hidden = int(config["hidden_size"])
        self._max_len = min(max_seq_length(self._dir), int(config["max_position_embeddings"]))
        # the numpy encoder's tokenizers: plain-Python WordPiece for the texts it reads
        # exactly, `tokenizers` (built by its first use) for the others
        self._tokens = ModelTokenizer(self._dir, self._max_len)
        ort = import_onnxruntime()
        try:
            self._session = ort.InferenceSession(str(self._file),
                                                 _session_options(ort, optimize=False),
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own Fail / InvalidGraph types
            raise UnknownModelError(f"cannot load optimized model {self._file}: {exc}") from None
        self._recent: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()  # one encoder is shared by the whole process

    @property
    def model_key(self) -> str:
        return self._key

    @property
    def dim(self) -> int:
        return self._hidden

    @property
    def model_file(self) -> Path:
        return self._file

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._hidden), dtype=np.float32)
        for i, text in enumerate(texts):
            with self._lock:
                hit = self._recent.get(text)
            if hit is None:
                hit = self._run(text)
                with self._lock:
                    if len(self._recent) >= RECENT_QUERIES:
                        self._recent.pop(next(iter(self._recent)))
                    self._recent[text] = hit
            out[i] = hit
        return out

    def _run(self, text: str) -> np.ndarray:
        token_ids, type_ids = self._tokens.ids([text])[0]
        ids = np.array([token_ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.array([type_ids], dtype=np.int64)}
        return np.asarray(self._session.run(None, feed)[0][0], dtype=np.float32)


_SHARED: dict[tuple[str, int | None], QueryOnnxEncoder] = {}
_SHARED_LOCK = threading.Lock()


def shared_query_encoder(model_path: str, home: Path | None = None,
                         layers: int | None = None) -> QueryOnnxEncoder:
    """One session per model (and layer count) and process, its files made where the first
    caller's models are (the model decides the vectors, not where its optimized copy lies: a
    process serving or testing many homes loads it once)."""
    with _SHARED_LOCK:
        if (model_path, layers) not in _SHARED:
            _SHARED[model_path, layers] = QueryOnnxEncoder(model_path, home, layers)
        return _SHARED[model_path, layers]
