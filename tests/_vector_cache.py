"""The shipped encoder's vectors of the texts the data-set sweeps embed, kept by content across
test runs: tests/test_absence_sets.py and tests/test_absence_by_encoder.py run the answer
contract with the real encoder over every written absence set (~1,600 spans, each embedded
alone: ~30 CPU s a run, the same texts every run).

The cache is the product's embedding cache (`indexers.embed_cache.CachedEmbedder`: (model key,
text hash) -> vector; a missing text is embedded alone, as `AbsenceMeaning` embeds it, so a
vector read back is the one the encoder gives) in a directory outside the checkout, like
scripts/test's mypy cache, named for everything else a vector depends on: the encoder's code,
the versions of the libraries that compute it and the CPU (OpenBLAS picks its kernels by CPU).
A changed model changes the model key, a changed encoder the directory: no vector is read back
that the encoder would not give now. A directory that cannot be written costs time, never a
result (the embedding cache's rule). tests/test_absence_sets.py's
test_the_cached_vectors_are_the_encoders embeds a sample of the cached texts again with the
encoder alone and asserts the same bits."""

from __future__ import annotations

import functools
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# what the numpy encoder's vectors are computed by, besides the model (its key)
CODE = ("indexers/encoder.py", "indexers/wordpiece.py")
LIBRARIES = ("numpy", "safetensors", "tokenizers", "threadpoolctl")


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith(("model name", "flags")):
                    return line.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def encoder_digest() -> str:
    """What a cached vector depends on besides its model and text."""
    from helix.core.hashing import hash_obj

    return hash_obj({
        "code": {name: (ROOT / name).read_text(encoding="utf-8") for name in CODE},
        "libraries": {name: _version(name) for name in LIBRARIES},
        "cpu": _cpu(), "machine": platform.machine(),
    }).split(":", 1)[1][:16]


def cache_directory() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "helix" / "test-vectors" / encoder_digest()


class Recorded:
    """An embedder that records the texts asked of it (and keeps the inner's each-alone)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.texts = inner, []
        self.model_key, self.dim = inner.model_key, inner.dim
        self.embeds_each_alone = getattr(inner, "embeds_each_alone", False)

    def embed(self, texts: Any) -> np.ndarray:
        self.texts += list(texts)
        return np.asarray(self.inner.embed(texts))


@functools.lru_cache(maxsize=1)
def shipped_encoder_cached() -> Any:
    """The shipped query encoder behind the cross-run vector cache."""
    from helix.core.config import IndexSettings
    from indexers.embed_cache import CachedEmbedder
    from indexers.encoder import query_embedder

    return CachedEmbedder(query_embedder(IndexSettings()), cache_directory())


def sample(texts: list[str], every: int) -> list[str]:
    """Every `every`-th of the distinct texts in a stable order, and the longest."""
    distinct = sorted(set(texts))
    picked = distinct[::every]
    longest = max(distinct, key=lambda t: (len(t), t))
    return picked + ([longest] if longest not in picked else [])
