"""Round 29's test files' list restricted to questions whose subject is a test, replayed on
round 29's end-to-end rows (docs/ranker.md "Round 30").

    python benchmarks/test_subject_replay.py [--train FILE] [--validation FILE] [--out FILE]

Round 29's grid (`qa_train_round29_grid.json`, `qa_validation_round29_grid.json`) holds, for
every training and validation question, the hand order's row and each list point's row, end
to end. The list is the only change those points make, and with `pools.test_files_subject`
it runs only for a question that asks about tests (`controller.moves.asks_tests`) and whose
subject is a test (`controller.test_subject.subject_is_test`). So a point's row under the
rule is its round 29 row for such a question and the hand order's row for every other one.
The question text comes from the question files (uvicorn_tests' question 2 of round 29,
removed from training since, is left out). Writes per point and set the four measures'
questions right, the change from the hand order and the questions gained and lost, and which
questions the list runs for.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import write_result  # noqa: E402
from qa_gate import MEASURES, counts  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
OUT = RESULTS / "test_subject_replay_round30.json"
REMOVED = {"uvicorn_tests:2"}  # round 29's training question removed since (commit 69610a59)


def _questions(result: dict[str, Any], folder: str) -> dict[str, str]:
    """Case id -> question text, read from the question files a grid's results name."""
    out: dict[str, str] = {}
    for name, res in result["configs"]["hand"]["results"].items():
        lines = (ROOT / "data/evals" / folder / res["file"]).read_text().splitlines()
        if name == "uvicorn_tests" and folder == "qa_train":
            lines.insert(1, json.dumps({"question": ""}))  # round 29 numbered it with question 2
        for i, line in enumerate(lines, 1):
            out[f"{name}:{i}"] = json.loads(line)["question"]
    return out


def fires(question: str) -> bool:
    """The list runs for `question` under the rule (the default settings' routing)."""
    from controller.moves import asks_tests
    from controller.question import read_question
    from helix.core.config import HelixConfig

    settings = HelixConfig().retrieval
    plan = read_question(question, settings).plan
    return asks_tests(plan, settings) and plan.asked.test_subject


def _cases(result: dict[str, Any], config: str) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for r in result["configs"][config]["results"].values()
            for c in r["cases"] if c["id"] not in REMOVED}


def _right(case: dict[str, Any]) -> dict[str, bool]:
    return {m: counts([case])[m] == 1 for m in MEASURES}


def replay(result: dict[str, Any], point: str, on: set[str]) -> dict[str, Any]:
    hand = _cases(result, "hand")
    cand = {i: (_cases(result, point)[i] if i in on else c) for i, c in hand.items()}
    base, mine = counts(list(hand.values())), counts(list(cand.values()))
    gained = sorted(i for i in on if any(_right(cand[i])[m] > _right(hand[i])[m]
                                         for m in MEASURES))
    lost = sorted(i for i in on if any(_right(cand[i])[m] < _right(hand[i])[m]
                                       for m in MEASURES))
    return {"hand": base, "point": mine,
            "delta": {m: mine[m] - base[m] for m in MEASURES},
            "sum_delta": sum(mine[m] - base[m] for m in MEASURES),
            "gained": gained, "lost": lost}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=Path, default=RESULTS / "qa_train_round29_grid.json")
    parser.add_argument("--validation", type=Path,
                        default=RESULTS / "qa_validation_round29_grid.json")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    out: dict[str, Any] = {"points": {}, "list_runs": {}}
    for name, path, folder in (("training", args.train, "qa_train"),
                               ("validation", args.validation, "qa_validation")):
        result = json.loads(path.read_text())
        text = _questions(result, folder)
        on = {i for i in _cases(result, "hand") if fires(text[i])}
        out["list_runs"][name] = sorted(on)
        for point in sorted(p for p in result["configs"] if p != "hand"):
            out["points"].setdefault(point, {})[name] = replay(result, point, on)
    for point, sets in out["points"].items():
        print(point, {s: (v["delta"], len(v["gained"]), len(v["lost"]))
                      for s, v in sets.items()})
    write_result(args.out, out, indent=1)


if __name__ == "__main__":
    main()
