"""The dense channel's query-side adapter, as shipped (`retrieval.dense_adapter`, off by default).

The question's vector q becomes q (I + U V^T), L2-normalised again, before the dense search; the
chunks' vectors do not change, so an index needs no re-embedding. U and V (d x r each) were
fitted on the history corpus's train split (docs/ranker.md, Round 31;
`benchmarks/dense_adapter_fit.py ship` writes them). The shipped files, `dense_adapter_model/`:
`adapter.npy` (float32, shape (2, d, r): U then V) and `manifest.json` (its `file` and
`file_digest`, how it was fitted and measured). The file is read once per process, its digest
checked against the manifest; a missing, altered or malformed file is a one-line ConfigError.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np

from helix.core.errors import ConfigError
from helix.core.hashing import digest
from helix.core.schemas import Hit
from helix.core.section_settings import RetrievalSettings

MODEL_DIR = Path(__file__).resolve().parent / "dense_adapter_model"


class DenseAdapter:
    """x -> normalise(x (I + U V^T)), computed as x + (x U) V^T (r/d of the full product)."""

    def __init__(self, u: np.ndarray, v: np.ndarray) -> None:
        self.u = u.astype(np.float32)
        self.v = v.astype(np.float32)

    @property
    def dim(self) -> int:
        return int(self.u.shape[0])

    def apply(self, vector: np.ndarray) -> np.ndarray:
        """One vector (d,) or a batch (n, d) through the adapter, L2-normalised."""
        x = np.asarray(vector, dtype=np.float32)
        out = x + (x @ self.u) @ self.v.T
        norms = np.linalg.norm(out, axis=-1, keepdims=True)
        return (out / np.maximum(norms, 1e-6)).astype(np.float32)


def _fail(folder: Path, why: str) -> ConfigError:
    return ConfigError(f"dense adapter in {folder} unusable: {why} "
                       "(turn retrieval.dense_adapter off or reinstall Helix)")


def _manifest(folder: Path) -> dict[str, object]:
    try:
        manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise _fail(folder, f"manifest.json unreadable ({type(exc).__name__})") from None
    if not isinstance(manifest, dict) or not all(
            isinstance(manifest.get(key), str) for key in ("file", "file_digest")):
        raise _fail(folder, "manifest.json names no file and file_digest")
    return manifest


def load(folder: Path) -> DenseAdapter:
    """The adapter in `folder` (its manifest.json and the file it names, digest checked)."""
    manifest = _manifest(folder)
    name = str(manifest["file"])
    if Path(name).name != name:
        raise _fail(folder, f"manifest.json names a file outside it: {name!r}")
    try:
        data = (folder / name).read_bytes()
    except OSError as exc:
        raise _fail(folder, f"{name} unreadable ({exc.strerror or type(exc).__name__})") from None
    if digest(data) != manifest["file_digest"]:
        raise _fail(folder, f"{name} is not the file its manifest names (digest differs)")
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise _fail(folder, f"{name} is no .npy array ({type(exc).__name__})") from None
    if array.ndim != 3 or array.shape[0] != 2 or array.dtype.kind != "f":
        raise _fail(folder, f"{name} holds shape {array.shape}, not (2, d, r)")
    if not np.isfinite(array).all():
        raise _fail(folder, f"{name} holds a non-finite value")
    return DenseAdapter(array[0], array[1])


@cache
def shipped() -> DenseAdapter:
    """The adapter shipped with Helix, read once per process."""
    return load(MODEL_DIR)


DenseMode = Literal["off", "adapted", "union"]


def dense_mode(settings: RetrievalSettings) -> DenseMode:
    """How the dense channel searches: the index's own question vector (`off`), the vector
    through the shipped adapter (`adapted`, retrieval.dense_adapter), or both lists as one
    (`union`, retrieval.dense_adapter_union with dense_adapter)."""
    if not settings.dense_adapter:
        return "off"
    return "union" if settings.dense_adapter_union else "adapted"


def union_hits(plain: Sequence[Hit], adapted: Sequence[Hit], k: int) -> list[Hit]:
    """Two dense lists as one: each chunk at its better rank of the two, ties to the plain
    list's, in that order, ranked 1..k again (pure)."""
    best: dict[str, tuple[int, int, float]] = {}
    for which, hits in enumerate((plain, adapted)):
        for hit in hits:
            key = (hit.rank, which, hit.score)
            if hit.chunk_id not in best or key[:2] < best[hit.chunk_id][:2]:
                best[hit.chunk_id] = key
    order = sorted(best, key=lambda cid: (best[cid][0], best[cid][1], cid))[:k]
    return [Hit(chunk_id=cid, score=best[cid][2], channel="dense", rank=rank)
            for rank, cid in enumerate(order, start=1)]
