"""What the learned absence head adds to the answer contract, per answer, warm (issue 32).

    python benchmarks/absence_head_latency.py [--out FILE] [--limit N]

Every answer of the absence sets (data/evals/meaning/absence_answers*.json) is checked by
`helix.synthesis.contract.check_answer` with the shipped encoder and thresholds, without the
head (the baseline, same run) and with it, alternately, each after one untimed warm-up pass
(the exemplar vectors loaded, every span of the answer embedded once: the encoder's cost is the
same on both sides and is timed apart). Reports the median and p95 per answer of each side and
of the difference (CPU time of this process), with the machine's load. Writes
benchmarks/results/absence_head_latency.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
OUT = ROOT / "benchmarks" / "results" / "absence_head_latency.json"


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--limit", type=int, default=0, help="answers timed (0: all)")
    args = parser.parse_args()
    import absence_meaning as bench
    from _result import cpu_seconds, load_average, machine, show, write_result

    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_head import AbsenceHead
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from helix.synthesis.contract import check_answer
    from indexers.encoder import query_embedder

    cases = [c for p in sorted((ROOT / "data" / "evals" / "meaning").glob(
        "absence_answers*.json")) for c in bench._cases(json.loads(p.read_text("utf-8")))]
    cases = cases[:args.limit] if args.limit else cases
    embedder = bench.Memo(query_embedder(IndexSettings()))
    policy, head = HelixConfig().synthesis.absence, AbsenceHead.load()
    load = load_average()
    sides: dict[str, list[float]] = {"without": [], "with": [], "encoder": []}
    for case in cases:
        def run(with_head: bool, c: dict[str, Any] = case) -> float:
            meaning = AbsenceMeaning(embedder, policy)  # a fresh one: no score kept
            start = time.process_time()
            check_answer(c["text"], c["refs"], evidence=c["evidence"], meaning=meaning,
                         question=c["question"], head=head if with_head else None)
            return time.process_time() - start

        calls = embedder.calls
        start = time.process_time()
        run(True)  # warm-up: embeds the answer's spans once
        if embedder.calls > calls:
            sides["encoder"].append(time.process_time() - start)
        sides["without"].append(run(False))
        sides["with"].append(run(True))
    added = [b - a for a, b in zip(sides["without"], sides["with"], strict=True)]
    ms = 1000.0
    result = {
        "answers": len(cases), "load_before": load, "load_after": load_average(),
        "machine": machine(), "cpu_seconds": round(cpu_seconds(), 1),
        "ms_per_answer": {
            name: {"median": round(statistics.median(v) * ms, 3), "p95": round(_p95(v) * ms, 3)}
            for name, v in (*sides.items(), ("added", added)) if v},
        "note": "CPU ms of this process; 'encoder' is the first (untimed-side) pass of an "
                "answer whose spans were not yet embedded, the same with or without the head",
    }
    write_result(args.out, result, 1)
    show(result["ms_per_answer"])


if __name__ == "__main__":
    main()
