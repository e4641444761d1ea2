"""Measure a learned unit judge against the unit rules, leave one set out (issue 32, units29):

    python -m evals.unit_train [--out benchmarks/results/unit_judge_loso.json]

Training lines are every unit-line set (data/evals/meaning/unit_lines*.json: all tune sets,
each by a different writer who never read the code; data/evals/meaning_heldapart/ is never
opened). Each line is the one evidence span of "Is the <quantity> in <unit>?"; its label is
whether it denies the unit. The head's inputs: the shipped encoder's vector (the numpy query
encoder `helix ask` uses, each line embedded alone) of the line with the unit marked
(`marked`: the asked unit a placeholder, its dimension's other units another, so the head
reads how the line speaks of a unit, not unit names), and what the rules read
(`rule_features`). What the rules answer is `evals.unit_lines.judge`, as the benchmark
(benchmarks/unit_denials.py) counts it.

How the head would be used was stated before any result was read: a VETO. A line the rules
read as giving the unit (answered in it or gated `confirmed`) is neither when the head's
probability that it denies reaches the threshold. Cost = `DENIAL_COST` x denials confirmed or
given + the statements not confirmed, summed over the sets each left out in turn (the head is
fit on the other sets and scores the left-out one). The setting (`L2S` x `THRESHOLDS`) with the
lowest such cost is chosen (ties: the highest threshold, then the strongest ridge). It would
ship only if that cost is below the rules' alone and no set is more than `WORSE_MAX` worse
(`ships`); per set the result also gives the cost with the setting chosen on the other sets
alone ("chosen_elsewhere": the estimate for a new set). Measured in units29 (2679 lines, 31
sets): 35 -> 35 with the rules of main, 26 -> 26 with units29's: at every threshold of 0.7 or
more the head's vetoes leave the cost where it is, below it they cost more; so no head ships
and the unit check is the rules alone (the encoder's vector alone tells a denial from a
statement for 0.74 of the left-out lines; the rules, written on these sets, for 0.99). The
result file records the table, the setting, the training files' digests and the encoder's key;
the run is deterministic (Newton steps, one BLAS thread, rounded inputs).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evals.absence_train import fit, probability
from helix.core.errors import UserError
from helix.outfile import check_out_path, write_out

ROOT = Path(__file__).resolve().parents[1]
MEANING = ROOT / "data" / "evals" / "meaning"
OUT = ROOT / "benchmarks" / "results" / "unit_judge_loso.json"
L2S = (1.0, 10.0, 100.0, 1000.0)
THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98)
DENIAL_COST = 2  # a denial answered in the unit misleads; a statement left limited loses one
WORSE_MAX = 1  # no left-out set may lose more than this to the head
UNIT_MARK = "[unit]"
OTHER_MARK = "[other]"
RULE_FEATURES = ("rules_state", "rules_instead", "mentions", "denied_mentions", "rivals",
                 "negations")
_SAID = re.compile(r"[a-z]+(?:['’]t)?")


def training_files() -> list[Path]:
    return sorted(MEANING.glob("unit_lines*.json"))


def lines() -> list[dict[str, Any]]:
    out = []
    for path in training_files():
        data = json.loads(path.read_text(encoding="utf-8"))
        out += [{**line, "quantity": data["quantity"], "set": path.stem.removeprefix(
            "unit_lines_") if path.stem != "unit_lines" else "unit_lines"}
                for line in data["lines"]]
    return out


def rules_outcome(rows: list[dict[str, Any]]) -> np.ndarray:
    """Per line, [the rules give the unit or confirm it, they give it and confirm it]."""
    from evals.unit_lines import judge
    from helix.core.config import HelixConfig

    threshold = HelixConfig().retrieval.coverage_threshold
    out = []
    for row in rows:
        judged = judge(row, row["quantity"], threshold)
        out.append((judged["confirmed"] or judged["gives_unit"],
                    judged["confirmed"] and judged["gives_unit"]))
    return np.array(out, dtype=bool).reshape(len(rows), 2)


def marked(text: str, unit: str) -> str:
    """`text` with the asked unit's mentions and its dimension's other units replaced."""
    from controller.unit_names import JOIN, WORD, join_compounds, rival, same_unit, unit_pattern

    joined = join_compounds(text)
    spans = [(m.start(), m.end(), UNIT_MARK) for m in unit_pattern(unit).finditer(joined)
             if same_unit(m.group(), unit, elliptic=True)]
    taken = [(a, b) for a, b, _ in spans]
    spans += [(m.start(), m.end(), OTHER_MARK) for m in WORD.finditer(joined)
              if rival(m.group(), unit) and not any(a < m.end() and m.start() < b
                                                    for a, b in taken)]
    out, at = [], 0
    for start, end, mark in sorted(spans):
        if start >= at:
            out += [joined[at:start], mark]
            at = end
    out.append(joined[at:])
    return re.sub(r" {2,}", " ", "".join(out).replace(JOIN, " ")).strip()


def rule_features(text: str, unit: str, quantity: tuple[str, ...] = ()) -> tuple[float, ...]:
    """What the unit rules read in `text`, in `RULE_FEATURES` order: whether they read it as
    stating the unit, whether they name a unit instead, how many mentions of the unit (and how
    many a negation reaches), how many other units of the dimension, how many negation words
    (counts as log1p)."""
    from controller.unit_names import WORD, join_compounds, rival, unit_pattern
    from controller.units import stated_instead, states_unit
    from helix.core.english import NEGATION_WORDS
    from helix.core.negation import read

    joined = join_compounds(text)
    mentions = list(unit_pattern(unit).finditer(joined))
    reading = read(joined.replace("\n", " "))
    denied = sum(1 for m in mentions if reading.denied_at(m.start()))
    rivals = sum(1 for w in WORD.finditer(joined) if rival(w.group(), unit))
    said = _SAID.findall(text.lower())
    negations = sum(1 for w in said if w in NEGATION_WORDS or w.endswith(("'t", "’t")))
    values = (states_unit(text, unit, quantity), stated_instead(text, unit, quantity) is not None,
              math.log1p(len(mentions)), math.log1p(denied), math.log1p(rivals),
              math.log1p(negations))
    return tuple(float(v) for v in values)


def features(rows: list[dict[str, Any]]) -> tuple[np.ndarray, str]:
    from helix.core.config import IndexSettings
    from indexers.encoder import query_embedder

    encoder = query_embedder(IndexSettings())
    x = [np.concatenate([np.asarray(encoder.embed([marked(r["text"], r["unit"])])[0],
                                    dtype=np.float64),
                         rule_features(r["text"], r["unit"], (r["quantity"],))])
         for r in rows]
    return np.round(np.array(x, dtype=np.float64), 6), str(encoder.model_key)


def errors(vetoed: np.ndarray, rules: np.ndarray, y: np.ndarray) -> tuple[int, int]:
    """(denials given or confirmed, statements not confirmed) with these vetoes."""
    said = rules[:, 0] & ~vetoed
    full = rules[:, 1] & ~vetoed
    return int((said & (y == 1)).sum()), int((~full & (y == 0)).sum())


def cost(counts: Sequence[int]) -> int:
    return DENIAL_COST * counts[0] + counts[1]


def held_out(x: np.ndarray, y: np.ndarray, sets: np.ndarray, l2: float) -> np.ndarray:
    """Each line's probability from a head fit on the other sets."""
    p = np.zeros(len(y))
    for held in sorted(set(sets)):
        out = sets == held
        p[out] = probability(fit(x[~out], y[~out], l2), x[out])
    return p


