"""Unit checks against lines that deny the unit (issue 32): the answer and its gate.

    python benchmarks/unit_denials.py [--data data/evals/meaning/unit_lines.json] [--out FILE]

Every line of the data file (hand-written: lines that deny a unit, and lines that state it) is
the one evidence span of the question "Is the <quantity> in <unit>?". For each line: the
controller's slot coverage (`controller.coverage.measure`), the deterministic answer's lead
(`controller.answer.build_answer`) and the session gate that coverage gives
(`controller.continuity.optionsets.coverage_of`: confirmed / limited / unsupported). Counted:
denying lines answered "the evidence gives it in <unit>" or gated `confirmed` (target 0), and
stating lines not so (target 0); the unit named instead ("in pascal, not in GPa") where the
data names one (an alias names the same unit: "megapascals" is MPa). The baseline, run on the
same lines: the adjacency rule the unit check had before (a negation right before the unit).
`--data` takes any file of this format. Writes benchmarks/results/unit_denials.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "data" / "evals" / "meaning" / "unit_lines.json"
OUT = ROOT / "benchmarks" / "results" / "unit_denials.json"

# the rule before issue 32: a negation within a few words before the unit
_BASELINE_NEGATION = re.compile(
    r"(?:\bnot|\bnever|\bno|n't|\brather\s+than|\binstead\s+of|\bunlike|\bvs\.?|\bversus|\bnor)"
    r"\s+(?:(?:in|as|a|the)\s+)?[\"'`(]*\s*$", re.I)


def baseline_states(line: str, unit: str) -> bool:
    pattern = re.compile(rf"(?i)(?<![\w]){re.escape(unit)}(?![\w])")
    return any(not _BASELINE_NEGATION.search(line[:m.start()]) for m in pattern.finditer(line))


def summarize(rows: list[dict[str, Any]], lines: list[dict[str, Any]]) -> dict[str, Any]:
    from controller.units import unit_name

    denials = [r for r in rows if r["reading"] == "denies"]
    states = [r for r in rows if r["reading"] == "states"]
    named = [(r, line["instead"]) for r, line in zip(rows, lines, strict=True)
             if line["reading"] == "denies" and line["instead"]]
    wrong_denials = [r for r in denials if r["confirmed"] or r["gives_unit"]]
    wrong_states = [r for r in states if not (r["confirmed"] and r["gives_unit"])]
    return {
        "denials": len(denials), "affirmations": len(states),
        "denials_confirmed_or_given": len(wrong_denials),
        "affirmations_not_confirmed": len(wrong_states),
        "instead_named_right": sum(r["instead"] == want or (
            r["instead"] is not None and unit_name(r["instead"]) == unit_name(want) is not None)
            for r, want in named),
        "instead_expected": len(named),
        "by_truth_mode": {mode: sum(r["truth_mode"] == mode for r in denials)
                          for mode in sorted({r["truth_mode"] for r in denials})},
        "baseline_denials_read_as_stating": sum(r["baseline_states"] for r in denials),
        "baseline_affirmations_missed": sum(not r["baseline_states"] for r in states),
        "misses": [{k: r[k] for k in ("text", "reading", "lead", "truth_mode")}
                   for r in [*wrong_denials, *wrong_states]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--note", default="", help="what was run and why, kept in the result")
    args = parser.parse_args()
    from evals.unit_lines import judge
    from helix.core.config import HelixConfig

    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    threshold = HelixConfig().retrieval.coverage_threshold
    started = time.perf_counter()
    rows = [{**judge(line, data["quantity"], threshold),
             "baseline_states": baseline_states(line["text"], line["unit"])}
            for line in data["lines"]]
    result = {"data": str(Path(args.data).relative_to(ROOT)) if Path(args.data).is_relative_to(
        ROOT) else args.data, **summarize(rows, data["lines"]),
        "seconds": round(time.perf_counter() - started, 3), **({"note": args.note} if args.note
                                                              else {})}
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n",
                              encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "misses"}, indent=1))
    for miss in result["misses"]:
        print("MISS", miss)


if __name__ == "__main__":
    main()
