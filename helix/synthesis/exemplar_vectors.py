"""The absence exemplars' vectors under the shipped sentence encoder, shipped as data.

    shipped_vectors(model_key, digest) -> (absence, answer) float32 arrays, or None

`helix.synthesis.absence_meaning` compares an answer's sentences with 200-odd exemplars; their
vectors depend only on the encoder (its model key) and the exemplars (their digest), so they
are computed once, by `python -m evals.absence_vectors`, and shipped in absence_vectors/
(vectors.npy: the absence exemplars' rows, then the answer exemplars'; manifest.json: the
key, the digest and the row counts). A user's first answer then embeds no exemplar (it was
~5 CPU s for each new $HELIX_HOME). Another encoder, or exemplars edited since the vectors were
written, get None: the caller embeds them as before (`--check` in the command says the shipped
file is stale; tests/test_exemplar_vectors.py runs it).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

VECTORS_DIR = "absence_vectors"
VECTORS_FILE = "vectors.npy"
MANIFEST_FILE = "manifest.json"


@functools.lru_cache(maxsize=1)
def _manifest() -> dict[str, Any] | None:
    try:
        text = resources.files("helix.synthesis").joinpath(VECTORS_DIR, MANIFEST_FILE)
        found = json.loads(text.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def shipped_vectors(model_key: str, digest: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The shipped (absence, answer) exemplar vectors when they were computed by `model_key`
    over the exemplars of `digest`; None otherwise (or when the file cannot be read)."""
    manifest = _manifest()
    if (manifest is None or manifest.get("model_key") != model_key
            or manifest.get("exemplars_digest") != digest):
        return None
    import numpy as np

    try:
        with resources.files("helix.synthesis").joinpath(VECTORS_DIR, VECTORS_FILE).open(
                "rb") as handle:
            vectors = np.load(handle, allow_pickle=False)
    except (OSError, ValueError):
        return None
    absence, answer = int(manifest.get("absence", -1)), int(manifest.get("answer", -1))
    if vectors.dtype != np.float32 or vectors.ndim != 2 or vectors.shape[0] != absence + answer:
        return None
    return vectors[:absence], vectors[absence:]
