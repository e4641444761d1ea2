"""A new $HELIX_HOME's first answer check: the absence exemplars' vectors shipped with Helix
(`helix.synthesis.exemplar_vectors`) against embedding them (the baseline, same run).

    python benchmarks/exemplar_vectors_bench.py [--out FILE] [--rounds N]

Each round starts two fresh processes, alternately: each loads the shipped sentence encoder and
checks one answer that claims the evidence lacks the answer (`AbsenceMeaning.claims`, as
`helix ask` does after a model's answer) in a new $HELIX_HOME, one with the shipped vectors and
one with them set aside (the exemplars embedded through the home's embedding cache, as before
they shipped). Reports each side's median CPU seconds (user + system of the child) and wall
seconds, the ratio, and that both found the same claims. Writes
benchmarks/results/exemplar_vectors_bench.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
OUT = ROOT / "benchmarks" / "results" / "exemplar_vectors_bench.json"
ANSWER = "There is nothing in these files that decides retries [E1]."
CHILD = """
import json, sys
from helix.core.config import HelixConfig, IndexSettings
from helix.core.paths import embedding_cache_dir
from helix.synthesis import absence_meaning, exemplar_vectors
from indexers.embed_cache import CachedEmbedder
from indexers.encoder import query_embedder
if sys.argv[1] == "embedded":
    absence_meaning.shipped_vectors = lambda *_: None
encoder = query_embedder(IndexSettings())
meaning = absence_meaning.AbsenceMeaning(encoder, HelixConfig().synthesis.absence,
                                         CachedEmbedder(encoder, embedding_cache_dir()))
claims = meaning.claims(sys.argv[2], frozenset())
print(json.dumps([[c.start, c.end] for c in claims]))
"""


def _run(side: str) -> tuple[float, float, str]:
    from _result import cpu_seconds

    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HELIX_HOME": home,
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        cpu, start = cpu_seconds(children=True), time.perf_counter()
        done = subprocess.run([sys.executable, "-c", CHILD, side, ANSWER], env=env, check=True,
                              capture_output=True, text=True)
        return cpu_seconds(children=True) - cpu, time.perf_counter() - start, done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from _result import load_average, machine, show, write_result

    load = load_average()
    sides: dict[str, list[tuple[float, float, str]]] = {"shipped": [], "embedded": []}
    for _ in range(args.rounds):
        for side in sides:
            sides[side].append(_run(side))
    found = {side: sorted({r[2] for r in rows}) for side, rows in sides.items()}
    cpu = {side: statistics.median(r[0] for r in rows) for side, rows in sides.items()}
    result = {
        "answer": ANSWER, "rounds": args.rounds, "load_before": load,
        "load_after": load_average(), "machine": machine(),
        "claims": found["shipped"], "same_claims": found["shipped"] == found["embedded"],
        "cpu_s_median": {side: round(v, 2) for side, v in cpu.items()},
        "wall_s_median": {side: round(statistics.median(r[1] for r in rows), 2)
                          for side, rows in sides.items()},
        "cpu_ratio_embedded_over_shipped": round(cpu["embedded"] / cpu["shipped"], 2),
        "note": "a fresh process and $HELIX_HOME each: the encoder loaded, one answer checked",
    }
    write_result(args.out, result, indent=1)
    show(result)


if __name__ == "__main__":
    main()
