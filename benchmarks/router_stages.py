"""Where a warm meaning-router turn spends its CPU time, stage by stage and turn by turn, for
this checkout and an earlier one (`--before-src DIR`, e.g. a `git archive` of main), in one run.

    python benchmarks/router_stages.py [--before-src DIR] [--passes N] [--out FILE]

Every follow-up of the held-apart tuning file (training data; never the reported file) runs
through the real session path (dry run) as the eval runner, a long-lived process, runs it
(`helix.session.warm`: ONNX Runtime where certain). Each turn the meaning router reads is routed
twice, in alternating order: with its reader (the turn as a long-lived process routes it) and
without (the rules alone); what the reader adds is the difference, in CPU ms
(`time.process_time`, which the shared machine's load inflates less than the wall) and wall
ms. The reader's turn is timed by stage:

  rules_route      the vocabulary router (`_by_rules`, every routing of the turn)
  features         the classifier's features       read_plan   the reading made a plan
  encode           ONNX Runtime's forward pass (`QueryOnnxEncoder._run`, tokenizing included;
                   option descriptions too), of which `tokenize`
  products         the message against the exemplar bank
  certain          the readings the numpy encoder could make (`certain.candidate_readings`)
  reroute          the routings after the first: a turn with several possible readings is
                   routed with each (`helix.session.warm.route_turn`)
  numpy            the numpy encoder and classifier (a turn too unsure for ONNX Runtime)
  options          a pending clarifier's options described and embedded
  gc               garbage collections inside the turn
  other_threads    CPU of the process's other threads during the turn (BLAS or ONNX Runtime
                   pools: process time minus the calling thread's)

A warm process embeds a sense clarifier's options on the turn that asks it
(`helix.session.reader.prepare_options`): `prepared` is what that costs the asking turns (CPU
and wall ms of the embedding, and the whole turn's CPU), which the answering turns no longer
pay (`options`).

Per stage: median, p95, mean and the turns it ran in; `tail`: the mean of each stage over the
turns at or above the added CPU's p95 against the others' (what makes the p95); the first-seen
message lengths (ONNX Runtime's first call per input shape) apart; `floor_cpu_ms`: the
stages every warm read runs (the encoder, the products, the certainty check) summed per turn,
below which no other change takes the added CPU. Each checkout runs in its
own process (`--passes` each, alternating after, before, after, ...); the load average is
recorded around each pass. Writes benchmarks/results/router_stages.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_average, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "router_stages.json"
MS = 1000.0
FLOOR = (("encode",), ("encode", "products"), ("encode", "products", "certain"))
STAGES = ("rules_route", "features", "read_plan", "encode", "tokenize", "products", "certain",
          "reroute", "numpy", "options", "gc", "other_threads")


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 3),
            "p95": round(ordered[max(0, int(0.95 * len(ordered)) - 1)], 3),
            "mean": round(statistics.fmean(ordered), 3),
            "turns_with": sum(v > 0 for v in ordered)}


class Turn:
    """The CPU ms of each stage of the turn being routed with its reader."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.active = False
        self.routes = 0
        self._gc = 0.0
        gc.callbacks.append(self._collected)

    def timed(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kw: Any) -> Any:
            if not self.active:
                return fn(*args, **kw)
            cpu = time.process_time()
            try:
                return fn(*args, **kw)
            finally:
                self.add(label, (time.process_time() - cpu) * MS)
        return run

    def add(self, label: str, ms: float) -> None:
        self.cpu[label] = self.cpu.get(label, 0.0) + ms

    def _collected(self, phase: str, _info: dict[str, Any]) -> None:
        if not self.active:
            return
        if phase == "start":
            self._gc = time.process_time()
        else:
            self.add("gc", (time.process_time() - self._gc) * MS)


def _patch(owner: Any, name: str, wrapped: Callable[..., Any],
           saved: list[tuple[Any, str, Any]]) -> None:
    saved.append((owner, name, getattr(owner, name)))
    setattr(owner, name, wrapped)


