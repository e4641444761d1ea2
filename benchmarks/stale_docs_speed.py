"""CPU time of `helix stale-docs` per repository, two checkouts in one run (issue 34).

    python benchmarks/stale_docs_speed.py --before OLD_CHECKOUT --after NEW_CHECKOUT \
        --repos DIR... --work W --out benchmarks/results/stale_docs_speed.json

For each repository (a clone of a fetched snapshot, outside the repository), each checkout
builds its index first (`helix index --no-embed`, in its own HELIX_HOME under W: an index
is keyed by the indexing code, so the two never share one), untimed; then `helix stale-docs
--json` runs, timed by the CPU seconds (user + system) of the process and the git processes
it waits for (`RUSAGE_CHILDREN` before and after), with the wall time and the load average
beside. The two checkouts run back to back on each repository, before first, so that both see
the same load. The alarms of each are kept (section keys and symbols) to say what changed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _result import cpu_seconds, load_1m, write_result


def _env(code: Path, home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(code), "HELIX_HOME": str(home),
            "HELIX_INDEX__EMBED_ENABLED": "false", "HELIX_NO_SERVER": "1"}


def one(code: Path, home: Path, repo: Path) -> dict[str, Any]:
    env = _env(code, home)
    subprocess.run([sys.executable, "-m", "helix.cli.main", "index", "--no-embed", "--repo",
                    str(repo)], env=env, capture_output=True, check=False)
    cpu, wall, load = cpu_seconds(children=True), time.monotonic(), load_1m(1)
    done = subprocess.run([sys.executable, "-m", "helix.cli.main", "stale-docs", "--repo",
                           str(repo), "--json"], env=env, capture_output=True, text=True,
                          check=False)
    cpu, wall = cpu_seconds(children=True) - cpu, time.monotonic() - wall
    if done.returncode not in (0, 1):
        return {"error": done.stderr[-300:], "cpu_s": round(cpu, 2)}
    report = json.loads(done.stdout)
    return {"cpu_s": round(cpu, 2), "wall_s": round(wall, 1),
            "load": [load, load_1m(1)],
            "aligned_sections": report["aligned"],
            "alarms": sorted(f"{s['doc_path']}:{s['start_line']} "
                             + ",".join(d["symbol"] for d in s["definitions"])
                             for s in report["stale"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--repos", type=Path, nargs="+", required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    rows: dict[str, dict[str, Any]] = {}
    for repo in args.repos:
        row: dict[str, Any] = {side: one(code.resolve(), args.work / f"home_{side}",
                                         repo.resolve())
                               for side, code in (("before", args.before),
                                                  ("after", args.after))}
        before, after = row["before"].get("cpu_s"), row["after"].get("cpu_s")
        row["ratio"] = round(after / before, 3) if before and after else None
        rows[repo.name] = row
        print(f"{repo.name}: {before} -> {after} CPU s", file=sys.stderr)
        _write(args.out, args, rows)
    return 0


def _write(out: Path, args: argparse.Namespace, rows: dict[str, Any]) -> None:
    done = [r for r in rows.values() if r["ratio"] is not None]
    total = {side: round(sum(r[side]["cpu_s"] for r in done), 2) for side in ("before", "after")}
    write_result(out, {
        "command": "python benchmarks/stale_docs_speed.py --before B --after A --repos R... "
                   "--work W --out OUT",
        "before": str(args.before), "after": str(args.after),
        "cpu_s_total": total,
        "ratio_total": round(total["after"] / total["before"], 3) if total["before"] else None,
        "repos": rows})


if __name__ == "__main__":
    sys.exit(main())
