"""What the secret scan costs a lexical index (issue 28): scan off, serial, parallel, cached.

    python benchmarks/scan_cost_bench.py [--networkx] [--repo NAME=DIR ...]
        [--generate 20000 --data-share 0.35 --seed 13] [--baseline-src DIR]
        [--variants off,serial,parallel] [--repeat 1] [--work DIR] [--out FILE]

For each repository (`--networkx`: a copy of the installed networkx package's source;
`--generate N`: `gen_large_repo.py` with that share of data files; `--repo`: any directory),
`helix index --json` (embeddings off) in a new process and a fresh HELIX_HOME, per variant:

- `off`: `index.mask_secrets=false` (the baseline measured in the same run: no scan at all);
- `serial`: `index.scan_workers=1` (the scan in the indexing process, as before the workers);
- `parallel`: the defaults (workers for the scan, one per CPU, capped);
- `baseline` (with `--baseline-src`): older Helix code (a checkout, run with PYTHONPATH=DIR),
  e.g. `git archive main | tar -x -C DIR`: the code before this work, scan on;
- `cached`: `helix index --force` again in the `parallel` run's HELIX_HOME: every file is parsed
  again, every scan comes from the scan cache;
- `edit`: one file edited, `helix index`: the scan of that one file.

Each run (helix run inside a wrapper process): wall seconds, CPU seconds of the indexing
process (`main_cpu_s`, RUSAGE_SELF) and of its scan workers (`workers_cpu_s`,
RUSAGE_CHILDREN), the report's seconds by stage and `secret_scan` (files scanned, by workers,
cached, seconds the build spent scanning or waiting for workers), the load average before it.
Per repository, from the fastest of `--repeat` runs of each variant: `ratio` = wall / wall of
`off`, `scan_share` = 1 - wall of `off` / wall (the part of the index time the scan adds),
`cpu_ratio` = all CPU / CPU of `off` (the work), `main_cpu_ratio` = the indexing process's own
CPU / CPU of `off` (its critical path: the wall ratio on a machine with a core free for each
worker, as long as the workers keep ahead of the parse, which `secret_scan.seconds`, the time
it waited for them, shows).
Targets: scan_share < 0.15; on the generated repository, parallel ratio <= 1.3. The machine
may be shared (its load is recorded): timings are noisy, the CPU seconds less so.
Writes JSON (default benchmarks/results/scan_cost_bench.json).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _result import load_1m, machine, write_result

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
RESULT = HERE / "results" / "scan_cost_bench.json"
TARGET_SHARE = 0.15
TARGET_RATIO = 1.3
COLD = ("off", "serial", "parallel")

# Runs `helix ARGS` in this process (as `python -P -m helix.cli.main` would); prints the CPU
# seconds (user + system) of the indexing process itself and of its scan workers.
CPU_WRAPPER = """
import resource, runpy, sys
sys.argv = ["helix", *sys.argv[1:]]
try:
    runpy.run_module("helix.cli.main", run_name="__main__", alter_sys=True)
    code = 0
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
sys.stdout.flush()
mine = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write("\\nCPU_S=%.3f %.3f\\n" % (mine.ru_utime + mine.ru_stime,
                                            kids.ru_utime + kids.ru_stime))
sys.exit(code)
"""
VARIANT_ENV = {"off": {"HELIX_INDEX__MASK_SECRETS": "false"},
               "serial": {"HELIX_INDEX__SCAN_WORKERS": "1"}, "parallel": {}, "baseline": {}}


def index_run(repo: Path, env: dict[str, str], *extra: str) -> dict[str, Any]:
    """`helix index REPO --json` through the wrapper: wall, CPU, the report's figures."""
    load = load_1m()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-P", "-c", CPU_WRAPPER, "index", str(repo),
                           "--json", *extra], env=env, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - started
    match = re.search(r"CPU_S=([0-9.]+) ([0-9.]+)", proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"helix index failed ({proc.returncode}): {proc.stderr[-2000:]}")
    report = json.loads(proc.stdout)
    main_cpu, workers_cpu = (float(match.group(1)), float(match.group(2))) if match else (0, 0)
    return {"wall_s": round(wall, 3), "cpu_s": round(main_cpu + workers_cpu, 3),
            "main_cpu_s": main_cpu, "workers_cpu_s": workers_cpu,
            "load_before": load, "seconds": report.get("seconds"),
            "secret_scan": report.get("secret_scan"), "files_indexed": report["files_indexed"],
            "files_parsed": report["files_parsed"], "index_rev": report["index_rev"]}