def table(p: np.ndarray, t: float, rules: np.ndarray, y: np.ndarray,
          sets: np.ndarray) -> dict[str, list[int]]:
    """Per set: [denials given or confirmed, statements not confirmed] with threshold `t`."""
    return {s: list(errors(p[sets == s] >= t, rules[sets == s], y[sets == s]))
            for s in sorted(set(sets))}


def choose(scores: dict[float, np.ndarray], rules: np.ndarray, y: np.ndarray,
           sets: np.ndarray, keep: np.ndarray) -> tuple[float, float]:
    """(l2, threshold) with the lowest left-out cost over the rows `keep` selects."""
    best: tuple[Any, ...] = (np.inf, 0.0, 0.0, 0.0, 0.0)
    for l2, p in scores.items():
        for t in THRESHOLDS:
            total = sum(cost(c) for c in table(
                p[keep], t, rules[keep], y[keep], sets[keep]).values())
            best = min(best, (total, -t, -l2, l2, t))
    return best[3], best[4]


def loso(x: np.ndarray, y: np.ndarray, rules: np.ndarray, sets: np.ndarray) -> dict[str, Any]:
    """The leave-one-set-out table: every setting's total, the chosen one's per set, and per
    set the cost with the setting chosen on the other sets."""
    scores = {l2: held_out(x, y, sets, l2) for l2 in L2S}
    never = np.zeros(len(y), dtype=bool)
    before = {s: list(errors(never[sets == s], rules[sets == s], y[sets == s]))
              for s in sorted(set(sets))}
    grid = {f"l2={l2:g} t={t:g}": sum(cost(c) for c in table(
        p, t, rules, y, sets).values()) for l2, p in scores.items() for t in THRESHOLDS}
    l2, t = choose(scores, rules, y, sets, np.ones(len(y), dtype=bool))
    after = table(scores[l2], t, rules, y, sets)
    elsewhere = {}
    for s in sorted(set(sets)):
        l2_s, t_s = choose(scores, rules, y, sets, sets != s)
        elsewhere[s] = errors(scores[l2_s][sets == s] >= t_s, rules[sets == s], y[sets == s])
    return {"l2": l2, "threshold": t, "grid": grid, "before": before, "after": after,
            "chosen_elsewhere": {s: list(c) for s, c in elsewhere.items()},
            "cost_before": sum(cost(c) for c in before.values()),
            "cost_after": sum(cost(c) for c in after.values()),
            "cost_chosen_elsewhere": sum(cost(c) for c in elsewhere.values())}


