"""Index time with the history field (issue 31 part 3) against without, in one run.

    python benchmarks/history_index_bench.py --networkx GITDIR [--files 20000] [--commits 400]
        [--history 1000] [--repeat 2] [--out FILE]      (--files 0: networkx only)

Two repositories:
- networkx: its snapshot's tree at HEAD, written from git objects with a `.git` whose HEAD is
  that commit (`evals.corpus.history_git.point_head`), so the history is networkx's own;
- a generated monorepo (`benchmarks/gen_large_repo.py`, --files, seed 13) given --commits
  commits of its own (each rewrites a few lines of a few files, deterministically).

Each is indexed cold (lexical, a fresh HELIX_HOME per build) with `index.history_commits`
0 and --history, --repeat times each, alternating; the best time of each is compared
(target: at most 1.25x), in wall time and in CPU time (the build process and the git and parse
processes it waited for: what a loaded machine does not stretch). Then HEAD moves --step
commits forward (networkx) and the refresh reads only those (`history.incremental`). Writes
benchmarks/results/history_index_bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _result import load_average, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "history_index_bench.json"
GIT = ["git", "-c", "user.email=bench@example.org", "-c", "user.name=bench",
       "-c", "commit.gpgsign=false"]


def _build(root: Path, history: int) -> dict[str, Any]:
    """One cold lexical build in a fresh HELIX_HOME, in a new process (nothing cached)."""
    with tempfile.TemporaryDirectory() as home:
        code = ("import json,sys,time; from pathlib import Path;"
                "from helix.core.config import load_config; from indexers.build import build_index;"
                "c=load_config(Path(sys.argv[1]), flags={'index.embed_enabled': False,"
                "'index.history_commits': int(sys.argv[2])});"
                "t=time.perf_counter(); r=build_index(Path(sys.argv[1]), c);"
                "print(json.dumps({'seconds': time.perf_counter()-t, 'stages': r.seconds,"
                "'history': r.history, 'files': r.files_indexed}))")
        env = {**os.environ, "HELIX_HOME": home, "PYTHONPATH": str(ROOT)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-c", code, str(root), str(history)],
                              capture_output=True, text=True, check=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # the build's CPU time, its git and parse processes included: a shared machine's
        # load stretches the wall time, not this
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return {**json.loads(done.stdout.strip().splitlines()[-1]), "cpu_s": round(cpu, 3)}


def compare(root: Path, history: int, repeat: int) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {"without": [], "with": []}
    for _ in range(repeat):
        runs["without"].append(_build(root, 0))
        runs["with"].append(_build(root, history))
    best = {k: min(r["seconds"] for r in v) for k, v in runs.items()}
    cpu = {k: min(r["cpu_s"] for r in v) for k, v in runs.items()}
    return {"best_s": {k: round(v, 3) for k, v in best.items()},
            "ratio": round(best["with"] / best["without"], 3),
            "best_cpu_s": cpu, "cpu_ratio": round(cpu["with"] / cpu["without"], 3),
            "history": runs["with"][-1]["history"],
            "history_stage_s": [r["stages"].get("history") for r in runs["with"]],
            "files": runs["with"][-1]["files"], "runs": runs}


def networkx_tree(gitdir: Path, into: Path, back: int) -> tuple[Path, str, str]:
    """The tree `back` first-parent commits before HEAD, with its .git; (tree, R, HEAD)."""
    from evals.corpus.history_git import point_head
    from evals.history.trees import TreeWriter

    head = subprocess.run(["git", "-C", str(gitdir), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    rev = subprocess.run(["git", "-C", str(gitdir), "rev-parse", f"HEAD~{back}"], check=True,
                         capture_output=True, text=True).stdout.strip()
    TreeWriter(gitdir, into).move_to(rev)
    point_head(into, gitdir, rev)
    return into, rev, head


def incremental(gitdir: Path, tree: Path, rev: str, head: str, history: int) -> dict[str, Any]:
    """Index at `rev`, then move the tree and HEAD to `head`: what the refresh read."""
    from evals.corpus.history_git import point_head
    from evals.history.trees import TreeWriter

    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HELIX_HOME": home, "PYTHONPATH": str(ROOT)}
        code = ("import json,sys; from pathlib import Path;"
                "from helix.core.config import load_config; from indexers.build import build_index;"
                "c=load_config(Path(sys.argv[1]), flags={'index.embed_enabled': False,"
                "'index.history_commits': int(sys.argv[2])}); r=build_index(Path(sys.argv[1]), c);"
                "print(json.dumps({'stages': r.seconds, 'history': r.history}))")

        def build() -> dict[str, Any]:
            done = subprocess.run([sys.executable, "-c", code, str(tree), str(history)],
                                  capture_output=True, text=True, check=True, env=env)
            return dict(json.loads(done.stdout.strip().splitlines()[-1]))

        first = build()
        TreeWriter(gitdir, tree).move_to(head)
        point_head(tree, gitdir, head)
        second = build()
        TreeWriter(gitdir, tree).move_to(rev)
        point_head(tree, gitdir, rev)
    return {"first": first, "refresh": second}


def generated(into: Path, files: int, commits: int) -> Path:
    """The generated monorepo with `commits` commits of small edits on top of its first."""
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_large_repo.py"), str(into),
                    "--files", str(files), "--git"], check=True, capture_output=True)
    code = sorted(p for p in into.rglob("*") if p.suffix in (".py", ".ts") and p.is_file()
                  and ".git" not in p.parts)
    rng = random.Random(31)
    words = ("cache", "retry", "timeout", "parser", "render", "index", "merge", "schema")
    for n in range(commits):
        touched = rng.sample(code, 3)
        for path in touched:
            lines = path.read_text(encoding="utf-8").split("\n")
            at = rng.randrange(len(lines))
            comment = "#" if path.suffix == ".py" else "//"
            lines.insert(at, f"{' ' * (len(lines[at]) - len(lines[at].lstrip()))}"
                             f"{comment} {rng.choice(words)} note {n}")
            path.write_text("\n".join(lines), encoding="utf-8")
        subprocess.run([*GIT, "-C", str(into), "commit", "-qam",
                        f"Fix the {rng.choice(words)} handling ({n})"], check=True)
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--networkx", type=Path, required=True, help="networkx's git dir")
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--commits", type=int, default=400)
    parser.add_argument("--history", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--step", type=int, default=20)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    results: dict[str, Any] = {"benchmark": "history_index", "history_commits": args.history,
                               "command": " ".join(["python", "benchmarks/history_index_bench.py",
                                                    *sys.argv[1:]]),
                               "load_average_start": load_average()}
    with tempfile.TemporaryDirectory() as tmp:
        tree, rev, head = networkx_tree(args.networkx, Path(tmp) / "networkx", args.step)
        started = time.monotonic()
        results["networkx"] = {"revision": rev, **compare(tree, args.history, args.repeat)}
        results["networkx"]["incremental"] = incremental(args.networkx, tree, rev, head,
                                                         args.history)
        print(json.dumps({"networkx": {k: results["networkx"][k]
                                       for k in ("best_s", "ratio", "best_cpu_s", "cpu_ratio")},
                          "seconds": round(time.monotonic() - started)}), flush=True)
        if args.files > 0:  # --files 0: networkx only
            big = generated(Path(tmp) / "large", args.files, args.commits)
            results["generated"] = {"files": args.files, "commits": args.commits + 1,
                                    **compare(big, args.history, args.repeat)}
            print(json.dumps({"generated": {k: results["generated"][k] for k in
                                            ("best_s", "ratio", "best_cpu_s", "cpu_ratio")}}),
                  flush=True)
    results["load_average"] = load_average()
    write_result(args.out, results, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
