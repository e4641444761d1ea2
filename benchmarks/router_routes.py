"""The meaning router's routes turn by turn, to show that a change meant to make it cheaper
changes no route (issue 32's latency work: the same route and reading for every turn).

    python benchmarks/router_routes.py capture CALLS.pkl [--files NAME[,NAME...]]
    python benchmarks/router_routes.py replay CALLS.pkl ROUTES.jsonl
    python benchmarks/router_routes.py diff BEFORE.jsonl AFTER.jsonl [--out FILE]

`capture` runs the held-apart tuning file and every train_writer<n>.jsonl (training data only;
never a reported file) through the real session path (dry run) with the meaning router, and
keeps each routed turn's inputs (the state, the message, the turns before, the settings) and
the plan it got, pickled into CALLS.pkl: a scratch file outside the repository, read only by a
checkout whose state classes are the same. `replay` routes those inputs again with this
checkout's router and the packaged encoder and writes per turn the route (transition, lane,
intent), the reading (meaning, confidence, alternatives, option scores, detail), the line said
back and a hash of the whole plan; it prints how many plans equal the captured ones (a replay
on the capturing checkout: all). `replay --warm` reads as a long-lived process does (ONNX
Runtime where certain, `helix.session.warm`) and counts its warm reads, the ones with several
possible readings and the turns routed with numpy after all. `diff` compares two replays turn
by turn and writes the count of turns whose route, reading or plan differ (the first few
listed; `--replay-log`: the after replay's counts) to benchmarks/results/router_routes.json.
The capture takes the session path's time (about an hour of CPU for all files on the shared
machine); a replay a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "router_routes.json"
SHOWN = 10  # differing turns listed in the result


def training_files() -> list[str]:
    from evals.heldapart import heldapart_path
    from evals.suites import writer_order

    names = sorted((p.stem for p in heldapart_path("x").parent.glob("train_writer*.jsonl")),
                   key=writer_order)
    return ["heldapart_tune", *names]


def capture(out: Path, files: list[str]) -> None:
    import helix.session.runner as runner
    from evals.heldapart import fresh_home, heldapart_path, run_file

    os.environ["HELIX_HOME"] = fresh_home()
    rows: list[dict[str, Any]] = []
    route, reader_of = runner.route_turn, runner.session_reader
    current: dict[str, Any] = {}

    def spy_reader(config: Any, root: Path, *args: Any, **kw: Any) -> Any:
        current["config"], current["root"] = config, str(root)
        return reader_of(config, root, *args, **kw)

    def spy_route(*args: Any, **kw: Any) -> Any:
        plan = route(*args, **kw)
        if kw.get("reader") is not None:
            rows.append({"file": current["file"], "root": current["root"],
                         "config": current["config"], "args": args,
                         "kw": {k: v for k, v in kw.items() if k != "reader"},
                         "plan": plan.model_dump_json()})
        return plan

    runner.route_turn, runner.session_reader = spy_route, spy_reader
    try:
        for name in files:
            current["file"] = name
            for _ in run_file(heldapart_path(name), {"continuity.router": "meaning"}):
                pass
            print(name, len(rows), flush=True)
    finally:
        runner.route_turn, runner.session_reader = route, reader_of
    with out.open("wb") as handle:
        pickle.dump(rows, handle)


def replay(calls: Path, out: Path, warm: bool = False) -> None:
    from contextlib import nullcontext

    import helix.session.certain as certain
    import helix.session.reader as reader_module
    from evals.heldapart import fresh_home
    from helix.core.hashing import canonical_json, digest
    from helix.session.reader import session_reader
    from helix.session.warm import route_turn, warm_reading  # the runner's

    os.environ["HELIX_HOME"] = fresh_home()
    with calls.open("rb") as handle:
        rows = pickle.load(handle)
    readers: dict[tuple[str, int], Any] = {}
    same, started = 0, time.process_time()
    counts = {"warm_reads": 0, "too_unsure": 0, "several_readings": 0, "routed_exactly": 0}
    candidates, note = certain.candidate_readings, reader_module.note_unsure

    def counted(*args: Any, **kw: Any) -> Any:
        got = candidates(*args, **kw)
        counts["warm_reads"] += 1
        counts["too_unsure"] += got is None
        counts["several_readings"] += got is not None and len(got) > 1
        return got

    def noted(others: Any, exact: Any) -> bool:
        def counted_exact(f: Any) -> Any:
            counts["routed_exactly"] += 1
            return exact(f)
        return note(others, counted_exact)

    certain.candidate_readings = counted
    reader_module.note_unsure = noted
    with out.open("w", encoding="utf-8") as out_file, warm_reading() if warm else nullcontext():
        for n, row in enumerate(rows):
            key = (row["root"], id(row["config"]))
            if key not in readers:
                readers[key] = session_reader(row["config"], Path(row["root"]))
            plan = route_turn(*row["args"], **row["kw"], reader=readers[key])
            dumped = plan.model_dump_json()
            same += dumped == row["plan"]
            reading = plan.reading.model_dump(mode="json") if plan.reading else None
            out_file.write(canonical_json({
                "file": row["file"], "n": n, "route": [plan.transition, plan.lane, plan.intent],
                "reading": reading, "announce": plan.announce,
                "plan": digest(dumped)[:16]}) + "\n")
    certain.candidate_readings, reader_module.note_unsure = candidates, note
    print(json.dumps({"turns": len(rows), "plans_as_captured": same, "warm": warm, **counts,
                      "cpu_seconds": round(time.process_time() - started, 1)}))


def diff(before: Path, after: Path, out: Path, replay_log: Path | None = None) -> None:
    def read(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    a, b = read(before), read(after)
    if len(a) != len(b):
        sys.exit(f"router_routes: {len(a)} turns before, {len(b)} after")
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    per_file: dict[str, int] = {}
    for row in a:
        per_file[row["file"]] = per_file.get(row["file"], 0) + 1
    result = {"turns": len(a), "turns_per_file": dict(sorted(per_file.items())),
              "differing_turns": len(differing),
              "differing_routes": sum(x["route"] != y["route"] for x, y in differing),
              "differing_readings": sum(x["reading"] != y["reading"] for x, y in differing),
              "first_differences": [{"before": x, "after": y} for x, y in differing[:SHOWN]],
              "before": before.name, "after": after.name, "load": load_1m(),
              "machine": machine()}
    if replay_log is not None:  # what the after replay printed (its warm reads' counts)
        lines = replay_log.read_text(encoding="utf-8").strip().splitlines()
        result["after_replay"] = json.loads(lines[-1])
    write_result(out, result, indent=1)
    print(json.dumps({k: result[k] for k in ("turns", "differing_turns", "differing_routes",
                                             "differing_readings")}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("calls", type=Path)
    cap.add_argument("--files", default="")
    rep = sub.add_parser("replay")
    rep.add_argument("calls", type=Path)
    rep.add_argument("routes", type=Path)
    rep.add_argument("--warm", action="store_true",
                     help="read as a long-lived process does (helix.session.warm)")
    dif = sub.add_parser("diff")
    dif.add_argument("before", type=Path)
    dif.add_argument("after", type=Path)
    dif.add_argument("--out", type=Path, default=OUT)
    dif.add_argument("--replay-log", type=Path, default=None,
                     help="the after replay's output (its last line is kept in the result)")
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.calls, [f for f in args.files.split(",") if f] or training_files())
    elif args.command == "replay":
        replay(args.calls, args.routes, warm=args.warm)
    else:
        diff(args.before, args.after, args.out, args.replay_log)


if __name__ == "__main__":
    main()
