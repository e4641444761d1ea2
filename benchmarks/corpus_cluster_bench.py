"""Corpus build and ranker-rows on a local Ray cluster against the serial loop, same run.

    python benchmarks/corpus_cluster_bench.py --mirrors /work/.mirror \
        --trees /work/tmp/corpus_trees_h --work /work/tmp/ccb \
        --only tenacity --only python-fire --only typer --only anyhow [--out FILE]

Two stages, each run serially in this process, then as one Ray task per repository on a
cluster started here (`--cluster local`: this machine's CPUs), from nothing each time (fresh
work directories and a fresh HELIX_HOME, so no cache or index of the other run is reused):
    build   `helix eval corpus build --only ...`: each repository's history mined at R
    rows    `helix eval corpus ranker-rows`: each repository's tree indexed, every case asked
            through helix.service.ask with the recorder (all splits of the chosen ones)
Both runs must write the same bytes (cases.jsonl and manifest.json; every row file): checked.
Reported per stage: wall times and the speed-up, the serial run's CPU seconds, the Ray
tasks' own seconds (their sum against the serial sum: what sharing the cores cost), and the
per-task overhead (an empty Ray task's round trip, and the Ray wall time above the tasks' own
time spread over the task slots); the Ray start-up apart; the 1-minute load average before and
after (the machine is shared). Writes benchmarks/results/corpus_cluster_bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _ray import local_ray
from _result import cpu_seconds, load_1m, machine, show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "corpus_cluster_bench.json"
EMPTY_TASKS = 100


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _timed(home: Path, run: Callable[[], Any]) -> tuple[Any, float, float]:
    """(value, wall s, this process's CPU s) of `run` under a fresh HELIX_HOME."""
    shutil.rmtree(home, ignore_errors=True)
    os.environ["HELIX_HOME"] = str(home)
    wall, cpu = time.perf_counter(), cpu_seconds()
    value = run()
    return value, time.perf_counter() - wall, cpu_seconds() - cpu


def _stage(serial: tuple[Any, float, float], fan: Any, serial_task_s: float,
           same: bool) -> dict[str, Any]:
    _, wall, cpu = serial
    books = fan.report()
    slots = min(os.cpu_count() or 1, max(1, books["tasks"]))
    return {"tasks": books["tasks"], "same_bytes": same,
            "serial_wall_s": round(wall, 2), "serial_cpu_s": round(cpu, 2),
            "serial_task_s": round(serial_task_s, 2),
            "ray_wall_s": books["wall_s"], "ray_task_s": books["task_s"],
            "speedup_vs_serial": round(wall / books["wall_s"], 3),
            "ray_task_s_over_serial_task_s": round(books["task_s"] / serial_task_s, 3),
            "ray_excess_s_per_task": round(
                (books["wall_s"] * slots - books["task_s"]) / max(1, books["tasks"]), 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, default=ROOT / "data/evals/corpus_repos.json")
    parser.add_argument("--cases", type=Path, default=ROOT / "data/corpus/cases.jsonl")
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--trees", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--only", action="append", required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    from evals.cluster import FanOut, corpus_fan_out, rows_fan_out
    from evals.corpus.build import build, load_cases
    from evals.corpus.features import collect
    from evals.corpus.repos import load_repo_list

    listing = load_repo_list(args.repos)
    listing = listing.model_copy(update={
        "repos": tuple(e for e in listing.repos if e.name in set(args.only))})
    repos = [(e.name, e.split) for e in listing.repos]
    cases = [c for c in load_cases(args.cases) if c.repo in set(args.only)]
    work = args.work
    for name in ("build-serial", "build-ray", "rows-serial", "rows-ray"):
        shutil.rmtree(work / name, ignore_errors=True)
    load_before = load_1m()

    def mine(label: str, mine_map: Any = None) -> Any:
        return build(listing, args.mirrors, work / f"build-{label}" / "work",
                     work / f"build-{label}" / "out", mine_map=mine_map)

    def rows(label: str, collect_map: Any = None) -> Any:
        return collect(args.trees, work / f"rows-{label}", repos, cases, {},
                       collect_map=collect_map)

    build_serial = _timed(work / "home-build-serial", lambda: mine("serial"))
    rows_serial = _timed(work / "home-rows-serial", lambda: rows("serial"))
    _, startup, overhead_ms = local_ray(EMPTY_TASKS, warm=4)
    os.environ["HELIX_HOME"] = str(work / "home-build-ray")
    shutil.rmtree(work / "home-build-ray", ignore_errors=True)
    build_fan = FanOut("local")  # its tasks run under the HELIX_HOME set when it is made
    mine("ray", corpus_fan_out(build_fan))
    os.environ["HELIX_HOME"] = str(work / "home-rows-ray")
    shutil.rmtree(work / "home-rows-ray", ignore_errors=True)
    rows_fan = FanOut("local")
    rows_ray = rows("ray", rows_fan_out(rows_fan))
    mined_s = {}
    for path in sorted((work / "build-serial" / "work").glob("*.json")):
        mined_s[path.stem] = json.loads(path.read_text(encoding="utf-8"))["seconds"]
    result = {
        "machine": machine(),
        "repos": repos, "cases": len(cases),
        "cases_per_repo": {n: sum(c.repo == n for c in cases) for n, _ in repos},
        "ray_startup_s": round(startup, 2),
        "per_task_overhead": {"empty_task_ms": round(overhead_ms, 2)},
        "build": _stage(build_serial, build_fan, sum(mined_s.values()),
                        _files(work / "build-serial" / "out")
                        == _files(work / "build-ray" / "out")),
        "rows": _stage(rows_serial, rows_fan, sum(v["seconds"] for v in rows_serial[0].values()),
                       _files(work / "rows-serial") == _files(work / "rows-ray")),
        "per_repo_serial_s": {"build": mined_s,
                              "rows": {n: v["seconds"] for n, v in rows_serial[0].items()}},
        "per_repo_ray_s": {"rows": {n: v["seconds"] for n, v in rows_ray.items()}},
        "load_average_1m": {"before": load_before, "after": load_1m()},
    }
    write_result(args.out, result, indent=1)
    show({k: result[k] for k in ("build", "rows", "load_average_1m")}, indent=1)
    return 0 if result["build"]["same_bytes"] and result["rows"]["same_bytes"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
