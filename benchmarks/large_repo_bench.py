"""Large-repository benchmark (issue 13): index time, peak RSS, size on disk, cold/warm asks.

    python benchmarks/large_repo_bench.py [--files 20000] [--seed 13] [--repo DIR]
        [--baseline-src DIR] [--embed] [--out FILE] [--work DIR]

Generates the repository with `benchmarks/gen_large_repo.py` (unless `--repo` names one), then
for each code variant - `baseline` (a checkout of older Helix code, run with PYTHONPATH=DIR;
make one with `git archive <commit> | tar -x -C DIR`) when `--baseline-src` is given, and
`after` (this checkout) - in a fresh HELIX_HOME:

- lexical index (`helix index`, embeddings off): wall time, the report's seconds by stage,
  peak RSS of the indexing process (`getrusage(RUSAGE_CHILDREN)` in a wrapper process) and its
  RSS sampled from /proc every 0.1 s, peak by stage (stage boundaries from the report);
- with `--embed`: the embedding phase (`helix index` with embeddings on, after the lexical
  one): wall time, peak RSS, chunks with vectors of the chunks in the index;
- size on disk of the index directory; `helix status` and a no-op `helix index` (wall time);
- per question, cold: a new process `helix ask Q --dry-run --json` (wall time, peak RSS, the
  envelope's timings, top evidence paths, the rank of the expected document if any); warm:
  `helix.service.ask` twice in one process, the second call timed (and the controller alone);
- an edit: `helix index` after a function is appended to the first Python file (wall time,
  peak RSS, stages), and again once the file is put back.

Writes JSON (default benchmarks/results/large_repo_bench.json). The machine may be shared:
timings are noisy; the peak RSS figures are not.
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
import threading
import time
from pathlib import Path
from typing import Any

from _result import machine, write_result

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
RESULT = HERE / "results" / "large_repo_bench.json"
STAGES = ("walk", "parse", "bm25", "embed", "graph", "write")

# Runs a command and prints the peak RSS (KiB) of its process tree's largest process.
RSS_WRAPPER = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
sys.stderr.write("\\nPEAK_RSS_KB=%d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""

WARM_SCRIPT = """
import json, sys, time
from pathlib import Path
from helix.core.config import load_config
from helix.core.ports import SystemClock
from helix.service import ask
from controller.driver import run_controller
from controller.question import read_question
from indexers.build import ensure_index
root = Path(sys.argv[1])
questions = json.loads(sys.argv[2])
config = load_config(root)
out = []
for q in questions:
    first = time.perf_counter()
    ask(q, root=root, config=config, dry_run=True)
    second = time.perf_counter()
    ask(q, root=root, config=config, dry_run=True)
    third = time.perf_counter()
    index, _ = ensure_index(root, config)
    fourth = time.perf_counter()
    run_controller(read_question(q, config.retrieval), index, config, query_embedder=None,
                   clock=SystemClock())
    fifth = time.perf_counter()
    out.append({"question": q, "first_s": round(second - first, 4),
                "warm_s": round(third - second, 4), "ensure_index_s": round(fourth - third, 4),
                "controller_s": round(fifth - fourth, 4)})
print(json.dumps(out))
"""


def _rss_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def run(cmd: list[str], env: dict[str, str], cwd: Path | None = None,
        sample: bool = False) -> dict[str, Any]:
    """Run `cmd` (a helix command line) through the RSS wrapper: wall time, exit code,
    stdout, peak RSS in MB, and (with `sample`) the RSS timeline [(t, MB)] of the process."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", RSS_WRAPPER, *cmd], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timeline: list[tuple[float, float]] = []
    stop = threading.Event()

    def sampler() -> None:
        child: int | None = None
        while not stop.is_set():
            if child is None:
                try:
                    kids = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
                    child = int(kids[0]) if kids else None
                except OSError:
                    pass
            if child is not None and (kb := _rss_kb(child)) is not None:
                timeline.append((round(time.perf_counter() - started, 2), round(kb / 1024, 1)))
            stop.wait(0.1)

    thread = threading.Thread(target=sampler, daemon=True)
    if sample:
        thread.start()
    stdout, stderr = proc.communicate()
    stop.set()
    if sample:
        thread.join()
    wall = time.perf_counter() - started
    match = re.search(r"PEAK_RSS_KB=(\d+)", stderr)
    peak = round(int(match.group(1)) / 1024, 1) if match else None
    errors = stderr[:match.start()].strip() if match else stderr.strip()
    return {"cmd": cmd[4:], "code": proc.returncode, "wall_s": round(wall, 3),
            "peak_rss_mb": peak, "stdout": stdout, "stderr": errors[-2000:],
            "timeline": timeline}


