"""100 repositories indexed on a local Ray cluster against the serial loop, in the same run.

    python benchmarks/cluster_index_bench.py --mirrors /work/.mirror --work /work/tmp/cib
        [--generated 24] [--limit N] [--out FILE]

The repositories: every bare git snapshot under `--mirrors` (`<owner>+<name>/repo`, checked
out by the tasks under the store root: the git-source path of `helix index --repos-file`),
but reserved projects, data sets and snapshots whose HEAD tree lacks an object (listed),
plus `--generated` trees of `benchmarks/gen_large_repo.py` (long-tailed sizes; the largest above
`cluster.shard_above_files`, so its parse runs in shard tasks), up to 100 in all. Both runs
index all of them without embeddings into their own store root (`--work`/serial,
`--work`/ray), from nothing: the serial loop in this process (`index_fleet(cluster=None)`),
then Ray tasks on a cluster started here (`--cluster local`, this machine's CPUs); the Ray
start-up is measured apart. Every repository must get the same index_rev in both runs.

Also measured: the per-task overhead (an empty Ray task's round trip, and the Ray run's wall
time above the tasks' own time spread over its task slots), the per-file costs of each build
stage (walk, parse, bm25, graph, write: seconds over files, summed over the serial builds).
Projections (how): the measured per-repository task seconds of the serial run, plus the
per-task overhead, scheduled longest-first onto M machines x C cores (C = this machine's
CPUs) — the makespan of that greedy schedule, for M = 1, 10, 100; a repository above the
shard size counts its parse as ceil(files / shard_files) shards that spread like tasks, its
other stages as one task. And a 1,000,000-file monorepo on paper: the per-file stage costs
times 10^6, the parse split into shards of `cluster.shard_files` over N workers, the other
stages on one machine (what the design keeps serial). Writes
benchmarks/results/cluster_index_bench.json (per-repository rows under `rows`).
"""

from __future__ import annotations

import argparse
import heapq
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from _ray import local_ray
from _result import load_1m, machine, show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "cluster_index_bench.json"
SKIPPED = ("SWE-QA",)  # a data set of questions, not a code base
STAGES = ("walk", "parse", "bm25", "graph", "write")  # parse includes parse_shards
MACHINES = (1, 10, 100)
MONOREPO_FILES = 1_000_000
EMPTY_TASKS = 200  # timed to measure Ray's per-task overhead
MONOREPO_WORKERS = (1, 10, 100, 1000)


def _complete(bare: Path) -> bool:
    """Every object of the tree at HEAD is in the snapshot (a fetched snapshot can lack one,
    and then no task can check it out); read through Helix's read-only git plumbing."""
    from helix.core.git import git_command, git_env, run_git

    listed = run_git(bare, "ls-tree", "-r", "-t", "--object-only", "HEAD", timeout=60)
    if listed is None:
        return False
    checked = subprocess.run(git_command(bare, "cat-file", "--batch-check"), input=listed,
                             capture_output=True, check=False, env=git_env(), timeout=60)
    return checked.returncode == 0 and b" missing" not in checked.stdout


def _sources(mirrors: Path, work: Path, generated: int, total: int,
             incomplete: list[str]) -> list[Any]:
    from evals.reserved import names_reserved
    from helix.cluster.repos_file import RepoSource

    sources = []
    for entry in sorted(mirrors.iterdir()):
        bare = entry / "repo"
        if not bare.is_dir() or any(s in entry.name for s in SKIPPED):
            continue
        owner, _, name = entry.name.partition("+")
        if names_reserved(name, owner):
            continue
        if len(sources) < total - generated and not _complete(bare):
            incomplete.append(entry.name)  # counted apart, not among the repositories
            continue
        sources.append(RepoSource(name=entry.name.replace("+", "-"), git=str(bare),
                                  group="mirrors"))
    sources = sources[:max(0, total - generated)]
    gen_root = work / "generated"
    for number in range(total - len(sources)):
        files = 4000 if number == 0 else 60 + (number * 397) % 600
        out = gen_root / f"gen-{number:02d}"
        if not out.is_dir():
            subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_large_repo.py"),
                            str(out), "--files", str(files), "--seed", str(100 + number)],
                           check=True, capture_output=True)
        sources.append(RepoSource(name=f"gen-{number:02d}", path=str(out),
                                  group="generated"))
    return sources


def _makespan(costs: list[float], slots: int) -> float:
    """Longest-processing-time-first onto `slots` identical slots."""
    loads = [0.0] * slots
    heapq.heapify(loads)
    for cost in sorted(costs, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + cost)
    return max(loads) if loads else 0.0


def _stage(row: dict[str, Any], stage: str) -> float:
    seconds = row["build_seconds"]
    if stage == "parse":  # a sharded build parses before its lexical phase
        return float(seconds.get("parse", 0.0) + seconds.get("parse_shards", 0.0))
    return float(seconds.get(stage, 0.0))