def ships(table_: dict[str, Any]) -> bool:
    """The pre-stated rule: the left-out cost falls and no set is more than `WORSE_MAX` worse."""
    return table_["cost_after"] < table_["cost_before"] and all(
        cost(tuple(table_["after"][s])) - cost(c) <= WORSE_MAX
        for s, c in table_["before"].items())


def measure() -> dict[str, Any]:
    from helix.core.hashing import digest_file

    rows = lines()
    x, model_key = features(rows)
    y = np.array([r["reading"] == "denies" for r in rows], dtype=np.float64)
    rules = rules_outcome(rows)
    sets = np.array([r["set"] for r in rows])
    result = loso(x, y, rules, sets)
    return {
        "command": "python -m evals.unit_train", "features": list(RULE_FEATURES),
        "model_key": model_key, "dim": int(x.shape[1] - len(RULE_FEATURES)),
        "training_data": {p.name: digest_file(p) for p in training_files()},
        "lines": {"denies": int(y.sum()), "states": int((y == 0).sum())},
        "head": {"kind": "logistic regression (Newton, ridge)", "combination": "veto",
                 "l2": result["l2"], "threshold": result["threshold"], "ships": ships(result)},
        "grid": {"l2": list(L2S), "thresholds": list(THRESHOLDS)},
        "denial_cost": DENIAL_COST, "worse_max": WORSE_MAX,
        "columns": "[denials given or confirmed, statements not confirmed] per left-out set: "
                   "the rules alone (before), with the head's veto (after)",
        "leave_one_set_out": result}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    try:
        check_out_path(args.out)  # a bad --out fails before minutes of fitting, not after
        with threadpool_limits(limits=1, user_api="blas"):
            result = measure()
        write_out(args.out, (json.dumps(result, indent=1, sort_keys=True) + "\n").encode())
    except UserError as exc:
        print(f"unit_train: {exc}", file=sys.stderr)
        return 2
    loso_ = result["leave_one_set_out"]
    print(json.dumps({"head": result["head"], **{k: loso_[k] for k in (
        "cost_before", "cost_after", "cost_chosen_elsewhere")}}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
