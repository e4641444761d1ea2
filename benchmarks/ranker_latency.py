"""The learned ranker's cost per warm question, against the hand order, in one process.

    python benchmarks/ranker_latency.py [--repeat 2] [--out FILE] [--candidate-config TOML]
        [--ranker JSON] [--against-learned [--baseline-ranker JSON]]

The standard library's index (`evals.runner.materialize_stdlib`, lexical) answers the 51
questions of data/evals/stdlib_bench.jsonl through `run_controller` twice over: once with the
hand order and once with the learned ranker (`retrieval.ranker.mode = "learned"`: the shipped
model, its manifest copied without its `routes` list, so that it orders every question, not only
the `issue` route's, none of which this suite holds; or the model --candidate-config names),
each pass after the other, `--repeat` times,
in alternating order (hand first, then learned first), so that neither always meets the other's
warm caches. Reported: p50/p95 of each, and the median of the per-question differences
(learned - hand; target: at most 10 ms), in wall time and in the process's CPU time (the
machine is shared: the CPU time is what the ranker costs, the wall time what a user waits), with
the load average at the start and the end. `--ranker '{"considered": 1000}'` sets
`retrieval.ranker` keys of the learned side; with `--against-learned` the baseline ("hand" in
the result) is the learned ranker without them, with `--baseline-ranker`'s keys (e.g. the
pool before the budget: `{"files": 6, "max_candidates": 160, "considered": 0}`): what a
setting costs.
Writes benchmarks/results/ranker_latency.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "ranker_latency.json"
SUITE = "stdlib_bench"
TARGET_MS = 10.0


def _p(values: list[float], q: float) -> float:
    from evals.metrics import percentile

    return round(percentile(values, q), 2)


def every_route(into: Path) -> dict[str, Any]:
    """The shipped model under `into` with no `routes` list (it orders every question), and
    the settings that name it."""
    from helix.core.hashing import digest

    shipped = ROOT / "data" / "ranker"
    manifest = json.loads((shipped / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("routes", None)
    shutil.copyfile(shipped / manifest["model"], into / manifest["model"])
    raw = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")
    (into / "manifest.json").write_bytes(raw)
    return {"retrieval.ranker": {"mode": "learned", "manifest": str(into / "manifest.json"),
                                 "digest": digest(raw)}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--candidate-config", default=None)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--ranker", default=None, help="retrieval.ranker keys (JSON object) "
                        "for the learned side")
    parser.add_argument("--against-learned", action="store_true",
                        help="the baseline is the learned ranker without --ranker's keys")
    parser.add_argument("--baseline-ranker", default=None, help="retrieval.ranker keys (JSON "
                        "object) for the baseline's learned side (--against-learned)")
    args = parser.parse_args()
    from evals.cli.run_common import candidate_overrides
    from evals.runner import PreparedRepo, materialize_stdlib
    from evals.suites import load_suite

    questions = [c.question for c in load_suite(SUITE).cases]
    root = materialize_stdlib()
    scratch = tempfile.TemporaryDirectory()
    learned = candidate_overrides(args.candidate_config) if args.candidate_config else \
        every_route(Path(scratch.name))
    # the hand order as it was the default (evals/configs/hand_ranker.toml's retrieval keys;
    # the learned ranker is the default since the A/B gate promoted it). Its index key
    # (history_commits 0) is left out: the standard library's copy has no git history, and
    # one index serves both sides
    hand = {k: v for k, v in candidate_overrides("hand_ranker").items()
            if not k.startswith("index.")}
    baseline = learned if args.against_learned else hand
    if args.against_learned and args.baseline_ranker:
        baseline = {**learned, "retrieval.ranker": {**learned["retrieval.ranker"],
                                                    **json.loads(args.baseline_ranker)}}
    if args.ranker:
        learned = {**learned, "retrieval.ranker": {**learned["retrieval.ranker"],
                                                   **json.loads(args.ranker)}}
    repos = {"hand": PreparedRepo(root, baseline, no_embed=True),
             "learned": PreparedRepo(root, learned, no_embed=True)}
    for repo in repos.values():
        repo.ask("warm-up: where is json.dumps defined?")  # first-touch loads are not latency
    load_start = os.getloadavg()
    times: dict[str, list[list[float]]] = {"hand": [], "learned": []}
    cpu: dict[str, list[list[float]]] = {"hand": [], "learned": []}
    for n in range(args.repeat):
        order = ("hand", "learned") if n % 2 == 0 else ("learned", "hand")
        for name in order:
            run, run_cpu = [], []
            for question in questions:
                started, started_cpu = time.perf_counter(), time.process_time()
                repos[name].ask(question)
                run.append((time.perf_counter() - started) * 1000.0)
                run_cpu.append((time.process_time() - started_cpu) * 1000.0)
            times[name].append(run)
            cpu[name].append(run_cpu)
    result: dict[str, Any] = {
        "benchmark": "ranker_latency", "questions": len(questions), "repeat": args.repeat,
        "learned_overrides": learned if args.candidate_config else {
            "model": "data/ranker, every route", "mode": "learned",
            "digest": learned["retrieval.ranker"]["digest"],
            **({"ranker": json.loads(args.ranker)} if args.ranker else {})},
        "baseline": (f"the learned ranker, retrieval.ranker {args.baseline_ranker or '{}'}"
                     if args.against_learned else "the hand order (hand_ranker.toml)"),
        "command": " ".join(["python", "benchmarks/ranker_latency.py", *sys.argv[1:]]),
        "load_average": {"start": [round(v, 2) for v in load_start],
                         "end": [round(v, 2) for v in os.getloadavg()]},
        "target_ms": TARGET_MS}
    for unit, measured in (("", times), ("cpu_", cpu)):
        hand = [min(r[i] for r in measured["hand"]) for i in range(len(questions))]
        mine = [min(r[i] for r in measured["learned"]) for i in range(len(questions))]
        delta = [b - a for a, b in zip(hand, mine, strict=True)]
        result[f"{unit}hand"] = {"p50_ms": _p(hand, 50), "p95_ms": _p(hand, 95)}
        result[f"{unit}learned"] = {"p50_ms": _p(mine, 50), "p95_ms": _p(mine, 95)}
        result[f"{unit}delta_median_ms"] = round(statistics.median(delta), 2)
        result[f"{unit}delta_p95_ms"] = _p(delta, 95)
    result["target_met"] = result["delta_median_ms"] <= TARGET_MS
    result["cpu_target_met"] = result["cpu_delta_median_ms"] <= TARGET_MS
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
