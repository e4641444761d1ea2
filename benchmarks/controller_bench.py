"""Controller latency on the standard-library index: warm in one process, and cold via the CLI.

    python benchmarks/controller_bench.py [--no-embed] [--cold N] [--out FILE]

1. Copies the standard library (minus site-packages and tests) to $HELIX_HOME/eval-repos/stdlib
   once and builds its index (embeddings included unless --no-embed; cached afterwards).
2. Warm: one process, index and query encoder loaded once; every question of
   data/evals/stdlib_bench.jsonl through `run_controller` (dry run). p50/p95 over the questions
   (target p50 < 300 ms). Retrieval quality (hit@k, MRR) is scored on the same runs.
3. Cold: the same questions through `helix ask --dry-run --json` as a subprocess each, process
   start, imports, index freshness check and query embedding included (target p50 < 2 s).
   Each CLI envelope's item hashes are compared with the warm process's: determinism across
   processes (`cross_process_hash_equal_rate`).

Writes benchmarks/results/controller_bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _result import machine, show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WARM_TARGET_P50_MS = 300.0
COLD_TARGET_P50_MS = 2000.0
SUITE = "stdlib_bench"


def _stats(values: list[float]) -> dict[str, float]:
    from evals.metrics import percentile

    return {"n": len(values), "p50_ms": round(percentile(values, 50), 1),
            "p95_ms": round(percentile(values, 95), 1),
            "mean_ms": round(sum(values) / len(values), 1) if values else 0.0,
            "max_ms": round(max(values), 1) if values else 0.0}


def warm(no_embed: bool) -> tuple[dict[str, Any], Path]:
    from evals.metrics import aggregate, score_case
    from evals.runner import PreparedRepo, materialize_stdlib
    from evals.suites import load_suite

    suite = load_suite(SUITE)
    root = materialize_stdlib()
    t0 = time.perf_counter()
    repo = PreparedRepo(root, {}, no_embed=no_embed)
    setup_s = time.perf_counter() - t0
    repo.ask("warm-up: where is json.dumps defined?")  # first-touch loads are not latency
    results, times, hashes = [], [], {}
    for case in suite.cases:
        start = time.perf_counter()
        first = repo.ask(case.question)
        elapsed = (time.perf_counter() - start) * 1000.0
        times.append(elapsed)
        second = repo.ask(case.question)
        hashes[case.id] = first.item_hashes
        results.append(score_case(case, SUITE, first, second, time_ms=elapsed,
                                  time_ms_repeat=0.0))
    report = repo.report
    totals = aggregate(results)
    return {
        "setup_s": round(setup_s, 2),
        "index": {"files": report.files_indexed, "chunks": report.chunks.get("total"),
                  "embedded_chunks": report.embeddings.get("total", 0),
                  "build_seconds": report.seconds, "noop": report.noop},
        "query_embedder": type(repo.embedder).__name__ if repo.embedder else None,
        "latency": _stats(times),
        "quality": {k: totals[k] for k in ("hit@1", "hit@3", "hit@5", "hit@10", "mrr",
                                           "hash_stable_rate", "llm_steps_zero_rate")},
        "stop_reasons": {r: sum(1 for x in results if x.stop_reason == r)
                         for r in sorted({x.stop_reason for x in results})},
        "item_hashes": hashes,
    }, root


def cold(root: Path, no_embed: bool, limit: int | None,
         warm_hashes: dict[str, dict[str, str]]) -> dict[str, Any]:
    from evals.suites import load_suite

    cases = load_suite(SUITE).cases[:limit]
    env = dict(os.environ)
    if no_embed:
        env["HELIX_INDEX__EMBED_ENABLED"] = "false"
    exe = shutil.which("helix")
    helix = [exe] if exe else [sys.executable, "-m", "helix.cli.main"]
    times, failures, same = [], [], []
    for case in cases:
        start = time.perf_counter()
        proc = subprocess.run([*helix, "ask", "--dry-run", "--json", "--repo", str(root),
                               case.question], capture_output=True, text=True, env=env,
                              check=False)
        elapsed = (time.perf_counter() - start) * 1000.0
        envelope = json.loads(proc.stdout) if proc.returncode == 0 else {}
        ok = envelope.get("llm_steps") == 0
        # determinism across processes: the CLI's item hashes equal the warm process's
        same.append(envelope.get("item_hashes") == warm_hashes.get(case.id))
        if not ok:
            failures.append({"id": case.id, "rc": proc.returncode, "stderr": proc.stderr[-300:]})
        times.append(elapsed)
    return {"latency": _stats(times), "failures": failures,
            "cross_process_hash_equal_rate": round(sum(same) / len(same), 4) if same else None,
            "command": f"{' '.join(helix)} ask --dry-run --json --repo <stdlib> QUESTION"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-embed", action="store_true")
    parser.add_argument("--cold", type=int, default=None, help="only the first N cold runs")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/controller_bench.json"))
    args = parser.parse_args()
    warm_result, root = warm(args.no_embed)
    cold_result = cold(root, args.no_embed, args.cold, warm_result.pop("item_hashes"))
    result = {
        "machine": machine(),
        "no_embed": args.no_embed,
        "questions": SUITE,
        "warm": warm_result,
        "cold_cli": cold_result,
        "targets": {
            "warm_p50_ms": WARM_TARGET_P50_MS,
            "warm_p50_met": warm_result["latency"]["p50_ms"] < WARM_TARGET_P50_MS,
            "cold_p50_ms": COLD_TARGET_P50_MS,
            "cold_p50_met": cold_result["latency"]["p50_ms"] < COLD_TARGET_P50_MS,
        },
    }
    write_result(args.out, result)
    show({"warm": warm_result["latency"], "cold_cli": cold_result["latency"],
          "cross_process_hash_equal_rate": cold_result["cross_process_hash_equal_rate"],
          "quality": warm_result["quality"], "targets": result["targets"]})


if __name__ == "__main__":
    main()
