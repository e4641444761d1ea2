"""What a retrieval setting adds to a warm question's CPU, on the natural-question validation
set's trees: each question asked under the baseline and the candidate configuration on one index,
alternating which goes first, `--repeat` times.

    python benchmarks/qa_cost.py --mirrors DIR --candidate-config TOML
        [--baseline-config TOML] [--only NAME ...] [--repeat 3] [--embed] [--out FILE]

(DIR holds the snapshots, as benchmarks/qa_validation.py's.) Each project's tree is written at the
commit its answers cite and indexed before any timing (lexical; with --embed the default
embeddings, every vector embedded before the first timed ask, as `helix ask --wait`); every ask is
the dry run `helix ask` makes (`evals.history.run.HelixSide`). Reported per project and pooled: the
median and p95 of each side's CPU ms per question (the process's CPU time, the fastest of the
repeats) and the median of the per-question differences (candidate - baseline), with the load
average before and after. Writes benchmarks/results/qa_cost.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from _result import load_average, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "qa_cost.json"
MANIFEST = ROOT / "data" / "evals" / "qa_validation" / "manifest.json"


def _p(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)


def _cpu_ms(ask: object, question: str) -> float:
    started = time.process_time()
    ask(question)  # type: ignore[operator]
    return (time.process_time() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--candidate-config", required=True, metavar="TOML")
    parser.add_argument("--baseline-config", default=None, metavar="TOML")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--embed", action="store_true",
                        help="index with the default embeddings (the dense channel on)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from evals.cli.run_common import candidate_overrides
    from evals.corpus.qa_cases import load_question_list
    from evals.corpus.repos import mirror_dir
    from evals.history.run import HelixSide
    from evals.qa.run import load_cases, tree_for

    sides = {"baseline": candidate_overrides(args.baseline_config),
             "candidate": candidate_overrides(args.candidate_config)}
    before = load_average()
    rows: dict[str, list[dict[str, float]]] = {}
    for entry in load_question_list(MANIFEST):
        if args.only is not None and entry.name not in args.only:
            continue
        cases, _ = load_cases(MANIFEST.parent / entry.file)
        root, _ = tree_for(mirror_dir(args.mirrors, entry.source), entry.revision)
        helix = {name: HelixSide(root, ovr, no_embed=not args.embed)
                 for name, ovr in sides.items()}
        helix["baseline"].refresh()  # indexed before any timing
        best: list[dict[str, float]] = [{} for _ in cases]
        for turn in range(args.repeat):
            for i, case in enumerate(cases):
                order = list(helix) if (turn + i) % 2 == 0 else list(reversed(helix))
                for name in order:
                    ms = _cpu_ms(helix[name].ask, case.question)
                    best[i][name] = min(best[i].get(name, ms), ms)
        rows[entry.name] = best
        print(json.dumps({"project": entry.name, "questions": len(cases)}), flush=True)

    def summary(items: list[dict[str, float]]) -> dict[str, float]:
        diffs = [r["candidate"] - r["baseline"] for r in items]
        return {"questions": len(items),
                **{f"{n}_median_ms": round(statistics.median(r[n] for r in items), 2)
                   for n in sides},
                **{f"{n}_p95_ms": _p([r[n] for r in items], 0.95) for n in sides},
                "added_median_ms": round(statistics.median(diffs), 2),
                "added_p95_ms": _p(diffs, 0.95)}

    result = {"benchmark": "qa_cost", "candidate": dict(sorted(sides["candidate"].items())),
              "baseline": dict(sorted(sides["baseline"].items())), "repeat": args.repeat,
              "embed": args.embed,
              "load_average": {"before": before, "after": load_average()},
              "projects": {name: summary(items) for name, items in rows.items()},
              "pooled": summary([r for items in rows.values() for r in items])}
    print(json.dumps(result["pooled"]))
    write_result(args.out, result, indent=1)


if __name__ == "__main__":
    main()
