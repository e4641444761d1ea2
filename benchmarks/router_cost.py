"""What a meaning-router turn adds, warm and cold, before and after a change, in one run.

Issue 32's limits: at most 15 ms warm and 300 ms to a cold `helix ask --session`.

    python benchmarks/router_cost.py --before-src DIR [--cold-runs N] [--skip-warm] [--out FILE]

warm   every follow-up of the held-apart tuning file (never the reported file) through the
       real session path with the meaning router, as the eval runner (a long-lived process)
       runs it; each turn that has a reader is routed three times, the order alternating turn
       by turn: as the long-lived process reads it (`warm`: ONNX Runtime where that cannot
       change the route, `helix.session.warm`), with the numpy encoder (`numpy`: main's reader,
       and a one-shot process's) and without a reader (the rules alone). The CPU
       (`time.process_time`) and wall ms the reader adds to a turn: median, p95, max; the warm
       turns' CPU split by whether a garbage collection ran in them and whether ONNX Runtime
       met the message's length (in words) for the first time.
cold   a follow-up (`COLD_FOLLOW_UP`) asked with `helix ask --session` in a fresh process,
       `continuity.router` "meaning" against "rules", for this checkout ("after") and
       `--before-src` (e.g. a `git archive` of main), the four interleaved run after run; per
       checkout the child's median CPU and wall ms and what meaning adds (difference of the
       medians; median of the run-by-run differences).
parts  the reader's own cold cost in a fresh process (`session_reader` built, the follow-up
       read: encoder, model, first forward pass), CPU and wall ms per checkout, with its parts
       (`PARTS_CHILD`: the encoder's construction, of which its key; the meaning model, from
       its bank or its files; the first embed; the classifier) and whether `tokenizers` was
       imported.
Writes benchmarks/results/router_cost.json (the load average before and after is in it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_average, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "router_cost.json"
COLD_FOLLOW_UP = "open the second one"
ROOT_QUESTION = "where is the BM25 index built?"
MS = 1000.0

# a fresh process building the session reader and reading one follow-up, timed by part
PARTS_CHILD = """
import json, sys, time
from pathlib import Path
import helix.session.runner
from helix.core.config import HelixConfig
from helix.session import reader
import controller.continuity.meaning as meaning
import indexers.encoder as encoder
parts = {}
def timed(owner, name, label, first_only=False):
    real = getattr(owner, name)
    def run(*args, **kw):
        if first_only and label in parts:
            return real(*args, **kw)
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return real(*args, **kw)
        finally:
            got = parts.setdefault(label, [0.0, 0.0])
            got[0] += (time.process_time() - cpu) * 1000.0
            got[1] += (time.perf_counter() - wall) * 1000.0
    setattr(owner, name, run)
timed(encoder.NumpyMiniLMEncoder, "__init__", "encoder_init")
timed(encoder, "model_key_for", "model_key")
timed(encoder.NumpyMiniLMEncoder, "embed", "first_embed", first_only=True)
timed(reader, "shipped_model", "meaning_load")
timed(reader, "classify", "classify")
cpu, wall = time.process_time(), time.perf_counter()
read = reader.session_reader(HelixConfig(), Path(sys.argv[1]))
got = read(meaning.Features(text=sys.argv[2], flags=(0.0,) * len(meaning.FLAG_NAMES),
                            rules="pick"))
parts["reader_total"] = [(time.process_time() - cpu) * 1000.0,
                         (time.perf_counter() - wall) * 1000.0]
print(json.dumps({"parts": parts, "tokenizers": "tokenizers" in sys.modules,
                  "onnxruntime": "onnxruntime" in sys.modules,
                  "reading": [got.meaning, got.confidence]}))
