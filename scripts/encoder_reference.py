"""The encoders' reference vectors: sentence-transformers (torch) over tests/test_encoder_onnx.py's
ST_TEXTS, written to tests/fixtures/encoder_reference/ (vectors.npy and manifest.json: the texts,
the sha256 of every file of the shipped model, the versions of the libraries that computed them
and the vectors' digest), so the suite compares the numpy and ONNX encoders with the reference
model's output without importing torch (~15 CPU s a run: tests/test_encoder_onnx.py's
test_numpy_encoder_matches_the_reference_model).

    PYTHONPATH=. python scripts/encoder_reference.py          # write them
    PYTHONPATH=. python scripts/encoder_reference.py --check  # recompute; exit 1 if they differ

Run it after a change to the model, the texts or the locked torch / transformers /
sentence-transformers / tokenizers (the test fails until it is run: the manifest no longer
matches). `--check` is what CI may run to see the committed vectors are the model's today.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
# sentence-transformers' vectors of the same texts agree to this (one BLAS, one CPU: ~1e-7)
CHECK_ATOL = 1e-5


def compute(texts: list[str], model_path: str) -> np.ndarray:
    """sentence-transformers' vectors of `texts` through Helix's wrapper (the text beyond
    max_seq_length in a batch of its own, as the test embeds it), checked against the bare
    model's `encode` (the wrapper restores the input order after sorting by length)."""
    from indexers.encoder import SentenceTransformerEmbedder

    model = SentenceTransformerEmbedder(model_path)
    vectors = np.vstack([model.embed(texts[:-1]), model.embed(texts[-1:])])
    bare = model._load().encode(texts[:-1], normalize_embeddings=True, convert_to_numpy=True)
    np.testing.assert_allclose(vectors[:-1], bare, atol=1e-5)
    return vectors.astype(np.float32)


def manifest(texts: list[str], model_dir: Path, vectors: np.ndarray) -> dict[str, Any]:
    from tests._encoder_reference import library_versions, model_files, vectors_digest

    return {"texts": texts, "model_files": model_files(model_dir),
            "libraries": library_versions(), "shape": list(vectors.shape),
            "vectors": vectors_digest(vectors),
            "made_by": "PYTHONPATH=. python scripts/encoder_reference.py"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="recompute with sentence-transformers and compare; write nothing")
    args = parser.parse_args(argv)
    from test_encoder_onnx import MODEL_DIR, MODEL_PATH, ST_TEXTS

    from helix.core.hashing import canonical_json
    from tests._encoder_reference import MANIFEST, REFERENCE, VECTORS

    vectors = compute(list(ST_TEXTS), MODEL_PATH)
    made = manifest(list(ST_TEXTS), MODEL_DIR, vectors)
    if args.check:
        committed = json.loads(MANIFEST.read_text(encoding="utf-8"))
        stored = np.load(VECTORS, allow_pickle=False)
        problems = [f"{key} differs" for key in ("texts", "model_files", "libraries")
                    if committed.get(key) != made[key]]
        if stored.shape != vectors.shape or not np.allclose(stored, vectors, atol=CHECK_ATOL):
            problems.append("the vectors differ from sentence-transformers' today")
        for problem in problems:
            print(f"encoder_reference: {problem}: run scripts/encoder_reference.py",
                  file=sys.stderr)
        return 1 if problems else 0
    REFERENCE.mkdir(parents=True, exist_ok=True)
    tmp = VECTORS.with_name("vectors.tmp.npy")
    np.save(tmp, vectors, allow_pickle=False)
    tmp.replace(VECTORS)
    tmp = MANIFEST.with_name("manifest.tmp.json")
    tmp.write_text(canonical_json(made, indent=1) + "\n", encoding="utf-8")
    tmp.replace(MANIFEST)
    print(f"encoder_reference: {vectors.shape[0]} vectors of {MODEL_DIR.name} written",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