def _task_costs(rows: list[dict[str, Any]], key: str, overhead_s: float, shard_files: int,
                shard_above: int) -> list[float]:
    """Each repository's task (`key`: wall "seconds" or "cpu_s"), a sharded one's parse
    spread over its shards (scaled to `key` by the task's own ratio)."""
    costs = []
    for row in rows:
        whole = row[key]
        parse = _stage(row, "parse") * (whole / row["seconds"] if row["seconds"] else 1.0)
        if row["files_parsed"] > shard_above:
            shards = math.ceil(row["files_parsed"] / shard_files)
            costs += [parse / shards + overhead_s] * shards
            costs.append(whole - parse + overhead_s)
        else:
            costs.append(whole + overhead_s)
    return costs


def _per_file(rows: list[dict[str, Any]]) -> dict[str, float]:
    files = sum(r["files"] for r in rows)
    return {stage: sum(_stage(r, stage) for r in rows) / files for stage in STAGES}


def _monorepo(per_file: dict[str, float], shard_files: int, overhead_s: float
              ) -> dict[str, Any]:
    shards = math.ceil(MONOREPO_FILES / shard_files)
    serial = sum(per_file[s] for s in STAGES if s != "parse") * MONOREPO_FILES
    parse = per_file["parse"] * MONOREPO_FILES
    return {"files": MONOREPO_FILES, "shard_files": shard_files, "shards": shards,
            "parse_s_one_worker": round(parse, 1), "other_stages_s": round(serial, 1),
            "hours_on_workers": {str(n): round((serial + _makespan(
                [parse / shards + overhead_s] * shards, n)) / 3600, 3)
                for n in MONOREPO_WORKERS}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--generated", type=int, default=24)
    parser.add_argument("--limit", type=int, default=100, help="repositories in all")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    os.environ["HELIX_HOME"] = str(args.work / "home")
    from helix.cluster.fleet import index_fleet
    from helix.core.config import resolve_config

    cluster = resolve_config(None)[0].cluster
    incomplete: list[str] = []
    sources = _sources(args.mirrors, args.work, args.generated, args.limit, incomplete)
    flags = {"index.embed_enabled": False}
    for name in ("serial", "ray"):
        shutil.rmtree(args.work / name, ignore_errors=True)
    serial = index_fleet(sources, cluster=None, store_root=args.work / "serial", flags=flags,
                         register=False)
    _, startup, overhead_ms = local_ray(EMPTY_TASKS, warm=8)
    on_ray = index_fleet(sources, cluster="local", store_root=args.work / "ray", flags=flags,
                         register=False)
    cpus = os.cpu_count() or 1
    by_name = {r.name: r for r in on_ray.repos}
    rows = [r.model_dump(exclude={"summary"}) for r in serial.repos]
    same = all(by_name[r["name"]].index_rev == r["index_rev"] for r in rows
               if r["name"] in by_name)
    overhead_s = overhead_ms / 1000.0
    costs = {key: _task_costs(rows, key, overhead_s, cluster.shard_files,
                              cluster.shard_above_files) for key in ("seconds", "cpu_s")}
    per_file = _per_file(rows)
    result = {
        "machine": machine(),
        "repos": len(sources), "indexed": {"serial": len(serial.repos), "ray": len(on_ray.repos)},
        "failed": {"serial": serial.failed, "ray": on_ray.failed},
        "snapshots_incomplete_skipped": incomplete,
        "files": sum(r["files"] for r in rows), "chunks": sum(r["chunks"] for r in rows),
        "same_index_revs": same,
        "serial_wall_s": serial.wall_s, "ray_wall_s": on_ray.wall_s,
        "ray_startup_s": round(startup, 2),
        "speedup_vs_serial": round(serial.wall_s / on_ray.wall_s, 3),
        "sharded_repos": sum(1 for r in on_ray.repos if r.shards),
        "per_task_overhead": {
            "empty_task_ms": round(overhead_ms, 2),
            "ray_run_excess_s_per_task": round(
                (on_ray.wall_s * cpus - on_ray.task_s) / max(1, len(on_ray.repos)), 3)},
        "per_file_ms": {stage: round(value * 1000, 4) for stage, value in per_file.items()},
        "serial_task_s": serial.task_s,
        "serial_cpu_s": round(sum(r["cpu_s"] for r in rows), 1),
        "load_average_1m_at_end": load_1m(),
        "projected_s": {f"{m}_machines_x_{cpus}_cores": round(_makespan(costs["seconds"],
                                                                        m * cpus), 1)
                        for m in MACHINES},
        "projected_cpu_bound_s": {f"{m}_machines_x_{cpus}_cores": round(
            _makespan(costs["cpu_s"], m * cpus), 1) for m in MACHINES},
        "projection_method": "LPT makespan of the serial run's per-repository task times "
                             "(wall: projected_s; CPU seconds, for an unloaded machine: "
                             "projected_cpu_bound_s) plus the empty-task overhead, onto "
                             "machines x cores slots; a repository above the shard size has "
                             "its parse spread over its shards",
        "monorepo_1m_files": _monorepo(per_file, cluster.shard_files, overhead_s),
        "rows": rows,
    }
    write_result(args.out, result)
    show({k: v for k, v in result.items() if k != "rows"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