"""


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 2),
            "p95": round(ordered[max(0, int(0.95 * len(ordered)) - 1)], 2),
            "max": round(ordered[-1], 2), "turns": len(ordered)}


class TurnNotes:
    """What happened during a timed call: garbage collections (by generation), and whether
    ONNX Runtime met a message length (its token count) for the first time."""

    def __init__(self) -> None:
        import gc

        self.collections: list[int] = []
        self.lengths: set[int] = set()
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.collections.append(int(info["generation"]))

    def close(self) -> None:
        import gc

        gc.callbacks.remove(self._gc)


def warm() -> dict[str, Any]:
    """The tuning file's follow-ups, each reader-routed turn timed three ways: as a long-lived
    process reads it (ONNX Runtime where certain, `helix.session.warm`), with the numpy
    encoder (main's reader; a one-shot process's) and without a reader (the rules alone); the
    order alternating turn by turn. The warm turns' tail is split by what happened in them."""
    import helix.session.runner as runner
    from evals.heldapart import heldapart_path, run_file
    from helix.session.reader import router_embedder
    from helix.session.warm import is_warm

    route, make_reader = runner.route_turn, runner.session_reader
    twins: dict[int, Any] = {}
    added: dict[str, list[float]] = {f"{w}_{u}": [] for w in ("warm", "numpy")
                                     for u in ("cpu", "wall")}
    tail: dict[str, list[float]] = {"gc": [], "no_gc": [], "new_length": [], "seen_length": []}
    notes = TurnNotes()
    numpy_encoder = router_embedder()

    def spy_reader(config: Any, root: Path, *args: Any, **kw: Any) -> Any:
        made = make_reader(config, root, *args, **kw)
        if made is not None:
            twins[id(made)] = make_reader(config, root, embedder=numpy_encoder)
        return made

    def timed(*args: Any, **kw: Any) -> Any:
        reader = kw.get("reader")
        if reader is None or id(reader) not in twins or not is_warm():
            return route(*args, **kw)
        ways = [("warm", reader), ("numpy", twins[id(reader)]), ("rules", None)]
        if len(added["warm_cpu"]) % 2:
            ways = [ways[1], ways[0], ways[2]]
        cost: dict[str, tuple[float, float]] = {}
        plan = None
        for name, one in ways:
            collected = len(notes.collections)
            cpu, wall = time.process_time(), time.perf_counter()
            got = route(*args, **{**kw, "reader": one})
            cost[name] = ((time.process_time() - cpu) * MS, (time.perf_counter() - wall) * MS)
            if name == "warm":
                plan, gc_ran = got, len(notes.collections) > collected
        for name in ("warm", "numpy"):
            added[f"{name}_cpu"].append(cost[name][0] - cost["rules"][0])
            added[f"{name}_wall"].append(cost[name][1] - cost["rules"][1])
        warm_cpu = added["warm_cpu"][-1]
        tail["gc" if gc_ran else "no_gc"].append(warm_cpu)
        length = len(args[1].split())
        tail["seen_length" if length in notes.lengths else "new_length"].append(warm_cpu)
        notes.lengths.add(length)
        return plan

    runner.route_turn, runner.session_reader = timed, spy_reader
    try:
        for _ in run_file(heldapart_path("heldapart_tune"), {"continuity.router": "meaning"}):
            pass
    finally:
        runner.route_turn, runner.session_reader = route, make_reader
        notes.close()
    out: dict[str, Any] = {name: summary(values) for name, values in added.items()}
    out["warm_cpu_by_turn_kind"] = {k: summary(v) for k, v in tail.items() if v}
    return out


