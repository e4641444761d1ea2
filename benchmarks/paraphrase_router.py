"""The continuity router on wording nobody wrote down: the generated paraphrase suite
(`evals/paraphrase.py`), its tuning half and its reported half, scored in one run.

    python benchmarks/paraphrase_router.py [--out FILE]

Router accuracy = the share of generated turns whose transition class and lane are the ones
expected (the fixed set-up turns before them are not counted), overall, by intent and by the
way the message was dressed (politeness, filler, typo ...). Writes
benchmarks/results/paraphrase_router.json; the README quotes both halves' accuracy.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from _result import show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "paraphrase_router.json"
HALVES = ("paraphrase_tune", "paraphrase_report")


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def score(suite: Any, raw_cases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Accuracy of the last (generated) turn of every case."""
    overall: list[bool] = []
    by_intent: dict[str, list[bool]] = defaultdict(list)
    by_transform: dict[str, list[bool]] = defaultdict(list)
    misses = []
    for row in suite.continuity["cases"]:
        case = raw_cases[row["id"]]
        last = row["per_turn"][-1] if row["per_turn"] else {"passed": False}
        ok = bool(last.get("passed"))
        overall.append(ok)
        by_intent[case["intent"]].append(ok)
        by_transform[case["transform"]].append(ok)
        if not ok:
            misses.append({"id": row["id"], "text": case["turns"][-1]["text"],
                           "expected": case["turns"][-1]["expect"],
                           "got": {k: last.get(k) for k in ("transition", "lane")}})
    return {"turns": len(overall), "accuracy": _rate(overall),
            "by_intent": {k: _rate(v) for k, v in sorted(by_intent.items())},
            "by_transform": {k: _rate(v) for k, v in sorted(by_transform.items())},
            "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    os.environ["HELIX_INDEX__EMBED_ENABLED"] = "false"
    from evals.runner import Runner
    from evals.suites import load_suite

    suites = [load_suite(f"continuity/{name}") for name in HALVES]
    run = Runner(no_embed=True, bm25_files=False).run(suites)
    result: dict[str, Any] = {}
    for suite, loaded in zip(run.suites, suites, strict=True):
        raw = {case["id"]: case for case in loaded.raw_cases}
        result[suite.name.split("/", 1)[1]] = score(suite, raw)
    write_result(args.out, result, indent=1)
    show({name: {"turns": r["turns"], "accuracy": r["accuracy"]} for name, r in result.items()},
         indent=None)


if __name__ == "__main__":
    main()
