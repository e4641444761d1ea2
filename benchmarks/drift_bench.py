"""`helix drift` and `helix stale-docs` on a 20,000-file repository after a 100-file change
(issue 34).

    python benchmarks/drift_bench.py [--files 20000] [--seed 13] [--questions 200]
        [--changed 100] [--repo DIR] [--work DIR] [--out FILE]

Generates the repository with `benchmarks/gen_large_repo.py --git` (unless `--repo` names a
fresh copy of one), indexes it lexically (embeddings off) in a fresh HELIX_HOME, asks the
questions as dry runs (logged in the run log: concept questions, and where-is questions about
functions of the files the change will touch), then commits one change of `--changed` files,
a quarter each: a function renamed, a default changed (`scale: int = 2` -> 3), a body
reformatted (blank lines and a comment: the same tokens), a TypeScript file moved. Then, each
a new process through the RSS wrapper:

- `helix drift --json` (the run log's questions re-run at HEAD; the index refresh of the
  change included) and again with nothing changed (the index a no-op);
- the baseline, measured in the same run: every logged question re-asked one by one through
  `helix.service.ask` (each with its own index check), in one process;
- `helix stale-docs --json`, and `helix status` as its baseline (opening the index).

Writes JSON (default benchmarks/results/drift_bench.json). Timings on a shared machine are
noisy; the counts are exact.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _result import load_average, machine, write_result

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
RESULT = HERE / "results" / "drift_bench.json"
TARGET_DRIFT_S = 30.0
TARGET_STALE_S = 120.0
RSS_WRAPPER = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = kids.ru_utime + kids.ru_stime
sys.stderr.write("\\nPEAK_RSS_KB=%d CPU_S=%.3f\\n" % (kids.ru_maxrss, cpu))
sys.exit(code)
"""
ASK_SCRIPT = """
import json, sys, time
from pathlib import Path
from helix.core.config import load_config
from helix.service import ask
root, questions = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
config = load_config(root)
started = time.perf_counter()
for q in questions:
    ask(q, root=root, config=config, dry_run=True)
print(json.dumps({"questions": len(questions), "seconds": time.perf_counter() - started}))
"""
GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "user.name=bench",
       "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]


def run(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RSS_WRAPPER, *cmd], env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    match = re.search(r"PEAK_RSS_KB=(\d+)", done.stderr)
    cpu = re.search(r"CPU_S=([\d.]+)", done.stderr)
    return {"code": done.returncode, "wall_s": round(wall, 3),
            "cpu_s": round(float(cpu.group(1)), 3) if cpu else None,
            "load": load_average(),
            "peak_rss_mb": round(int(match.group(1)) / 1024, 1) if match else None,
            "stdout": done.stdout, "stderr": done.stderr[-2000:]}


def helix(*args: str) -> list[str]:
    return [sys.executable, "-m", "helix.cli.main", *args]


def py_files(repo: Path) -> list[Path]:
    return sorted(p for p in (repo / "services").rglob("*.py")
                  if "/tests/" not in str(p) and p.name != "__init__.py")


def plan_change(repo: Path, changed: int, seed: int) -> dict[str, list[Path]]:
    rng = random.Random(seed)
    quarter = changed // 4
    python = rng.sample(py_files(repo), 3 * quarter)
    ts = sorted(p for p in (repo / "packages").rglob("*.ts") if "/test/" not in str(p)
                and p.name != "index.ts")
    return {"rename": python[:quarter], "default": python[quarter:2 * quarter],
            "reformat": python[2 * quarter:], "move": rng.sample(ts, changed - 3 * quarter)}


def functions(path: Path) -> list[str]:
    return re.findall(r"^def (\w+)\(", path.read_text(encoding="utf-8"), re.M)


