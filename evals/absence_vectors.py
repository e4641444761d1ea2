"""Write the absence exemplars' shipped vectors (`helix/synthesis/absence_vectors/`):

    python -m evals.absence_vectors [--check]

Each exemplar of helix/synthesis/absence_exemplars.toml is embedded alone by the shipped
sentence encoder (the numpy query encoder `helix ask` uses), exactly as
`helix.synthesis.absence_meaning` embeds them when no shipped vectors match. Run it after
editing the exemplars (or changing the encoder): until then every process embeds them itself.
`--check` computes them into memory and fails unless the shipped files are what it would
write (the vectors within 1e-5).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "helix" / "synthesis" / "absence_vectors"


def compute() -> tuple[dict[str, Any], bytes]:
    """The manifest and the .npy bytes the shipped encoder gives the current exemplars."""
    from helix.core.config import IndexSettings
    from helix.synthesis.absence_meaning import _embed_each, load_exemplars
    from helix.synthesis.exemplar_vectors import MANIFEST_FILE, VECTORS_FILE
    from indexers.encoder import query_embedder

    encoder = query_embedder(IndexSettings())
    ex = load_exemplars()
    vectors = np.vstack([_embed_each(encoder, ex.absence), _embed_each(encoder, ex.answer)])
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
    manifest = {"absence": len(ex.absence), "answer": len(ex.answer),
                "command": "python -m evals.absence_vectors", "dim": int(vectors.shape[1]),
                "exemplars_digest": ex.digest, "files": [VECTORS_FILE, MANIFEST_FILE],
                "model_key": encoder.model_key}
    return manifest, buffer.getvalue()


def manifest_text(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail unless the shipped vectors are what this would write")
    args = parser.parse_args(argv)
    from helix.synthesis.exemplar_vectors import MANIFEST_FILE, VECTORS_FILE

    manifest, data = compute()
    if args.check:
        try:
            shipped = (OUT / MANIFEST_FILE).read_text(encoding="utf-8")
            with (OUT / VECTORS_FILE).open("rb") as handle:
                vectors = np.load(handle, allow_pickle=False)
            # another machine's BLAS may round a last bit differently: equal within 1e-5
            same = shipped == manifest_text(manifest) and bool(np.allclose(
                vectors, np.load(io.BytesIO(data), allow_pickle=False), rtol=0, atol=1e-5))
        except (OSError, ValueError):
            same = False
        if not same:
            print(f"{OUT} is stale: run python -m evals.absence_vectors", file=sys.stderr)
            return 1
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / VECTORS_FILE).write_bytes(data)
    (OUT / MANIFEST_FILE).write_text(manifest_text(manifest), encoding="utf-8")
    print(f"wrote {OUT}: {manifest['absence']} absence and {manifest['answer']} answer "
          f"exemplars, {manifest['model_key']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