@contextmanager
def instrumented(turn: Turn) -> Iterator[None]:
    """The warm turn's stages wrapped for timing while open (restored after)."""
    import controller.continuity.router as router
    import helix.session.certain as certain
    import helix.session.reader as reader
    import indexers.onnx_query as onnx_query
    from indexers.encoder import NumpyMiniLMEncoder

    saved: list[tuple[Any, str, Any]] = []
    for owner, name, label in (
            (router, "_by_rules", "rules_route"), (router, "features", "features"),
            (router, "read_plan", "read_plan"), (onnx_query.QueryOnnxEncoder, "_run", "encode"),
            (reader, "products", "products"), (certain, "candidate_readings", "certain"),
            (NumpyMiniLMEncoder, "embed", "numpy"), (reader, "classify", "numpy"),
            (reader, "describe", "options"), (reader, "option_vectors", "options")):
        _patch(owner, name, turn.timed(label, getattr(owner, name)), saved)
    tokens = getattr(onnx_query, "ModelTokenizer", None)  # this checkout's, else the encoder's
    if tokens is not None:
        _patch(tokens, "ids", turn.timed("tokenize", tokens.ids), saved)
    else:
        own, name = onnx_query.QueryOnnxEncoder, "_token_ids"  # main's before routercost14
        _patch(own, name, turn.timed("tokenize", getattr(own, name)), saved)
    route = router.route_turn

    def counted(*args: Any, **kw: Any) -> Any:  # helix.session.warm imports it per turn
        if not turn.active:
            return route(*args, **kw)
        turn.routes += 1
        if turn.routes == 1:
            return route(*args, **kw)
        cpu = time.process_time()
        try:
            return route(*args, **kw)
        finally:
            turn.add("reroute", (time.process_time() - cpu) * MS)

    _patch(router, "route_turn", counted, saved)
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def one_pass() -> dict[str, Any]:
    """The tuning file's follow-ups, each reader-routed turn timed with and without its reader
    (alternating order) and by stage."""
    import helix.session.runner as runner
    from evals.heldapart import heldapart_path, run_file
    from helix.session.warm import is_warm

    route = runner.route_turn
    turn = Turn()
    rows: list[dict[str, Any]] = []
    lengths: set[int] = set()

    def timed(*args: Any, **kw: Any) -> Any:
        if kw.get("reader") is None or not is_warm():
            return route(*args, **kw)
        ways = [("reader", kw["reader"]), ("rules", None)]
        cost: dict[str, tuple[float, float]] = {}
        plan = None
        for name, one in ways if len(rows) % 2 == 0 else ways[::-1]:
            turn.cpu, turn.routes, turn.active = {}, 0, name == "reader"
            cpu, wall = time.process_time(), time.perf_counter()
            own = time.thread_time()
            got = route(*args, **{**kw, "reader": one})
            spent = time.process_time() - cpu
            cost[name] = (spent * MS, (time.perf_counter() - wall) * MS)
            if name == "reader":
                plan, stages = got, dict(turn.cpu)
                stages["other_threads"] = max(0.0, (spent - (time.thread_time() - own)) * MS)
            turn.active = False
        length = len(args[1].split())
        rows.append({"added_cpu": cost["reader"][0] - cost["rules"][0],
                     "added_wall": cost["reader"][1] - cost["rules"][1],
                     "stages": stages, "new_length": length not in lengths})
        lengths.add(length)
        return plan

    prepared: list[dict[str, float]] = []  # the turns that embedded a clarifier's options
    prepare, run_turn = getattr(runner, "prepare_options", None), runner.run_turn

    def timed_prepare(*args: Any, **kw: Any) -> Any:
        import helix.session.reader as reader

        before, cpu = set(reader._OPTION_CACHE), time.process_time()
        wall = time.perf_counter()
        try:
            return prepare(*args, **kw)  # type: ignore[misc]
        finally:
            if set(reader._OPTION_CACHE) - before:  # it embedded
                prepared.append({"cpu": (time.process_time() - cpu) * MS,
                                 "wall": (time.perf_counter() - wall) * MS})

    def timed_turn(*args: Any, **kw: Any) -> Any:  # the whole turn of one that prepared
        count, cpu = len(prepared), time.process_time()
        try:
            return run_turn(*args, **kw)
        finally:
            if len(prepared) > count:
                prepared[-1]["turn_cpu"] = (time.process_time() - cpu) * MS

    runner.route_turn = timed
    runner.run_turn = timed_turn
    if prepare is not None:
        runner.prepare_options = timed_prepare
    started = time.perf_counter()
    try:
        with instrumented(turn):
            scored = list(run_file(heldapart_path("heldapart_tune"),
                                   {"continuity.router": "meaning"}))
    finally:
        runner.route_turn, runner.run_turn = route, run_turn
        if prepare is not None:
            runner.prepare_options = prepare
    return {"rows": rows, "prepared": prepared,
            "seconds": round(time.perf_counter() - started, 1),
            "accuracy": round(sum(r["ok"] for r in scored) / len(scored), 4)}