def questions_for(repo: Path, plan: dict[str, list[Path]], count: int, seed: int) -> list[str]:
    """Half about the functions the change touches (where they are), half concepts."""
    rng = random.Random(seed)
    touched = [f"where is {fn} defined?" for key in ("rename", "default", "reformat")
               for path in plan[key] for fn in functions(path)[:1]]
    concepts = sorted(json.loads((repo / "concepts.json").read_text()))
    about = [f"what does {c.replace('-', ' ')} mean in this repo?"
             for c in rng.sample(concepts, count)]
    chosen = touched[:count // 2]
    return chosen + about[:count - len(chosen)]


def apply_change(repo: Path, plan: dict[str, list[Path]]) -> None:
    for path in plan["rename"]:
        text = path.read_text(encoding="utf-8")
        first = functions(path)[0]
        path.write_text(re.sub(rf"\b{first}\b", f"{first}_v2", text), encoding="utf-8")
    for path in plan["default"]:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("scale: int = 2)", "scale: int = 3)"), encoding="utf-8")
    for path in plan["reformat"]:
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"(\n    return float\()", r"\n\n    # the result, as a float\1",
                               text), encoding="utf-8")
    for path in plan["move"]:
        target = path.parent / "moved" / path.name
        target.parent.mkdir(exist_ok=True)
        subprocess.run([*GIT, "mv", str(path.relative_to(repo)), str(target.relative_to(repo))],
                       cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qam", "bench: a 100-file change"], cwd=repo, check=True,
                   env={**os.environ, "GIT_AUTHOR_DATE": "2024-02-01T00:00:00Z",
                        "GIT_COMMITTER_DATE": "2024-02-01T00:00:00Z"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--repo", type=Path, default=None,
                        help="a fresh generated repository (it is changed and committed to)")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="drift-bench-"))
    repo = args.repo or work / f"repo-{args.files}-{args.seed}"
    if args.repo is None:
        shutil.rmtree(repo, ignore_errors=True)
        subprocess.run([sys.executable, str(HERE / "gen_large_repo.py"), str(repo),
                        "--files", str(args.files), "--seed", str(args.seed), "--git"],
                       check=True, capture_output=True)
    home = work / "home"
    shutil.rmtree(home, ignore_errors=True)
    env = {**os.environ, "HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false",
           "HELIX_INDEX__MAX_FILES": str(10 * args.files), "PYTHONPATH": str(CHECKOUT),
           "HELIX_NO_SERVER": "1"}
    out: dict[str, Any] = {"machine": {**machine(), "load_at_start": load_average()},
                           "repo": {"files": args.files, "seed": args.seed},
                           "targets_s": {"drift": TARGET_DRIFT_S, "stale_docs": TARGET_STALE_S}}
    index = run(helix("index", "--repo", str(repo), "--json"), env)
    out["index"] = {k: index[k] for k in ("code", "wall_s", "cpu_s", "peak_rss_mb")}
    plan = plan_change(repo, args.changed, args.seed)
    questions = questions_for(repo, plan, args.questions, args.seed)
    qfile = work / "questions.json"
    qfile.write_text(json.dumps(questions), encoding="utf-8")
    asked = run([sys.executable, "-c", ASK_SCRIPT, str(repo), str(qfile)], env)
    out["logged"] = {"questions": len(questions), "wall_s": asked["wall_s"],
                     "cpu_s": asked["cpu_s"],
                     "code": asked["code"]}
    apply_change(repo, plan)
    out["change"] = {k: [*(str(p.relative_to(repo)) for p in v[:3]), "..."]
                     for k, v in plan.items()}
    out["change_files"] = {k: len(v) for k, v in plan.items()}
    drift = run(helix("drift", "--repo", str(repo), "--json"), env)
    report = json.loads(drift["stdout"]) if drift["code"] == 0 else {}
    again = run(helix("drift", "--repo", str(repo), "--json"), env)
    naive = run([sys.executable, "-c", ASK_SCRIPT, str(repo), str(qfile)], env)
    out["drift"] = {"code": drift["code"], "wall_s": drift["wall_s"], "cpu_s": drift["cpu_s"],
                    "load_after": drift["load"],
                    "peak_rss_mb": drift["peak_rss_mb"], "stderr": drift["stderr"][-400:],
                    "questions": len(report.get("questions", ())),
                    "counts": report.get("counts"), "files_read": report.get("files_read"),
                    "timings_ms": report.get("timings_ms"),
                    "spans_by_status": _statuses(report),
                    "again_wall_s": again["wall_s"], "again_cpu_s": again["cpu_s"],
                    "baseline_reask_wall_s": naive["wall_s"],
                    "baseline_reask_cpu_s": naive["cpu_s"],
                    "ratio_to_baseline": round(drift["wall_s"] / naive["wall_s"], 3)
                    if naive["wall_s"] else None,
                    "under_target": drift["wall_s"] < TARGET_DRIFT_S}
    stale = run(helix("stale-docs", "--repo", str(repo), "--json"), env)
    status = run(helix("status", "--repo", str(repo), "--json"), env)
    found = json.loads(stale["stdout"]) if stale["code"] in (0, 1) else {}
    kinds: dict[str, int] = {}
    for section in found.get("stale", ()):
        for definition in section["definitions"]:
            for change in definition["changes"]:
                kinds[change["kind"]] = kinds.get(change["kind"], 0) + 1
    out["stale_docs"] = {"code": stale["code"], "wall_s": stale["wall_s"],
                         "cpu_s": stale["cpu_s"], "load_after": stale["load"],
                         "peak_rss_mb": stale["peak_rss_mb"], "stderr": stale["stderr"][-400:],
                         "sections": found.get("sections"), "aligned": found.get("aligned"),
                         "definitions": found.get("definitions"),
                         "stale": len(found.get("stale", ())), "changes_by_kind": kinds,
                         "timings_ms": found.get("timings_ms"),
                         "baseline_status_wall_s": status["wall_s"],
                         "ratio_to_baseline": round(stale["wall_s"] / status["wall_s"], 3)
                         if status["wall_s"] else None,
                         "under_target": stale["wall_s"] < TARGET_STALE_S}
    out["machine"]["load_at_end"] = load_average()
    write_result(args.out, out)
    print(json.dumps({"drift_s": out["drift"]["wall_s"], "stale_docs_s": stale["wall_s"],
                      "counts": out["drift"]["counts"], "stale": out["stale_docs"]["stale"]}))
    return 0


def _statuses(report: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for q in report.get("questions", ()):
        for span in q["spans"]:
            counts[span["status"]] = counts.get(span["status"], 0) + 1
    return counts


if __name__ == "__main__":
    sys.exit(main())