def _env(src: Path, home: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{src / 'evals'}", "HELIX_HOME": home}


def _ask(src: Path, home: str, root: Path, session: str, text: str,
         router: str) -> tuple[float, float]:
    """The CPU and wall ms of one `helix ask --session` process of checkout `src`."""
    env = {**_env(src, home), "HELIX_CONTINUITY__ROUTER": router,
           "HELIX_INDEX__EMBED_ENABLED": "false"}
    cpu, wall = cpu_seconds(children=True), time.perf_counter()
    subprocess.run([sys.executable, "-m", "helix.cli.main", "ask", "--repo", str(root),
                    "--dry-run", "--session", session, text], env=env, check=True,
                   capture_output=True, cwd=src)
    return (cpu_seconds(children=True) - cpu) * MS, (time.perf_counter() - wall) * MS


def _parts(src: Path, home: str, root: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", PARTS_CHILD, str(root), COLD_FOLLOW_UP],
                         env=_env(src, home), check=True, capture_output=True, text=True,
                         cwd=src)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _medians(rows: list[dict[str, Any]]) -> dict[str, Any]:
    labels = sorted({label for row in rows for label in row["parts"]})
    return {"cpu_ms": {k: round(statistics.median(r["parts"].get(k, [0, 0])[0] for r in rows), 1)
                       for k in labels},
            "wall_ms": {k: round(statistics.median(r["parts"].get(k, [0, 0])[1] for r in rows), 1)
                        for k in labels},
            "tokenizers_imported": sorted({r["tokenizers"] for r in rows}),
            "onnxruntime_imported": sorted({r.get("onnxruntime", False) for r in rows}),
            "readings": sorted({json.dumps(r["reading"]) for r in rows})}


def cold(sources: dict[str, Path], runs: int) -> dict[str, Any]:
    from evals.scenarios import resolve_repo

    root = resolve_repo("fixture:continuity_repo")
    homes = {name: tempfile.mkdtemp(prefix=f"helix-router-cost-{name}-") for name in sources}
    for name, src in sources.items():  # the index each home builds once
        _ask(src, homes[name], root, "warm-index", ROOT_QUESTION, "rules")
        _ask(src, homes[name], root, "first-use", COLD_FOLLOW_UP, "meaning")
    asks: dict[str, dict[str, list[tuple[float, float]]]] = {
        n: {"meaning": [], "rules": []} for n in sources}
    parts: dict[str, list[dict[str, Any]]] = {n: [] for n in sources}
    order = [(n, r) for n in sources for r in ("meaning", "rules")]
    for run in range(runs):
        for name, router in order if run % 2 == 0 else order[::-1]:
            session = f"cold-{router}-{run}"
            _ask(sources[name], homes[name], root, session, ROOT_QUESTION, router)
            asks[name][router].append(_ask(sources[name], homes[name], root, session,
                                           COLD_FOLLOW_UP, router))
        for name in sources if run % 2 == 0 else list(sources)[::-1]:
            parts[name].append(_parts(sources[name], homes[name], root))
    out: dict[str, Any] = {"runs": runs}
    for name in sources:
        entry: dict[str, Any] = {}
        for i, unit in enumerate(("cpu", "wall")):
            values = {r: [x[i] for x in v] for r, v in asks[name].items()}
            med = {r: statistics.median(v) for r, v in values.items()}
            pairs = [m - r for m, r in zip(values["meaning"], values["rules"], strict=True)]
            entry[f"ask_{unit}_ms"] = {r: round(v, 1) for r, v in med.items()}
            entry[f"added_{unit}_ms"] = round(med["meaning"] - med["rules"], 1)
            entry[f"added_{unit}_ms_paired_median"] = round(statistics.median(pairs), 1)
        entry["reader_parts"] = _medians(parts[name])
        out[name] = entry
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-src", type=Path, required=True,
                        help="an earlier checkout (e.g. git archive main) timed cold as 'before'")
    parser.add_argument("--cold-runs", type=int, default=9)
    parser.add_argument("--skip-warm", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not (args.before_src / "helix").is_dir():
        sys.exit(f"router_cost: no Helix checkout in {args.before_src}")
    from evals.heldapart import fresh_home

    os.environ["HELIX_HOME"] = fresh_home()
    sources = {"after": ROOT, "before": args.before_src}
    load_before = load_average()
    started = cpu_seconds()
    result: dict[str, Any] = {"follow_up": COLD_FOLLOW_UP}
    if not args.skip_warm:
        result["warm_added_ms"] = warm()
    result["cold"] = cold(sources, args.cold_runs)
    result.update({"load_before": load_before, "load_after": load_average(),
                   "cpu_seconds": round(cpu_seconds() - started, 1), "machine": machine()})
    write_result(args.out, result, indent=1)
    print(json.dumps({"warm": result.get("warm_added_ms"),
                      "cold_added_cpu": {n: result["cold"][n]["added_cpu_ms"] for n in sources},
                      "cold_added_wall": {n: result["cold"][n]["added_wall_ms"] for n in sources},
                      "reader": {n: result["cold"][n]["reader_parts"]["cpu_ms"] for n in sources},
                      "load": [load_before, result["load_after"]]}))


if __name__ == "__main__":
    main()
