"""Where a warm meaning-router turn spends its CPU time, stage by stage, for the shipped model
and an earlier one in the same run (`--before-model DIR`, e.g. a model of main's history).

    python benchmarks/router_stages.py [--before-model DIR] [--out FILE]

Every follow-up of the held-apart tuning file (training data; never the reported file) runs
through the real session path (dry run) as benchmarks/router_heldapart.py runs it. A turn
routed with the reader is timed by stage with `time.process_time` (the process's CPU time,
which the shared machine's load does not inflate; wall time beside it): `rules_route` (the
vocabulary router), `embed` (the packaged encoder on the message), `features`, `classify` (the
exemplar product, the text features, the head), `read_plan` (the reading made a plan), and the
whole turn with the reader and again without it (`total_with_reader`, `total_rules_only`).
Per stage: median, mean and p95 in ms. The models run in the order before, shipped, before,
shipped (each model twice: a first pass's caches are warm for the second).
Writes benchmarks/results/router_stages.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "router_stages.json"
MS = 1000.0
PASSES = 2


class Stages:
    """CPU and wall ms per stage of the turns routed with a reader."""

    def __init__(self) -> None:
        self.turn: dict[str, float] = {}
        self.rows: dict[str, list[float]] = {}
        self.active = False

    def timed(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kw: Any) -> Any:
            if not self.active:
                return fn(*args, **kw)
            cpu, wall = time.process_time(), time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                self.add(label, cpu, wall)
        return run

    def add(self, label: str, cpu: float, wall: float) -> None:
        for key, value in ((label, time.process_time() - cpu),
                           (f"{label}_wall", time.perf_counter() - wall)):
            self.turn[key] = self.turn.get(key, 0.0) + value * MS

    def keep(self) -> None:
        for key, value in self.turn.items():
            self.rows.setdefault(key, []).append(value)
        self.turn.clear()

    def summary(self) -> dict[str, dict[str, float]]:
        out = {}
        for key, values in sorted(self.rows.items()):
            ordered = sorted(values)
            out[key] = {"median": round(statistics.median(ordered), 3),
                        "mean": round(statistics.fmean(ordered), 3),
                        "p95": round(ordered[max(0, int(0.95 * len(ordered)) - 1)], 3),
                        "turns": len(ordered)}
        return out


@contextmanager
def instrumented(stages: Stages) -> Iterator[None]:
    """The router's stages wrapped for timing while open (restored after)."""
    import controller.continuity.router as router
    import helix.session.reader as reader
    import helix.session.runner as runner
    from indexers.encoder import NumpyMiniLMEncoder

    saved = [(router, "_by_rules"), (router, "features"), (router, "read_plan"),
             (reader, "classify"), (NumpyMiniLMEncoder, "embed"), (runner, "route_turn")]
    originals = [getattr(owner, name) for owner, name in saved]
    labels = {"_by_rules": "rules_route"}
    for owner, name in saved[:-1]:
        setattr(owner, name, stages.timed(labels.get(name, name), getattr(owner, name)))
    route = originals[-1]

    def turn(*args: Any, **kw: Any) -> Any:
        if kw.get("reader") is None:
            return route(*args, **kw)
        stages.active = True
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            plan = route(*args, **kw)
        finally:
            stages.active = False
        stages.add("total_with_reader", cpu, wall)
        cpu, wall = time.process_time(), time.perf_counter()
        route(*args, **{**kw, "reader": None})
        stages.add("total_rules_only", cpu, wall)
        stages.keep()
        return plan

    runner.route_turn = turn  # type: ignore[assignment]
    try:
        yield
    finally:
        for (owner, name), original in zip(saved, originals, strict=True):
            setattr(owner, name, original)


def run_model(before: Path | None) -> dict[str, Any]:
    """One pass over the tuning file with the shipped model (or the one in `before`)."""
    from contextlib import nullcontext

    from benchmarks.router_heldapart import BeforeModel, before_flags
    from evals.heldapart import heldapart_path, run_file

    stages = Stages()
    flags = before_flags(before) if before else {"continuity.router": "meaning"}
    started = time.perf_counter()
    with BeforeModel(before) if before else nullcontext(), instrumented(stages):
        rows = list(run_file(heldapart_path("heldapart_tune"), flags))
    return {"stages": stages.summary(), "seconds": round(time.perf_counter() - started, 1),
            "accuracy": round(sum(r["ok"] for r in rows) / len(rows), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--before-model", type=Path, default=None)
    args = parser.parse_args()
    if args.before_model is not None and not (args.before_model / "head.json").is_file():
        sys.exit(f"router_stages: no model in {args.before_model}")
    from evals.heldapart import fresh_home

    os.environ["HELIX_HOME"] = fresh_home()
    models: dict[str, Path | None] = {"shipped": None}
    if args.before_model is not None:
        models = {"before": args.before_model, **models}
    result: dict[str, Any] = {"passes": {}, "load": [load_1m()], "machine": machine()}
    for n in range(PASSES):
        for name, path in models.items():
            result["passes"][f"{n + 1}-{name}"] = run_model(path)
    result["load"].append(load_1m())
    result["cpu_seconds"] = round(cpu_seconds(), 1)
    result["before_model"] = str(args.before_model) if args.before_model else None
    write_result(args.out, result, indent=1)
    keys = sorted(k for k in next(iter(result["passes"].values()))["stages"]
                  if not k.endswith("_wall"))
    print("CPU ms median/p95".ljust(20), *(k.ljust(16) for k in result["passes"]))
    for key in keys:
        print(key.ljust(20), *(f"{r['stages'][key]['median']:6.3f} {r['stages'][key]['p95']:6.3f}"
                               .ljust(16) for r in result["passes"].values()))
    print("load", result["load"])


if __name__ == "__main__":
    main()
