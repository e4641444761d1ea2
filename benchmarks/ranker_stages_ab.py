"""The learned step's stages, another checkout's code against this one's, in one process.

    python benchmarks/ranker_stages_ab.py --against DIR [--repeat 7] [--out FILE]

The 51 stdlib_bench questions are asked once (warm) with the shipped model ordering every
route (`ranker_latency.every_route`), recording the inputs and outputs of `feature_rows`,
`select`, `candidates`, the trees (`TreeModel.scores`) and `compaction.compact`, and (since
round 17) the rows and their scores together (`rows_and_trees`: DIR's `feature_rows` and
trees against this checkout's `feature_matrix` and trees); then each stage
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
    # the rows: `feature_matrix` since round 17 (its inputs are `feature_rows`')
    rows_at = "feature_matrix" if hasattr(rank_step, "feature_matrix") else "feature_rows"
    kept = {n: getattr(rank_step, rows_at if n == "feature_rows" else n) for n in STAGES}
    kept["compact"] = driver.compact

    def recording(name: str) -> Callable[..., Any]:
        def run(*a: Any) -> Any:
            out = kept[name](*a)
            seen[-1][name] = (a, out)
            return out
        return run

    for name in STAGES:
        setattr(rank_step, rows_at if name == "feature_rows" else name, recording(name))
    driver.compact = recording("compact")
    for question in questions:
        seen.append({})
        repo.ask(question)
    for name in STAGES:
        setattr(rank_step, rows_at if name == "feature_rows" else name, kept[name])
    driver.compact = kept["compact"]
    manifest = json.loads((ROOT / "data" / "ranker" / "manifest.json").read_text("utf-8"))
    text = (ROOT / "data" / "ranker" / manifest["model"]).read_text("utf-8")
    old_features = _other(args.against, "_ab_rank_features", "controller/rank_features.py")
    old_trees = _other(args.against, "_ab_learned_rank", "controller/learned_rank.py")
    old_compaction = _other(args.against, "_ab_compaction", "controller/compaction.py")
    models = (old_trees.parse_model(text, rank_features.FEATURES),
              learned_rank.parse_model(text, rank_features.FEATURES))
    matrix_equals_rows = True  # the step's rows (a matrix since round 17) are feature_rows'
    for record in seen:
        args_rows, made = record["feature_rows"]
        record["feature_rows"] = (args_rows, rank_features.feature_rows(*args_rows))
        matrix_equals_rows = matrix_equals_rows and [[float(v).hex() for v in r] for r in made] \
            == [[float(v).hex() for v in r] for r in record["feature_rows"][1]]
        record["trees"] = ((record["feature_rows"][1],),
                           models[1].scores(record["feature_rows"][1]))
        # the rows and their scores: a list per candidate and its conversion, or the matrix
        record["rows_and_trees"] = (args_rows, record["trees"][1])
    matrix = getattr(importlib.import_module("controller.rank_matrix"), "feature_matrix",
                     None) if (ROOT / "controller" / "rank_matrix.py").exists() else None
    pairs = {**{n: (getattr(old_features, n), getattr(rank_features, n)) for n in STAGES},
             "trees": (models[0].scores, models[1].scores),
             "compact": (old_compaction.compact, compaction.compact)}
    if matrix is not None:
        pairs["rows_and_trees"] = (
            lambda *a: models[0].scores(old_features.feature_rows(*a)),
            lambda *a: models[1].scores(matrix(*a)))
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
              "step_rows_equal_feature_rows": matrix_equals_rows, "cpu_ms": stages}
    write_result(args.out, result, indent=1)
    show(result, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
