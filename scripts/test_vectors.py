"""Write the shipped encoder's vectors of the absence sweeps' texts into
tests/fixtures/test_vectors/<encoder digest>.npz (tests/_vector_cache.py reads them into an
empty cache, so a run without a persistent home, as CI, embeds none of them again).

    PYTHONPATH=. python scripts/test_vectors.py

Runs the two sweeps (tests/test_absence_sets.py, tests/test_absence_by_encoder.py) with an
empty cache of their own and the shipped file unread, then writes every vector they embedded
(sorted by text hash, with the model key) and removes the files of other digests. Run it after
a change to the sets, the encoder, its model or the locked numpy/tokenizers versions; the
file's name is the portable digest (encoder code, library versions, architecture: not the CPU
model, which the file records), so a new machine reads it too."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SWEEPS = ("tests/test_absence_sets.py::test_the_shipped_encoder_on_every_written_set",
          "tests/test_absence_by_encoder.py::"
          "test_the_shipped_encoder_refuses_the_written_absence_claims")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from indexers.embed_cache import CACHE_FILE
    from tests._vector_cache import FROM_SCRATCH, SHIPPED, cpu_name, encoder_digest, portable_digest

    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, XDG_CACHE_HOME=scratch, **{FROM_SCRATCH: "1"})
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist",
                               "-p", "no:cacheprovider", *SWEEPS], cwd=ROOT, env=env)
        if done.returncode != 0:
            print("test_vectors: the sweeps failed; nothing written", file=sys.stderr)
            return 1
        digest = encoder_digest()
        import sqlite3

        database = Path(scratch) / "helix" / "test-vectors" / digest / CACHE_FILE
        with sqlite3.connect(database) as conn:
            rows = sorted(conn.execute("SELECT model_key, text_hash, vector FROM embeddings"))
    keys = {key for key, _, _ in rows}
    if len(keys) != 1:
        print(f"test_vectors: expected one model key, found {sorted(keys)}", file=sys.stderr)
        return 1
    SHIPPED.mkdir(parents=True, exist_ok=True)
    out = SHIPPED / f"{portable_digest()}.npz"
    tmp = out.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, model_key=np.array(keys.pop()), cpu=np.array(cpu_name()),
                        text_hashes=np.array([h for _, h, _ in rows]),
                        vectors=np.stack([np.frombuffer(v, dtype=np.float32) for _, _, v in rows]))
    tmp.replace(out)
    for other in SHIPPED.glob("*.npz"):
        if other != out:
            other.unlink()
    print(f"test_vectors: {len(rows)} vectors -> {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
