"""The first answer on a new repository (issue 11): lexical first vs a full synchronous build.

For each corpus (a fresh copy of the installed networkx source; this interpreter's standard
library without site-packages, test and __pycache__), in one run:

1. today: `helix ask --dry-run --json --wait Q --repo COPY` in a new process with an empty
   $HELIX_HOME (process start included): the old behaviour, every card embedded first;
2. lexical first: the same command without --wait, another empty $HELIX_HOME: the answer comes
   from the lexical index and a background worker embeds the cards;
3. catch-up: `helix status --json` polled until the worker has published every vector (and
   exited): the time from step 2's start;
4. equality: each question asked again in both homes; once dense has caught up the envelopes
   must have the same index_rev and item hashes (the same answers).

Targets: networkx first answer under 15 s, the standard library under 30 s. The machine is
shared: the load average is recorded with each run. Writes
benchmarks/results/first_answer_bench.json.

    python benchmarks/first_answer_bench.py [--only networkx|stdlib] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from _result import load_average, machine, show, write_result
from _trees import STDLIB_EXCLUDED_TOP, copy_tree

RESULT = Path(__file__).parent / "results" / "first_answer_bench.json"
CATCH_UP_TIMEOUT_S = 3600.0
POLL_S = 2.0
TARGETS_S = {"networkx": 15.0, "stdlib": 30.0}
QUESTIONS = {
    "networkx": ["where is the shortest path computed?",
                 "what does betweenness centrality measure?",
                 "how are graphs read from GML files?",
                 "where is Dijkstra's algorithm implemented?",
                 "what is a DiGraph?"],
    "stdlib": ["where is the JSON encoder implemented?",
               "how does asyncio schedule callbacks?",
               "what does functools.partial do?",
               "where are HTTP headers parsed?",
               "what is a named tuple?"],
}


def _copy(source: Path, target: Path, excluded_top: tuple[str, ...] = ()) -> int:
    copy_tree(source, target, excluded_top)
    return sum(1 for p in target.rglob("*") if p.is_file())


def _helix(args: list[str], home: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELIX_")}
    env["HELIX_HOME"] = str(home)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "helix.cli.main", *args], env=env,
                          capture_output=True, text=True, check=False)
    return done, round(time.perf_counter() - started, 3)


def _ask(question: str, root: Path, home: Path, wait: bool) -> tuple[dict[str, Any], float]:
    run, seconds = _helix(["ask", question, "--repo", str(root), "--dry-run", "--json",
                           *(["--wait"] if wait else [])], home)
    if run.returncode != 0:
        raise SystemExit(f"helix ask failed ({run.returncode}): {run.stderr.strip()}")
    return json.loads(run.stdout), seconds


def _status(root: Path, home: Path) -> dict[str, Any]:
    run, _ = _helix(["status", str(root), "--json"], home)
    return json.loads(run.stdout) if run.returncode == 0 else {}


def _catch_up(root: Path, home: Path, since: float) -> tuple[float, dict[str, Any]]:
    """Seconds from `since` until every vector is published and the worker has exited."""
    deadline = since + CATCH_UP_TIMEOUT_S
    while True:
        status = _status(root, home)
        state, worker = status.get("dense_state") or {}, status.get("worker") or {}
        if state.get("complete") and not worker.get("running"):
            return round(time.perf_counter() - since, 1), status
        if worker.get("status") == "failed" or time.perf_counter() > deadline:
            raise SystemExit(f"dense never caught up: {status}")
        time.sleep(POLL_S)


def _envelope_facts(env: dict[str, Any]) -> dict[str, Any]:
    return {"index_rev": env["index_rev"], "item_hashes": env["item_hashes"],
            "dense_state": env.get("dense_state"),
            "evidence": [f"{e['path']}:{e['start_line']}-{e['end_line']}"
                         for e in env["evidence"][:5]]}


def bench(name: str, root: Path, files: int, tmp: Path) -> dict[str, Any]:
    questions = QUESTIONS[name]
    today_home, new_home = tmp / f"{name}_home_today", tmp / f"{name}_home_new"
    load_before = load_average()
    print(f"[{name}] today (--wait) ...", flush=True)
    today_env, today_s = _ask(questions[0], root, today_home, wait=True)
    print(f"[{name}] today {today_s} s; lexical first ...", flush=True)
    started = time.perf_counter()
    first_env, first_s = _ask(questions[0], root, new_home, wait=False)
    print(f"[{name}] first answer {first_s} s, {first_env.get('dense_state')}", flush=True)
    # a second question while the worker builds: never waits for it
    second_env, second_s = _ask(questions[1], root, new_home, wait=False)
    catch_up_s, status = _catch_up(root, new_home, started)
    print(f"[{name}] dense caught up after {catch_up_s} s", flush=True)
    same, cases = True, []
    for question in questions:
        new = _envelope_facts(_ask(question, root, new_home, wait=False)[0])
        old = _envelope_facts(_ask(question, root, today_home, wait=True)[0])
        equal = new["index_rev"] == old["index_rev"] and new["item_hashes"] == old["item_hashes"]
        same = same and equal
        cases.append({"question": question, "equal": equal, "index_rev": new["index_rev"],
                      "dense_state": new["dense_state"], "evidence_top5": new["evidence"],
                      **({} if equal else {"today_evidence_top5": old["evidence"]})})
    target = TARGETS_S[name]
    return {
        "files": files, "load_avg_before": load_before,
        "today_wait_s": today_s,
        "today_index_ms": today_env["timings_ms"].get("index"),
        "first_answer_s": first_s,
        "first_answer_index_ms": first_env["timings_ms"].get("index"),
        "first_dense_state": first_env.get("dense_state"),
        "second_answer_while_building_s": second_s,
        "second_dense_state": second_env.get("dense_state"),
        "speedup_vs_today": round(today_s / first_s, 2) if first_s else None,
        "target_s": target, "meets_target": first_s < target,
        "dense_caught_up_s": catch_up_s,
        "worker": {k: status.get("worker", {}).get(k) for k in ("rate", "computed", "status")},
        "answers_equal_after_catch_up": same, "cases": cases,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=sorted(TARGETS_S))
    parser.add_argument("--keep", action="store_true", help="keep the temp directory")
    args = parser.parse_args()
    import networkx

    tmp = Path(tempfile.mkdtemp(prefix="helix_first_answer_"))
    corpora = {
        "networkx": lambda: _copy(Path(networkx.__file__).parent, tmp / "networkx"),
        "stdlib": lambda: _copy(Path(sysconfig.get_paths()["stdlib"]), tmp / "stdlib",
                                STDLIB_EXCLUDED_TOP),
    }
    results: dict[str, Any] = {"machine": machine(with_platform=False)}
    try:
        for name, copy in corpora.items():
            if args.only and name != args.only:
                continue
            files = copy()
            results[name] = bench(name, tmp / name, files, tmp)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.only and RESULT.is_file():  # one corpus re-measured: the other one kept
        results = {**json.loads(RESULT.read_text("utf-8")), **results}
    write_result(RESULT, results, indent=1)
    show({k: {m: v.get(m) for m in ("files", "today_wait_s", "first_answer_s",
                                    "speedup_vs_today", "meets_target", "dense_caught_up_s",
                                    "answers_equal_after_catch_up")}
          for k, v in results.items() if k != "machine"}, indent=1)


if __name__ == "__main__":
    main()
