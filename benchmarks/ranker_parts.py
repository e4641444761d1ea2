"""Where the learned ranker's time goes, per warm question: each part's CPU time (issue 31).

    python benchmarks/ranker_parts.py [--repeat 3] [--label NAME] [--out FILE]

The standard library's index (`evals.runner.materialize_stdlib`, lexical) answers the 51
questions of data/evals/stdlib_bench.jsonl with the shipped model ordering every question (its
manifest copied without `routes`, as `ranker_latency.py` does), `--repeat` times after a warm-up
pass. Each part of `controller.rank_step.learned_order` is timed in the calling thread's CPU
time (the machine is shared: wall time measures the neighbours): the inputs, the candidates,
the BM25 lookups, the budget's cut (`select`), the graph signals, the feature rows
(`feature_matrix`, or `feature_rows` before it), the trees, the order. Per question the
fastest of its runs (by the whole step) is kept; reported: median and p95 over the questions
of each part, the candidates scored, and the load average at the start and the end. Run it
on two checkouts (`--label`) to compare them: its figures are only comparable within one
run's load. Writes benchmarks/results/ranker_parts.json (or --out).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_average, show, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "ranker_parts.json"
PARTS = ("learned_order", "rank_inputs", "candidates", "_scores_of", "select", "_signals",
         "feature_rows", "trees", "order")


def _p95(values: list[float]) -> float:
    from evals.metrics import percentile

    return round(percentile(values, 95), 2)


def _timed(spent: Counter[str], name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] += time.thread_time() - started
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from ranker_latency import every_route

    import controller.learned_rank as learned_rank
    import controller.rank_step as rank_step
    from evals.runner import PreparedRepo, materialize_stdlib
    from evals.suites import load_suite

    questions = [c.question for c in load_suite("stdlib_bench").cases]
    scratch = tempfile.TemporaryDirectory()
    repo = PreparedRepo(materialize_stdlib(), every_route(Path(scratch.name)), no_embed=True)
    # timed before the first question: the driver binds `learned_order` when it is imported
    spent: Counter[str] = Counter()
    for name in (*PARTS[:-2], "order"):
        # the rows: `feature_matrix` since round 17 (a checkout before it: `feature_rows`)
        held = ("feature_matrix" if name == "feature_rows" and hasattr(rank_step,
                                                                        "feature_matrix")
                else name)
        setattr(rank_step, held, _timed(spent, name, getattr(rank_step, held)))
    scores = learned_rank.TreeModel.scores
    learned_rank.TreeModel.scores = _timed(spent, "trees", scores)  # type: ignore[method-assign]
    for question in questions:  # warm: first-touch loads and caches are not the step's cost
        repo.ask(question)
    load_start = load_average()
    best: list[dict[str, float]] = [{} for _ in questions]
    for _ in range(args.repeat):
        for n, question in enumerate(questions):
            spent.clear()
            repo.ask(question)
            taken = {k: v * 1000.0 for k, v in spent.items()}
            if not best[n] or taken["learned_order"] < best[n]["learned_order"]:
                best[n] = taken
    learned_rank.TreeModel.scores = scores  # type: ignore[method-assign]
    result = {
        "benchmark": "ranker_parts", "label": args.label, "questions": len(questions),
        "repeat": args.repeat,
        "command": shlex.join(["python", "benchmarks/ranker_parts.py", *sys.argv[1:]]),
        "load_average": {"start": load_start, "end": load_average()},
        "cpu_ms": {part: {"median": round(statistics.median(b.get(part, 0.0) for b in best), 2),
                          "p95": _p95([b.get(part, 0.0) for b in best])} for part in PARTS}}
    write_result(args.out, result, indent=1)
    show(result, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
