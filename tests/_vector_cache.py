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
encoder alone and asserts the same bits.

A run with no cache (CI has no persistent home directory, a new machine) starts from the
vectors shipped in tests/fixtures/test_vectors/<portable digest>.npz (scripts/test_vectors
writes them: the sweeps run against an empty cache, every vector they embedded kept): they are
copied into the cache first, so only a text the file lacks is embedded. The portable digest is
the encoder's code, the library versions and the architecture, not the CPU model: another CPU's
kernels change a vector's last bits only (measured: at most 2.8e-7 in any component, a new Xeon
against the file's CPU, 2,279 vectors), and embedding all of them again costs ~50 CPU s, so a new
machine reads them too. The file records the CPU it was computed on; the sample test checks the
vectors read back bit for bit against the encoder on that CPU and within VECTOR_TOLERANCE on any
other (a changed model, encoder or text is off by far more). A changed encoder or library
version changes the digest: the file is not read and the vectors are computed as before."""

from __future__ import annotations

import functools
import os
import platform
import sqlite3
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# what the numpy encoder's vectors are computed by, besides the model (its key)
CODE = ("indexers/encoder.py", "indexers/wordpiece.py")
LIBRARIES = ("numpy", "safetensors", "tokenizers", "threadpoolctl")
SHIPPED = ROOT / "tests" / "fixtures" / "test_vectors"
FROM_SCRATCH = "TEST_VECTORS_FROM_SCRATCH"  # set: the shipped vectors are not read (the script)


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


# how far a vector computed on another CPU may be from this one's (unit vectors; measured 2.8e-7)
VECTOR_TOLERANCE = 1e-5


def _digest(with_cpu: bool) -> str:
    from helix.core.hashing import hash_obj

    return hash_obj({
        "code": {name: (ROOT / name).read_text(encoding="utf-8") for name in CODE},
        "libraries": {name: _version(name) for name in LIBRARIES},
        "cpu": _cpu() if with_cpu else "-", "machine": platform.machine(),
    }).split(":", 1)[1][:16]


def encoder_digest() -> str:
    """What a cached vector depends on besides its model and text (this CPU's included)."""
    return _digest(with_cpu=True)


def portable_digest() -> str:
    """The shipped file's name: the same encoder and libraries on any CPU of this architecture."""
    return _digest(with_cpu=False)


def cpu_name() -> str:
    return _cpu()


def cache_directory() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "helix" / "test-vectors" / encoder_digest()


def shipped_file(digest: str) -> Path:
    """The vectors shipped for a portable digest (scripts/test_vectors writes them)."""
    return SHIPPED / f"{digest}.npz"


def shipped_cpu(digest: str) -> str | None:
    """The CPU the shipped vectors of `digest` were computed on (None: no file)."""
    path = shipped_file(digest)
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as shipped:
        return str(shipped["cpu"]) if "cpu" in shipped.files else None


def seed_from_shipped(directory: Path, digest: str, model_key: str) -> int:
    """Copies the shipped vectors of this portable digest and model into the cache at
    `directory` when it holds fewer for the model; returns how many the file gave (0: no file,
    another model)."""
    from indexers.embed_cache import EmbeddingCache

    path = shipped_file(digest)
    if os.environ.get(FROM_SCRATCH) or not path.is_file():
        return 0
    with np.load(path, allow_pickle=False) as shipped:
        if str(shipped["model_key"]) != model_key:
            return 0
        hashes = [str(h) for h in shipped["text_hashes"]]
        vectors = np.asarray(shipped["vectors"], dtype=np.float32)
    try:
        with EmbeddingCache(directory) as cache:
            if cache.count(model_key) < len(hashes):
                cache.put_many(model_key, dict(zip(hashes, vectors, strict=True)))
    except (sqlite3.Error, OSError):  # a cache that cannot be written costs time only
        return 0
    return len(hashes)


class Recorded:
    """An embedder that records the texts asked of it (and keeps the inner's each-alone)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.texts = inner, list[str]()
        self.model_key, self.dim = inner.model_key, inner.dim
        self.embeds_each_alone = getattr(inner, "embeds_each_alone", False)

    def embed(self, texts: Any) -> np.ndarray:
        self.texts += list(texts)
        return np.asarray(self.inner.embed(texts))


class CacheRead:
    """The cross-run cache's vectors of one model read once into memory, in front of the
    `CachedEmbedder` that wrote them: a text the cache holds is its stored vector (the bits
    `CachedEmbedder` would read back), any other is embedded alone and stored by it, then kept.
    `CachedEmbedder` opens the SQLite file (a file lock, the pragmas, the schema) on every call:
    the sweeps make ~2,400 calls of a few texts each (measured: ~14,600 statements a sweep)."""

    embeds_each_alone = True  # (the CachedEmbedder's: each missing text embedded alone)

    def __init__(self, cached: Any, directory: Path) -> None:
        from indexers.embed_cache import EmbeddingCache

        self.cached, self.model_key, self.dim = cached, cached.model_key, cached.dim
        self.vectors: dict[str, np.ndarray] = {}
        try:
            with EmbeddingCache(directory) as cache, cache._db() as conn:
                rows = conn.execute("SELECT text_hash, dim, vector FROM embeddings"
                                    " WHERE model_key = ?", (self.model_key,)).fetchall()
        except (sqlite3.Error, OSError):  # an unreadable cache: every text through `cached`
            rows = []
        for text_hash, dim, blob in rows:
            vector = np.frombuffer(blob, dtype=np.float32)
            if vector.shape == (dim,):
                self.vectors[text_hash] = vector

    def embed(self, texts: Any) -> np.ndarray:
        from helix.core.hashing import digest

        hashes = [digest(text) for text in texts]
        missing = [t for h, t in zip(hashes, texts, strict=True) if h not in self.vectors]
        if missing:
            got = self.cached.embed(missing)
            self.vectors.update((digest(t), got[n]) for n, t in enumerate(missing))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text_hash in enumerate(hashes):
            out[row] = self.vectors[text_hash]
        return out


@functools.lru_cache(maxsize=1)
def shipped_encoder_cached() -> Any:
    """The shipped query encoder behind the cross-run vector cache (read into memory once)."""
    from helix.core.config import IndexSettings
    from indexers.embed_cache import CachedEmbedder
    from indexers.encoder import query_embedder

    encoder = query_embedder(IndexSettings())
    directory = cache_directory()
    seed_from_shipped(directory, portable_digest(), encoder.model_key)
    return CacheRead(CachedEmbedder(encoder, directory), directory)


def sample(texts: list[str], every: int) -> list[str]:
    """Every `every`-th of the distinct texts in a stable order, and the longest."""
    distinct = sorted(set(texts))
    picked = distinct[::every]
    longest = max(distinct, key=lambda t: (len(t), t))
    return picked + ([longest] if longest not in picked else [])
