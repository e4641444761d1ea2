"""The continuity router on follow-ups written by someone who never saw its vocabulary: the
held-apart sessions (data/evals/continuity/heldapart_tune.jsonl, heldapart_report.jsonl), run
through the real session path and scored per follow-up (`evals.heldapart`).

    python benchmarks/router_heldapart.py [--out FILE] [--routers rules,meaning] [--timing-only]
                                          [--files PATH[,PATH...]] [--only-files]
                                          [--before-model DIR]

Each router configuration runs both files in the same run: `rules` is the vocabulary router
alone (`continuity.router = "rules"`: the router before the meaning classifier), `meaning` the
default. Reported per file: lane+transition accuracy (alt readings accepted), accuracy per
expected class and per writing style, silent new searches (a follow-up searched for as a new
question with no announcement of how it was read), announcements. The misses of the reported
file are listed without their texts. `--files` scores further held-apart files of the same format
(sessions written by someone else, measured once) in the same run, each under its file name, their
misses listed without texts like the reported file's; with `--only-files` they are the only files
scored (tune files: heldapart_report is never read). `--before-model DIR` adds the router
`meaning_before`: the meaning router with the model files of DIR (an earlier
controller/continuity/meaning_model/, e.g. main's; a feature it predates weighs nothing) and the
rescue/override settings its manifest records (`continuity_settings`, else the defaults of main
before they were recorded: 0.45/0.9), so a retrained model is compared with the one it replaces in
one run.

The router's cost, measured in the same run (`timing`):
  warm   every follow-up of the tuning file routed twice in the meaning run: with the reader
         (the message embedded by the packaged encoder, classified) and without (the rules
         alone); the difference per turn (median, p95, max), in ms of wall time and of the
         process's CPU time (the CPU time is what the 2-core machine's load does not inflate)
  cold   a follow-up asked with `helix ask --session` in a fresh process, with
         `continuity.router` "meaning" and "rules" alternately (the index already built, a
         session per run; a follow-up both route the same way, `COLD_FOLLOW_UP`): the median
         wall time and the child's CPU time of each and their differences, in ms
Writes benchmarks/results/router_heldapart.json. `--timing-only` measures the cost alone (the
tuning file for the warm figure, never the reported file) and replaces the `timing` of the
result file, the accuracies left as they were measured.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "router_heldapart.json"
FILES = ("heldapart_tune", "heldapart_report")
ROUTERS: dict[str, dict[str, Any]] = {"rules": {"continuity.router": "rules"},
                                      "meaning": {"continuity.router": "meaning"}}


COLD_RUNS = 7
# a follow-up both routers send down the same lane (the rules match it; the meaning router
# still embeds and classifies it): the difference is the reader's own cost, not another lane's
COLD_FOLLOW_UP = "open the second one"
MS = 1000.0


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 2),
            "p95": round(ordered[max(0, int(0.95 * len(ordered)) - 1)], 2),
            "max": round(ordered[-1], 2), "turns": len(ordered)}


class WarmTimer:
    """Wraps the runner's router: a turn with a reader is routed again without it, both
    timed (the first carries the encoder and the classifier)."""

    def __init__(self) -> None:
        import helix.session.runner as runner

        self.runner, self.route = runner, runner.route_turn
        self.added: list[float] = []
        self.added_cpu: list[float] = []

    def __enter__(self) -> WarmTimer:
        def timed(*args: Any, **kw: Any) -> Any:
            started, cpu = time.perf_counter(), time.process_time()
            plan = self.route(*args, **kw)
            read, read_cpu = time.perf_counter(), time.process_time()
            if kw.get("reader") is not None:
                self.route(*args, **{**kw, "reader": None})
                rules = time.perf_counter() - read
                rules_cpu = time.process_time() - read_cpu
                self.added.append((read - started - rules) * MS)
                self.added_cpu.append((read_cpu - cpu - rules_cpu) * MS)
            return plan

        self.runner.route_turn = timed  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        self.runner.route_turn = self.route  # type: ignore[assignment]


def run_router(name: str, extra: tuple[Path, ...] = (),
               defaults: tuple[str, ...] = FILES) -> dict[str, Any]:
    from evals.heldapart import heldapart_path, run_file, summarize

    out: dict[str, Any] = {}
    paths = {**{file: heldapart_path(file) for file in defaults},
             **{path.stem: path for path in extra}}
    for file, path in paths.items():
        started = time.perf_counter()
        with WarmTimer() as timer:
            rows = list(run_file(path, ROUTERS[name]))
        out[file] = summarize(rows, with_texts=file == "heldapart_tune")
        out[file]["seconds"] = round(time.perf_counter() - started, 1)
        if timer.added and file == "heldapart_tune":
            out["warm_added_ms"] = _ms(timer.added)
            out["warm_added_cpu_ms"] = _ms(timer.added_cpu)
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _ask(root: Path, session: str, text: str, router: str) -> tuple[float, float]:
    """(wall, CPU) of one `helix ask --session` process, in ms."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HELIX_CONTINUITY__ROUTER": router,
           "HELIX_INDEX__EMBED_ENABLED": "false"}
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-m", "helix.cli.main", "ask", "--repo", str(root),
                    "--dry-run", "--session", session, text], env=env, check=True,
                   capture_output=True)
    return (time.perf_counter() - started) * MS, (_children_cpu() - cpu) * MS


