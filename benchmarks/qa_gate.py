"""The question model's A/B gate on SWE-QA dev: two `benchmarks/qa_dev.py` results, the
hand order (today's default) and the candidate, compared per repository and pooled.

    python benchmarks/qa_gate.py --hand HAND.json --candidate CAND.json [--variant NAME=FILE]
        [--validation VAL.json ... --validation-config NAME] [--out FILE]

The rule (docs/ranker.md, "A question model", stated before a dev number of a question model
was read): promote only if (1) the pooled number of questions right, summed over file@1,
span@5, symbol@5 and recall, is higher than the hand order's and pooled span@5 is not lower,
and (2) no repository loses more than one question on span@5. Counts are questions (a share
times its denominator: all questions for file@1, those with spans for span@5 and recall,
those with symbols for symbol@5). Writes benchmarks/results/qa_gate.json.

With --validation (a `benchmarks/qa_validation.py` result holding the hand order and the
candidate's configuration NAME), the extended gate of round 12 (docs/ranker.md, "The question
model, round 12"): rule 1 on dev and again on the validation set, pooled, and per project of
both sets no more than one question lost on span@5 and no more than two on file@1.

With --strict (round 25, docs/ranker.md "Round 25", added before its dev run, never loosening
the rules above): also (4) no pooled measure lower than the hand order's on either set, and
(5) for a candidate that cannot move a question's file or what it sends (`--fixed file@1
--fixed recall`), those measures the hand order's question for question on both sets.
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


def extended(dev_hand: dict[str, dict[str, int]], dev_cand: dict[str, dict[str, int]],
             val_hand: dict[str, dict[str, int]], val_cand: dict[str, dict[str, int]]) -> dict:
    """Round 12's gate over SWE-QA dev and the validation set (both as `per_repo` counts)."""
    dev, val = decide(dev_hand, dev_cand), decide(val_hand, val_cand)
    lost = {f"{where}:{r}": {m: hand[r][m] - cand[r][m] for m in ("file@1", "span@5")}
            for where, hand, cand in (("dev", dev_hand, dev_cand), ("validation", val_hand,
                                                                     val_cand))
            for r in hand if r != "pooled"}
    per_project = all(v["span@5"] <= 1 and v["file@1"] <= 2 for v in lost.values())
    return {"dev": dev, "validation": val, "lost_by_project": lost,
            "rule_1_dev": dev["rule_1_whole"], "rule_2_validation": val["rule_1_whole"],
            "rule_3_per_project": per_project,
            "sum_delta_both": dev["sum_delta"] + val["sum_delta"],
            "promote": dev["rule_1_whole"] and val["rule_1_whole"] and per_project}


def _right(result: dict, measure: str) -> set[str]:
    """The ids of the questions `measure` counts as right."""
    field, k = {"file@1": ("helix_file_rank", 1), "span@5": ("helix_span_rank", 5),
                "symbol@5": ("helix_symbol_rank", 5), "recall": ("helix_recall", 0)}[measure]
    out = set()
    for name, r in result["results"].items():
        for i, c in enumerate(r["cases"]):
            v = c.get(field)
            if not c.get("error") and (bool(v) if k == 0 else v is not None and v <= k):
                out.add(f"{name}:{c.get('id', i)}")
    return out


def strict(gate: dict, pairs: list[tuple[dict, dict, dict, dict]],
           fixed: tuple[str, ...]) -> dict:
    """Round 25's added rules over `gate` (`extended`'s result). `pairs`: (hand counts,
    candidate counts, hand result, candidate result) per set (results may be {} when only the
    counts are known: rule 5 then reads the counts)."""
    lower = {m: [cand["pooled"][m] - hand["pooled"][m] for hand, cand, _, _ in pairs]
             for m in MEASURES}
    rule_4 = all(d >= 0 for v in lower.values() for d in v)
    moved = {m: [(_right(hr, m) != _right(cr, m)) if hr and cr else
                 hand["pooled"][m] != cand["pooled"][m] for hand, cand, hr, cr in pairs]
             for m in fixed}
    rule_5 = not any(any(v) for v in moved.values())
    return {**gate, "pooled_delta_by_set": lower, "fixed_moved": moved,
            "rule_4_no_measure_lower": rule_4, "rule_5_fixed_unchanged": rule_5,
            "promote": bool(gate["promote"]) and rule_4 and rule_5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hand", type=Path, required=True)
    parser.add_argument("--candidate", type=Path, required=True)
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=FILE",
                        help="Another configuration's dev result, reported beside (with "
                             "--validation: gated as well when the validation result holds a "
                             "configuration of that NAME).")
    parser.add_argument("--validation", type=Path, action="append", default=[],
                        metavar="VAL.json", help="a qa_validation.py result (repeatable)")
    parser.add_argument("--validation-config", default=None, metavar="NAME")
    parser.add_argument("--strict", action="store_true",
                        help="round 25's added rules (4, 5); needs --validation-config")
    parser.add_argument("--fixed", action="append", default=[], choices=MEASURES,
                        help="with --strict: a measure the candidate cannot move (repeatable)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.strict and args.validation_config is None:
        parser.error("--strict needs --validation and --validation-config")
    hand = per_repo(json.loads(args.hand.read_text(encoding="utf-8")))
    cand = per_repo(json.loads(args.candidate.read_text(encoding="utf-8")))
    result: dict = {"measures": list(MEASURES), "hand": hand, "candidate": cand,
                    "gate": decide(hand, cand), "variants": {}}
    val: dict = {}
    for path in args.validation:  # runs of qa_validation.py, each with its own hand order
        configs = json.loads(path.read_text(encoding="utf-8"))["configs"]
        if "hand" in val and val["hand"]["counts"] != configs["hand"]["counts"]:
            parser.error(f"{path}: its hand order differs from the first run's")
        val.update(configs)
    for item in args.variant:
        name, _, path = item.partition("=")
        other = per_repo(json.loads(Path(path).read_text(encoding="utf-8")))
        result["variants"][name] = {"counts": other, "gate": decide(hand, other)}
        if name in val:  # the same configuration measured on the validation set
            result["variants"][name]["validation"] = val[name]["counts"]
            result["variants"][name]["extended_gate"] = extended(
                hand, other, val["hand"]["counts"], val[name]["counts"])
    if args.validation_config is not None:
        if args.validation_config not in val:
            parser.error(f"{args.validation} holds no configuration {args.validation_config!r}")
        result["validation"] = {"hand": val["hand"]["counts"],
                                "candidate": val[args.validation_config]["counts"]}
        result["extended_gate"] = extended(hand, cand, val["hand"]["counts"],
                                           val[args.validation_config]["counts"])
        if args.strict:
            result["extended_gate"] = strict(result["extended_gate"], [
                (hand, cand, json.loads(args.hand.read_text(encoding="utf-8")),
                 json.loads(args.candidate.read_text(encoding="utf-8"))),
                (val["hand"]["counts"], val[args.validation_config]["counts"],
                 val["hand"], val[args.validation_config])], tuple(args.fixed))
        print(json.dumps({k: v for k, v in sorted(result["extended_gate"].items())
                          if k.startswith(("rule", "promote", "sum"))}))
    print(json.dumps(dict(sorted(result["gate"].items()))))
    write_result(args.out, result, indent=1)


if __name__ == "__main__":
    main()