def report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Added CPU and wall, each stage's distribution, and the p95 turns against the rest."""
    added = [r["added_cpu"] for r in rows]
    p95 = summary(added)["p95"]
    tail = [r for r in rows if r["added_cpu"] >= p95]
    rest = [r for r in rows if r["added_cpu"] < p95]

    def mean(group: list[dict[str, Any]], stage: str) -> float:
        return round(statistics.fmean(r["stages"].get(stage, 0.0) for r in group), 3)

    return {"added_cpu_ms": summary(added),
            "added_wall_ms": summary([r["added_wall"] for r in rows]),
            "added_cpu_ms_seen_lengths": summary([r["added_cpu"] for r in rows
                                                  if not r["new_length"]]),
            "stages_cpu_ms": {s: summary([r["stages"].get(s, 0.0) for r in rows])
                              for s in STAGES},
            # the added CPU's floor: the stages every warm read runs, summed per turn
            "floor_cpu_ms": {"+".join(parts): summary([sum(r["stages"].get(s, 0.0)
                                                           for s in parts) for r in rows])
                             for parts in FLOOR},
            "tail": {"turns": len(tail),
                     "stage_mean_ms": {s: [mean(tail, s), mean(rest, s)] for s in STAGES},
                     "several_routings": [sum(r["stages"].get("reroute", 0) > 0 for r in g)
                                          for g in (tail, rest)]}}


def child(src: Path) -> None:
    """One pass in this process over checkout `src`; its report as the last line."""
    sys.path[:0] = [str(src), str(src / "evals")]
    from evals.heldapart import fresh_home

    os.environ["HELIX_HOME"] = os.environ.get("ROUTER_STAGES_HOME") or fresh_home()
    got = one_pass()
    prepared = got["prepared"]
    print(json.dumps({"report": report(got["rows"]), "seconds": got["seconds"],
                      "accuracy": got["accuracy"],
                      "prepared": {"cpu_ms": summary([p["cpu"] for p in prepared]),
                                   "wall_ms": summary([p["wall"] for p in prepared]),
                                   "turn_cpu_ms": summary([p.get("turn_cpu", 0.0)
                                                           for p in prepared])}
                      if prepared else None}))


def run_pass(src: Path, home: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{src / 'evals'}",
           "ROUTER_STAGES_HOME": home}
    load = load_average()
    done = subprocess.run([sys.executable, __file__, "--child", str(src)], env=env, check=True,
                          capture_output=True, text=True, cwd=src)
    out = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    out["load"] = [load, load_average()]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--before-src", type=Path, default=None,
                        help="an earlier checkout (e.g. git archive main) timed as 'before'")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child)
        return
    if args.before_src is not None and not (args.before_src / "helix").is_dir():
        sys.exit(f"router_stages: no Helix checkout in {args.before_src}")
    import tempfile

    sources = {"after": ROOT}
    if args.before_src is not None:
        sources["before"] = args.before_src
    # one home per checkout, shared by its passes: the models laid out once (its first pass)
    homes = {name: tempfile.mkdtemp(prefix=f"helix-router-stages-{name}-") for name in sources}
    started = cpu_seconds(children=True)
    passes: dict[str, Any] = {}
    for n in range(args.passes):
        for name in sources if n % 2 == 0 else list(sources)[::-1]:
            passes[f"{n + 1}-{name}"] = run_pass(sources[name], homes[name])
    result = {"passes": passes, "before_src": str(args.before_src) if args.before_src else None,
              "cpu_seconds": round(cpu_seconds(children=True) - started, 1),
              "machine": machine()}
    write_result(args.out, result, indent=1)
    print("added CPU ms median/p95 (wall median), load:")
    for name, got in passes.items():
        rep = got["report"]
        print(name.ljust(10), rep["added_cpu_ms"]["median"], rep["added_cpu_ms"]["p95"],
              f"({rep['added_wall_ms']['median']})", got["load"])


if __name__ == "__main__":
    main()