def cold() -> dict[str, Any]:
    """A follow-up in a fresh `helix ask --session` process, meaning vs rules."""
    from evals.scenarios import resolve_repo

    root = resolve_repo("fixture:continuity_repo")
    walls: dict[str, list[float]] = {"meaning": [], "rules": []}
    cpus: dict[str, list[float]] = {"meaning": [], "rules": []}
    _ask(root, "warm-index", "where is the BM25 index built?", "rules")
    for n in range(COLD_RUNS):
        for router in ("meaning", "rules") if n % 2 == 0 else ("rules", "meaning"):
            session = f"cold-{router}-{n}"
            _ask(root, session, "where is the BM25 index built?", router)
            wall, cpu = _ask(root, session, COLD_FOLLOW_UP, router)
            walls[router].append(wall)
            cpus[router].append(cpu)
    medians = {k: round(statistics.median(v), 1) for k, v in walls.items()}
    cpu_medians = {k: round(statistics.median(v), 1) for k, v in cpus.items()}
    return {"runs": COLD_RUNS, "median_ms": medians,
            "added_ms": round(medians["meaning"] - medians["rules"], 1),
            "median_cpu_ms": cpu_medians,
            "added_cpu_ms": round(cpu_medians["meaning"] - cpu_medians["rules"], 1),
            "walls_ms": {k: [round(x, 1) for x in v] for k, v in walls.items()},
            "cpus_ms": {k: [round(x, 1) for x in v] for k, v in cpus.items()}}


def timing_only(out: Path) -> None:
    """The router's cost again (warm on the tuning file, cold), written into `out`'s timing."""
    from evals.heldapart import heldapart_path, run_file

    with WarmTimer() as timer:
        for _ in run_file(heldapart_path("heldapart_tune"), ROUTERS["meaning"]):
            pass
    result = json.loads(out.read_text(encoding="utf-8"))
    result["timing"] = {"warm_added_ms": _ms(timer.added),
                        "warm_added_cpu_ms": _ms(timer.added_cpu), "cold": cold(),
                        "load": os.getloadavg()[0], "timing_only": True}
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({"warm_added_cpu_ms": result["timing"]["warm_added_cpu_ms"],
                      "cold_added_cpu_ms": result["timing"]["cold"]["added_cpu_ms"],
                      "load": result["timing"]["load"]}))


BEFORE_SETTINGS = {"router_rescue": 0.45, "router_override": 0.9}  # main's, unrecorded


class BeforeModel:
    """While open: the session reader uses the model files of `root` instead of the shipped
    model (the in-process cache swapped, then restored)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __enter__(self) -> BeforeModel:
        from controller.continuity.meaning import MeaningModel
        from helix.session import reader

        self.saved = reader.shipped_model
        model = MeaningModel.load(self.root, earlier=True)
        reader.shipped_model = lambda: model  # type: ignore[assignment]
        reader._REFITTED.clear()
        return self

    def __exit__(self, *_: object) -> None:
        from helix.session import reader

        reader.shipped_model = self.saved  # type: ignore[assignment]
        reader._REFITTED.clear()


def before_flags(root: Path) -> dict[str, Any]:
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    settings = manifest.get("continuity_settings", BEFORE_SETTINGS)
    return {"continuity.router": "meaning",
            **{f"continuity.{k}": v for k, v in sorted(settings.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--routers", default=",".join(ROUTERS))
    parser.add_argument("--timing-only", action="store_true")
    parser.add_argument("--files", default="",
                        help="further held-apart files (comma-separated paths) scored once")
    parser.add_argument("--only-files", action="store_true",
                        help="score the --files alone (tune files: the default files include "
                             "the reported heldapart_report)")
    parser.add_argument("--before-model", type=Path, default=None,
                        help="a directory of earlier meaning-model files, run as meaning_before")
    args = parser.parse_args()
    if args.before_model is not None and not (args.before_model / "head.json").is_file():
        sys.exit(f"router_heldapart: no model in {args.before_model}")
    extra = tuple(Path(p) for p in args.files.split(",") if p)
    missing = [str(p) for p in extra if not p.is_file()]
    if missing:
        sys.exit(f"router_heldapart: no such file: {', '.join(missing)}")
    from evals.heldapart import fresh_home

    os.environ["HELIX_HOME"] = fresh_home()
    if args.timing_only:
        timing_only(args.out)
        return
    result: dict[str, Any] = {"routers": {}}
    defaults = () if args.only_files else FILES
    if args.before_model is not None:
        ROUTERS["meaning_before"] = before_flags(args.before_model)
        with BeforeModel(args.before_model):
            result["routers"]["meaning_before"] = run_router("meaning_before", extra, defaults)
    for name in args.routers.split(","):
        result["routers"][name] = run_router(name, extra, defaults)
    meaning = result["routers"].get("meaning", {})
    result["timing"] = {"warm_added_ms": meaning.get("warm_added_ms"),
                        "warm_added_cpu_ms": meaning.get("warm_added_cpu_ms"),
                        "cold": cold(), "load": os.getloadavg()[0]}
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({router: {file: {k: r[k] for k in ("turns", "accuracy",
                                                       "silent_new_searches")}
                               for file, r in files.items()
                               if file in FILES or file in {p.stem for p in extra}}
                      for router, files in result["routers"].items()}))
    print(json.dumps({"warm_added_cpu_ms": result["timing"]["warm_added_cpu_ms"],
                      "cold_added_cpu_ms": result["timing"]["cold"]["added_cpu_ms"],
                      "load": result["timing"]["load"]}))


if __name__ == "__main__":
    main()
