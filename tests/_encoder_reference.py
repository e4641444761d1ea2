"""The committed reference vectors of the encoders (tests/fixtures/encoder_reference/:
sentence-transformers' vectors of tests/test_encoder_onnx.py's ST_TEXTS, written by
scripts/encoder_reference.py) and what their manifest records: every file of the model by
sha256, the versions of the libraries that computed them, the vectors' digest."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import numpy as np

from helix.core.hashing import digest, digest_file

REFERENCE = Path(__file__).resolve().parent / "fixtures" / "encoder_reference"
VECTORS = REFERENCE / "vectors.npy"
MANIFEST = REFERENCE / "manifest.json"
# what computes the reference (the numpy encoder shares `tokenizers` and the model's files)
LIBRARIES = ("sentence-transformers", "tokenizers", "torch", "transformers")


def model_files(model_dir: Path) -> dict[str, str]:
    """sha256 of every file of the model directory, by its path inside it."""
    return {path.relative_to(model_dir).as_posix(): digest_file(path)
            for path in sorted(model_dir.rglob("*")) if path.is_file()}


def library_versions() -> dict[str, str]:
    """The installed versions, without a local label (torch's `+cpu` is the locked 2.13.0)."""
    return {name: metadata.version(name).split("+", 1)[0] for name in LIBRARIES}


def vectors_digest(vectors: np.ndarray) -> str:
    return digest(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
