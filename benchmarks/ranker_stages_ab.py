"""The learned step's stages, another checkout's code against this one's, in one process.

    python benchmarks/ranker_stages_ab.py --against DIR [--repeat 7] [--out FILE]

The 51 stdlib_bench questions are asked once (warm) with the shipped model ordering every
route (`ranker_latency.every_route`), recording the inputs and outputs of `feature_rows`,
`select`, `candidates`, the trees (`TreeModel.scores`) and `compaction.compact`; then each stage
of DIR's code (its module files loaded beside this checkout's) and of this checkout's runs on
the same inputs, alternating, `--repeat` times a question, the fastest CPU time (process_time)
of each kept. Reported: median and p95 over the questions, whether both give the recorded
output, the load. Writes benchmarks/results/ranker_stages_ab.json (or --out).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_average, show, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "ranker_stages_ab.json"
STAGES = ("feature_rows", "select", "candidates")


def _other(against: Path, name: str, rel: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, against / rel)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--against", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from ranker_latency import every_route

    import controller.compaction as compaction
    import controller.driver as driver
    import controller.learned_rank as learned_rank
    import controller.rank_features as rank_features
    import controller.rank_step as rank_step
    from evals.runner import PreparedRepo, materialize_stdlib
    from evals.suites import load_suite

    questions = [c.question for c in load_suite("stdlib_bench").cases]
    scratch = tempfile.TemporaryDirectory()
    repo = PreparedRepo(materialize_stdlib(), every_route(Path(scratch.name)), no_embed=True)
    for question in questions:
        repo.ask(question)
    seen: list[dict[str, Any]] = []
    kept = {n: getattr(rank_step, n) for n in STAGES}
    kept["compact"] = driver.compact

    def recording(name: str) -> Callable[..., Any]:
        def run(*a: Any) -> Any:
            out = kept[name](*a)
            seen[-1][name] = (a, out)
            return out
        return run

    for name in STAGES:
        setattr(rank_step, name, recording(name))
    driver.compact = recording("compact")
    for question in questions:
        seen.append({})
        repo.ask(question)
    for name in STAGES:
        setattr(rank_step, name, kept[name])
    driver.compact = kept["compact"]
    manifest = json.loads((ROOT / "data" / "ranker" / "manifest.json").read_text("utf-8"))
    text = (ROOT / "data" / "ranker" / manifest["model"]).read_text("utf-8")
    old_features = _other(args.against, "_ab_rank_features", "controller/rank_features.py")
    old_trees = _other(args.against, "_ab_learned_rank", "controller/learned_rank.py")
    old_compaction = _other(args.against, "_ab_compaction", "controller/compaction.py")
    models = (old_trees.parse_model(text, rank_features.FEATURES),
              learned_rank.parse_model(text, rank_features.FEATURES))
    for record in seen:
        rows = record["feature_rows"][1]
        record["trees"] = ((rows,), models[1].scores(rows))
    pairs = {**{n: (getattr(old_features, n), getattr(rank_features, n)) for n in STAGES},
             "trees": (models[0].scores, models[1].scores),
             "compact": (old_compaction.compact, compaction.compact)}
    load_start = load_average()
    stages: dict[str, Any] = {}
    for name, (old, new) in pairs.items():
        times: tuple[list[float], list[float]] = ([], [])
        same = True
        for record in seen:
            if name not in record:
                continue
            inputs, want = record[name]
            same = same and old(*inputs) == want == new(*inputs)
            best = [1e9, 1e9]
            for _ in range(args.repeat):
                for side, run in enumerate((old, new)):
                    started = time.process_time()
                    run(*inputs)
                    best[side] = min(best[side], time.process_time() - started)
            for side in (0, 1):
                times[side].append(best[side] * 1000.0)
        stages[name] = {"same_output": same, "questions": len(times[0]), **{
            side: {"median": round(statistics.median(t), 3),
                   "p95": round(sorted(t)[int(0.95 * (len(t) - 1))], 3)}
            for side, t in zip(("against", "this"), times, strict=True)}}
    result = {"benchmark": "ranker_stages_ab", "against": str(args.against),
              "questions": len(questions), "repeat": args.repeat,
              "command": shlex.join(["python", "benchmarks/ranker_stages_ab.py",
                                     *sys.argv[1:]]),
              "load_average": {"start": load_start, "end": load_average()},
              "cpu_ms": stages}
    write_result(args.out, result, indent=1)
    show(result, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
