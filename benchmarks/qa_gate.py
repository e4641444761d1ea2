"""The question model's A/B gate on SWE-QA dev: two `benchmarks/qa_dev.py` results, the
hand order (today's default) and the candidate, compared per repository and pooled.

    python benchmarks/qa_gate.py --hand HAND.json --candidate CAND.json [--variant NAME=FILE]
        [--out FILE]

The rule (docs/ranker.md, "A question model", stated before a dev number of a question model
was read): promote only if (1) the pooled number of questions right, summed over file@1,
span@5, symbol@5 and recall, is higher than the hand order's and pooled span@5 is not lower,
and (2) no repository loses more than one question on span@5. Counts are questions (a share
times its denominator: all questions for file@1, those with spans for span@5 and recall,
those with symbols for symbol@5). Writes benchmarks/results/qa_gate.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from _result import write_result

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "qa_gate.json"
MEASURES = ("file@1", "span@5", "symbol@5", "recall")


def counts(cases: list[dict]) -> dict[str, int]:
    """Questions right per measure (errors count as misses, as qa_dev's shares do not drop
    them either)."""
    def at(rank: int | None, k: int) -> bool:
        return rank is not None and rank <= k

    return {"questions": len(cases),
            "file@1": sum(at(c["helix_file_rank"], 1) for c in cases),
            "span@5": sum(at(c["helix_span_rank"], 5) for c in cases if c["gold_spans"]),
            "symbol@5": sum(at(c["helix_symbol_rank"], 5) for c in cases if c["gold_symbols"]),
            "recall": sum(bool(c["helix_recall"]) for c in cases if c["gold_spans"])}


def per_repo(result: dict) -> dict[str, dict[str, int]]:
    out = {name: counts([c for c in r["cases"] if not c.get("error")])
           for name, r in result["results"].items()}
    out["pooled"] = {k: sum(v[k] for v in out.values()) for k in ("questions", *MEASURES)}
    return out


def decide(hand: dict[str, dict[str, int]], cand: dict[str, dict[str, int]]) -> dict:
    whole = sum(cand["pooled"][m] for m in MEASURES) - sum(hand["pooled"][m] for m in MEASURES)
    span = cand["pooled"]["span@5"] - hand["pooled"]["span@5"]
    drops = {r: hand[r]["span@5"] - cand[r]["span@5"] for r in hand if r != "pooled"}
    worst = max(drops.values(), default=0)
    return {"sum_delta": whole, "span@5_delta": span, "span@5_loss_by_repo": drops,
            "rule_1_whole": whole > 0 and span >= 0, "rule_2_no_repo_drop": worst <= 1,
            "promote": whole > 0 and span >= 0 and worst <= 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hand", type=Path, required=True)
    parser.add_argument("--candidate", type=Path, required=True)
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=FILE",
                        help="Another configuration's result, reported beside (not gated).")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    hand = per_repo(json.loads(args.hand.read_text(encoding="utf-8")))
    cand = per_repo(json.loads(args.candidate.read_text(encoding="utf-8")))
    result: dict = {"measures": list(MEASURES), "hand": hand, "candidate": cand,
                    "gate": decide(hand, cand), "variants": {}}
    for item in args.variant:
        name, _, path = item.partition("=")
        other = per_repo(json.loads(Path(path).read_text(encoding="utf-8")))
        result["variants"][name] = {"counts": other, "gate": decide(hand, other)}
    print(json.dumps(dict(sorted(result["gate"].items()))))
    write_result(args.out, result, indent=1)


if __name__ == "__main__":
    main()