def peak_by_stage(timeline: list[tuple[float, float]], seconds: dict[str, float],
                  wall: float) -> dict[str, float]:
    """Peak sampled RSS per build stage: the stages run back to back and end with the
    process (start-up and imports come first: "startup")."""
    total = sum(float(seconds.get(s, 0.0)) for s in STAGES)
    start = max(0.0, wall - total - 0.3)  # ~0.3 s of exit after the build
    bounds: list[tuple[str, float, float]] = [("startup", 0.0, start)]
    for stage in STAGES:
        length = float(seconds.get(stage, 0.0))
        bounds.append((stage, start, start + length))
        start += length
    out: dict[str, float] = {}
    for name, lo, hi in bounds:
        inside = [mb for t, mb in timeline if lo <= t < hi]
        if inside:
            out[name] = max(inside)
    return out


def dir_bytes(path: Path) -> int:
    total = 0
    for item in path.rglob("*"):
        if item.is_file() and not item.is_symlink():
            total += item.stat().st_size
    return total


def helix(*args: str) -> list[str]:
    # -P: the working directory never shadows the code under test (PYTHONPATH picks it)
    return [sys.executable, "-P", "-m", "helix.cli.main", *args]


def questions_for(repo: Path) -> list[dict[str, Any]]:
    """Questions naming things the generated repository holds (a concept's document, a
    class, a function); `expect`: the path that should be among the evidence."""
    out: list[dict[str, Any]] = []
    concepts_file = repo / "concepts.json"
    concepts: dict[str, str] = (json.loads(concepts_file.read_text("utf-8"))
                                if concepts_file.is_file() else {})
    names = sorted(concepts)
    for name in (names[:1] + names[len(names) // 2:len(names) // 2 + 1] + names[-1:]):
        out.append({"q": f"what does {name.replace('-', ' ')} mean in this repo?",
                    "expect": concepts[name], "kind": "concept"})
    py = sorted(p for p in (repo / "services").rglob("*.py")
                if p.name != "__init__.py" and "tests" not in p.parts) if (
        repo / "services").is_dir() else []
    if py:
        text = py[len(py) // 3].read_text("utf-8")
        cls = re.search(r"^class (\w+)", text, re.M)
        func = re.search(r"^def (\w+)", text, re.M)
        rel = py[len(py) // 3].relative_to(repo).as_posix()
        if cls:
            out.append({"q": f"where is {cls.group(1)} defined?", "expect": rel, "kind": "where"})
        if func:
            out.append({"q": f"who calls {func.group(1)}?", "expect": None, "kind": "callers"})
            out.append({"q": f"how does {func.group(1).replace('_', ' ')} work?",
                        "expect": rel, "kind": "how"})
    return out


def _rank(envelope: dict[str, Any], path: str | None) -> int | None:
    if not path:
        return None
    paths = list(dict.fromkeys(e["path"] for e in envelope.get("evidence", [])))
    return paths.index(path) + 1 if path in paths else None


def bench_variant(name: str, src: Path | None, repo: Path, work: Path, embed: bool,
                  questions: list[dict[str, Any]]) -> dict[str, Any]:
    home = work / f"home-{name}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELIX_")}
    env["HELIX_HOME"] = str(home)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    lexical_env = {**env, "HELIX_INDEX__EMBED_ENABLED": "false"}
    out: dict[str, Any] = {"code": str(src or CHECKOUT)}
    if name == "after":
        rev = subprocess.run(["git", "-C", str(CHECKOUT), "rev-parse", "HEAD"],
                             capture_output=True, text=True, check=False).stdout.strip()
        out["commit"] = rev
    lex = run(helix("index", str(repo), "--json"), lexical_env, sample=True)
    if lex["code"] != 0:
        raise SystemExit(f"{name}: helix index failed: {lex['stderr']}")
    report = json.loads(lex["stdout"])
    out["lexical_index"] = {
        "wall_s": lex["wall_s"], "peak_rss_mb": lex["peak_rss_mb"],
        "seconds": report.get("seconds"), "files_indexed": report.get("files_indexed"),
        "chunks": report.get("chunks", {}).get("total"),
        "defs": report.get("symbols", {}).get("defs"),
        "refs": report.get("symbols", {}).get("refs"), "graph_nodes": report.get("graph_nodes"),
        "graph_edges": report.get("graph_edges", {}).get("total"),
        "peak_rss_mb_by_stage": peak_by_stage(lex["timeline"], report.get("seconds", {}),
                                              lex["wall_s"]),
    }
    ask_env = lexical_env
    if embed:
        dense = run(helix("index", str(repo), "--json"), env, sample=True)
        if dense["code"] != 0:
            raise SystemExit(f"{name}: helix index (embeddings) failed: {dense['stderr']}")
        dreport = json.loads(dense["stdout"])
        out["embed_index"] = {"wall_s": dense["wall_s"], "peak_rss_mb": dense["peak_rss_mb"],
                              "seconds": dreport.get("seconds"),
                              "embeddings": dreport.get("embeddings"),
                              "dense_state": dreport.get("dense_state")}
        ask_env = env
    index_dir = Path(report["index_dir"])
    out["size_on_disk_bytes"] = dir_bytes(index_dir)
    status = run(helix("status", str(repo), "--json"), ask_env)
    out["status"] = {"wall_s": status["wall_s"], "code": status["code"]}
    if status["code"] == 0:
        data = json.loads(status["stdout"])
        out["status"].update({k: data.get(k) for k in ("fresh", "size_bytes", "dense_state",
                                                       "dense")})
    noop = run(helix("index", str(repo), "--json"), ask_env)
    out["noop_index"] = {"wall_s": noop["wall_s"], "peak_rss_mb": noop["peak_rss_mb"]}
    cold = []
    for item in questions:
        result = run(helix("ask", item["q"], "--repo", str(repo), "--dry-run", "--json"),
                     ask_env, cwd=repo)
        row: dict[str, Any] = {"question": item["q"], "kind": item["kind"],
                               "wall_s": result["wall_s"], "peak_rss_mb": result["peak_rss_mb"],
                               "code": result["code"]}
        if result["code"] == 0:
            envelope = json.loads(result["stdout"])
            envelope = envelope.get("envelope", envelope)
            row["timings_ms"] = envelope.get("timings_ms")
            row["index_refreshed"] = envelope.get("index_refreshed")
            row["top_paths"] = list(dict.fromkeys(
                e["path"] for e in envelope.get("evidence", [])))[:5]
            row["expect"] = item["expect"]
            row["expect_rank"] = _rank(envelope, item["expect"])
            row["evidence"] = len(envelope.get("evidence", []))
        else:
            row["stderr"] = result["stderr"]
        cold.append(row)
    out["cold_ask"] = cold
    warm = subprocess.run([sys.executable, "-P", "-c", WARM_SCRIPT, str(repo),
                           json.dumps([q["q"] for q in questions])], env=ask_env,
                          capture_output=True, text=True, cwd=repo, check=False)
    out["warm_ask"] = (json.loads(warm.stdout.strip().splitlines()[-1]) if warm.returncode == 0
                       else {"error": warm.stderr[-2000:]})
    out["edit_refresh"] = edit_refresh(repo, ask_env)
    out["summary"] = summarize(out)
    return out


EDIT = b"\n\ndef bench_edit(value):\n    return value\n"


def edit_refresh(repo: Path, env: dict[str, str]) -> dict[str, Any]:
    """One Python file edited (a function appended), `helix index` timed; then the file is put
    back and the refresh timed again, so the next variant sees the same repository."""
    target = min((p for p in repo.rglob("*.py") if ".git" not in p.parts),
                 key=lambda p: p.relative_to(repo).as_posix())
    original = target.read_bytes()
    out: dict[str, Any] = {"file": target.relative_to(repo).as_posix()}
    try:
        target.write_bytes(original + EDIT)
        edited = run(helix("index", str(repo), "--json"), env, sample=True)
    finally:
        target.write_bytes(original)
    restored = run(helix("index", str(repo), "--json"), env, sample=True)
    for key, result in (("edit", edited), ("restore", restored)):
        row: dict[str, Any] = {"wall_s": result["wall_s"], "peak_rss_mb": result["peak_rss_mb"],
                               "code": result["code"]}
        if result["code"] == 0:
            report = json.loads(result["stdout"])
            row.update({k: report.get(k) for k in ("seconds", "files_parsed",
                                                    "graph_updated")})
        out[key] = row
    return out


def summarize(out: dict[str, Any]) -> dict[str, Any]:
    cold = [r["wall_s"] for r in out["cold_ask"] if r.get("code") == 0]
    warm = [r["warm_s"] for r in out["warm_ask"]] if isinstance(out["warm_ask"], list) else []
    lex = out["lexical_index"]
    summary: dict[str, Any] = {
        "lexical_index_s": lex["wall_s"], "lexical_peak_rss_mb": lex["peak_rss_mb"],
        "size_on_disk_mb": round(out["size_on_disk_bytes"] / 2**20, 1),
        "cold_ask_s_max": max(cold, default=None),
        "cold_ask_s_median": sorted(cold)[len(cold) // 2] if cold else None,
        "cold_ask_peak_rss_mb": max((r["peak_rss_mb"] or 0 for r in out["cold_ask"]),
                                    default=None),
        "warm_ask_s_max": max(warm, default=None),
        "warm_ask_s_median": sorted(warm)[len(warm) // 2] if warm else None,
        "noop_index_s": out["noop_index"]["wall_s"],
        "edit_refresh_s": out["edit_refresh"]["edit"]["wall_s"],
        "edit_refresh_peak_rss_mb": out["edit_refresh"]["edit"]["peak_rss_mb"],
    }
    if "embed_index" in out:
        summary["embed_index_s"] = out["embed_index"]["wall_s"]
        summary["embed_peak_rss_mb"] = out["embed_index"]["peak_rss_mb"]
        summary["dense_state"] = out["embed_index"].get("dense_state")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--repo", type=Path, help="benchmark this repository (not generated)")
    parser.add_argument("--baseline-src", type=Path, help="older Helix code to compare")
    parser.add_argument("--after-src", type=Path,
                        help="run 'after' from this copy of the code (default: this checkout)")
    parser.add_argument("--embed", action="store_true", help="also measure the dense phase")
    parser.add_argument("--only", choices=("baseline", "after"), help="run one variant")
    parser.add_argument("--questions", type=Path,
                        help="JSON list of {q, expect, kind} (default: from the generated repo)")
    parser.add_argument("--out", type=Path, default=RESULT)
    parser.add_argument("--work", type=Path, help="working directory (default: a temp dir)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="helix-large-"))
    work.mkdir(parents=True, exist_ok=True)
    repo_info: dict[str, Any]
    if args.repo is not None:
        repo = args.repo.resolve()
        repo_info = {"path": str(repo), "generated": False}
    else:
        repo = work / f"repo-{args.files}-{args.seed}"
        if not repo.exists():
            gen = subprocess.run([sys.executable, str(HERE / "gen_large_repo.py"), str(repo),
                                  "--files", str(args.files), "--seed", str(args.seed), "--git"],
                                 capture_output=True, text=True, check=True)
            repo_info = json.loads(gen.stdout)
        else:
            repo_info = {"out": str(repo), "reused": True}
        repo_info.update(generated=True, files_requested=args.files, seed=args.seed)
    questions = (json.loads(args.questions.read_text("utf-8")) if args.questions
                 else questions_for(repo))
    variants: list[tuple[str, Path | None]] = []
    if args.baseline_src is not None and args.only != "after":
        variants.append(("baseline", args.baseline_src.resolve()))
    if args.only != "baseline":
        variants.append(("after", args.after_src.resolve() if args.after_src else None))
    results: dict[str, Any] = {
        "repo": repo_info, "embed": args.embed,
        "machine": machine(),
        "questions": questions,
    }
    if args.out.exists():  # keep the other variant of an earlier run (--only)
        with args.out.open(encoding="utf-8") as handle:
            earlier = json.load(handle)
        for key in ("baseline", "after"):
            if key in earlier and args.only and key != args.only:
                results[key] = earlier[key]
    for name, src in variants:
        print(f"[{name}] {src or CHECKOUT}", file=sys.stderr, flush=True)
        results[name] = bench_variant(name, src, repo, work, args.embed, questions)
        print(json.dumps(results[name]["summary"]), file=sys.stderr, flush=True)
        write_result(args.out, results, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