def base_env(home: Path, src: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELIX_")}
    env.update(HELIX_HOME=str(home), HELIX_INDEX__EMBED_ENABLED="false",
               PYTHONPATH=str(src or CHECKOUT))
    return env


def edit_target(repo: Path) -> Path:
    """The first Python file by path (else the first file): the one the `edit` run changes."""
    files = sorted((p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts),
                   key=lambda p: (p.suffix != ".py", p.relative_to(repo).as_posix()))
    return files[0]


def bench_repo(name: str, repo: Path, work: Path, repeat: int, baseline: Path | None,
               cold: tuple[str, ...] = COLD) -> dict[str, Any]:
    variants = [*cold, *(("baseline",) if baseline else ())]
    runs: dict[str, list[dict[str, Any]]] = {v: [] for v in (*variants, "cached", "edit")}
    for attempt in range(repeat):
        for variant in variants:  # interleaved: a change of load hits every variant alike
            home = work / f"home-{name}-{variant}-{attempt}"
            shutil.rmtree(home, ignore_errors=True)
            env = {**base_env(home, baseline if variant == "baseline" else None),
                   **VARIANT_ENV[variant]}
            row = index_run(repo, env)
            print(f"[{name}] {variant}: {row['wall_s']} s wall, {row['cpu_s']} s CPU "
                  f"(load {row['load_before']}) {row['secret_scan']}", file=sys.stderr,
                  flush=True)
            runs[variant].append(row)
            if variant == "parallel":
                runs["cached"].append(index_run(repo, env, "--force"))
                runs["edit"].append(edit_run(repo, env))
            shutil.rmtree(home, ignore_errors=True)
    return {"path": str(repo), "runs": runs, "summary": summarize(runs)}


def edit_run(repo: Path, env: dict[str, str]) -> dict[str, Any]:
    target = edit_target(repo)
    original = target.read_bytes()
    try:
        target.write_bytes(original + b"\n# edited by scan_cost_bench\n")
        row = index_run(repo, env)
    finally:
        target.write_bytes(original)
    row["file"] = target.relative_to(repo).as_posix()
    return row


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    best = {v: min(rows, key=lambda r: r["wall_s"]) for v, rows in runs.items() if rows}
    off = best["off"]
    out: dict[str, Any] = {"off_wall_s": off["wall_s"], "off_cpu_s": off["cpu_s"]}
    for variant, row in best.items():
        if variant in ("off", "edit"):
            continue
        report_scan = (row["secret_scan"] or {}).get("seconds", 0.0)
        out[variant] = {
            "wall_s": row["wall_s"], "cpu_s": row["cpu_s"],
            "ratio": round(row["wall_s"] / off["wall_s"], 3),
            "scan_share": round(1 - off["wall_s"] / row["wall_s"], 3),
            "cpu_ratio": (round(row["cpu_s"] / off["cpu_s"], 3)
                          if row["cpu_s"] and off["cpu_s"] else None),
            "main_cpu_ratio": (round(row["main_cpu_s"] / off["cpu_s"], 3)
                               if row.get("main_cpu_s") and off["cpu_s"] else None),
            "build_scan_share": (round(report_scan / row["seconds"]["total"], 3)
                                 if row.get("seconds") else None)}
    if "edit" in best:
        out["edit"] = {"wall_s": best["edit"]["wall_s"],
                       "scanned": (best["edit"]["secret_scan"] or {}).get("scanned")}
    parallel = out.get("parallel", {})
    out["meets_share_target"] = parallel.get("scan_share", 1.0) < TARGET_SHARE
    out["meets_ratio_target"] = parallel.get("ratio", 99.0) <= TARGET_RATIO
    return out


def networkx_copy(work: Path) -> Path:
    import networkx

    source = Path(networkx.__file__).parent
    target = work / "networkx"
    if not target.exists():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def generated(work: Path, files: int, share: float, seed: int) -> tuple[Path, dict[str, Any]]:
    target = work / f"repo-{files}-{seed}-data{share}"
    if target.exists():
        return target, {"out": str(target), "reused": True}
    gen = subprocess.run([sys.executable, str(HERE / "gen_large_repo.py"), str(target),
                          "--files", str(files), "--seed", str(seed),
                          "--data-share", str(share)],
                         capture_output=True, text=True, check=True)
    return target, json.loads(gen.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networkx", action="store_true",
                        help="a copy of the installed networkx package's source")
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--generate", type=int, metavar="FILES",
                        help="a generated monorepo of this many files")
    parser.add_argument("--data-share", type=float, default=0.35)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--baseline-src", type=Path, help="older Helix code, scan on")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--variants", default=",".join(COLD),
                        help="cold variants to run, of off,serial,parallel (off is needed)")
    parser.add_argument("--work", type=Path, help="working directory (default: a temp dir)")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="helix-scan-"))
    work.mkdir(parents=True, exist_ok=True)
    repos: list[tuple[str, Path, dict[str, Any]]] = []
    if args.networkx:
        repos.append(("networkx", networkx_copy(work), {"source": "installed networkx"}))
    for item in args.repo:
        name, _, path = item.partition("=")
        if not path:
            parser.error("--repo takes NAME=DIR")
        repos.append((name, Path(path).resolve(), {}))
    if args.generate:
        path, info = generated(work, args.generate, args.data_share, args.seed)
        repos.append((f"generated-{args.generate}", path,
                      {**info, "data_share": args.data_share, "seed": args.seed}))
    if not repos:
        parser.error("name a repository: --networkx, --repo NAME=DIR or --generate N")
    cold = tuple(v for v in COLD if v in args.variants.split(","))
    if "off" not in cold:
        parser.error("--variants must include off (the baseline of every ratio)")
    commit = subprocess.run(["git", "-C", str(CHECKOUT), "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    results: dict[str, Any] = {}
    if args.out.exists():  # keep other repositories of an earlier run
        results = json.loads(args.out.read_text("utf-8"))
    results.update({"commit": commit, "targets": {"scan_share_below": TARGET_SHARE,
                                                  "ratio_at_most": TARGET_RATIO},
                    "machine": machine(),
                    "baseline_src": str(args.baseline_src) if args.baseline_src else None,
                    "command": " ".join(["python", "benchmarks/scan_cost_bench.py",
                                         *(argv if argv is not None else sys.argv[1:])])})
    results.setdefault("repos", {})
    for name, path, info in repos:
        out = bench_repo(name, path, work, args.repeat,
                         args.baseline_src.resolve() if args.baseline_src else None, cold)
        out.update(info)
        results["repos"][name] = out
        print(json.dumps({name: out["summary"]}, indent=1), file=sys.stderr, flush=True)
        write_result(args.out, results, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
