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
from functools import cache
from pathlib import Path

import numpy as np

from helix.core.errors import ConfigError
from helix.core.hashing import digest

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
