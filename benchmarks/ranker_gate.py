"""The learned ranker's promotion (issue 31): the existing A/B gates (`evals.gates`), the hand
order as the baseline and the learned ranker as the candidate, on the eval suites.

    python benchmarks/ranker_gate.py [--suite NAME ...] [--baseline NAME]
        [--candidate-config FILE] [--baseline-config FILE] [--out FILE]

The same as `helix eval SUITES --no-embed --candidate-config hand_ranker --pin-baseline NAME` then
`helix eval SUITES --no-embed --baseline NAME --candidate-config
evals/configs/learned_ranker.toml`: the hand order's run (evals/configs/hand_ranker.toml, the
default before the gate promoted the learned ranker; `--baseline-config` names another) is the
baseline pinned as NAME in $HELIX_HOME when there is one (made by that first command, with the same
suites; `evaluate_gates` refuses runs that asked other questions), else it is run here first and
pinned as NAME (default: run here, not pinned). Both with the same suites (default: every suite
`helix eval` runs by default) and no embeddings (the ranker was trained on lexical candidates). The
decision is promote, hold, rollback or halt (`evaluate_gates`); only promote switches the default
(`retrieval.ranker.mode`). Writes benchmarks/results/ranker_gate.json, with every retrieval
case whose ranks moved (`changed`: each run's ranks and first five items).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "ranker_gate.json"
CANDIDATE = ROOT / "evals" / "configs" / "learned_ranker.toml"
HAND = ROOT / "evals" / "configs" / "hand_ranker.toml"


def changed_cases(hand: Any, cand: Any) -> list[dict[str, Any]]:
    """Each retrieval case whose ranks differ between the two runs: its first hit of any
    kind, file and symbol ranks under each, and each run's first items (what moved)."""
    out: list[dict[str, Any]] = []
    before = {(s.name, c.id): c for s in hand.suites for c in s.cases}
    for suite in cand.suites:
        for case in suite.cases:
            old = before.get((suite.name, case.id))
            ranks = ("rank", "file_rank", "symbol_rank")
            if old is None or all(getattr(old, k) == getattr(case, k) for k in ranks):
                continue
            out.append({"suite": suite.name, "id": case.id,
                        **{k: [getattr(old, k), getattr(case, k)] for k in ranks},
                        "top": [list(old.top), list(case.top)]})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--suite", action="append", default=[])
    parser.add_argument("--baseline", default=None, metavar="NAME")
    parser.add_argument("--candidate-config", default=str(CANDIDATE))
    parser.add_argument("--baseline-config", default=str(HAND))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from evals.gates import (
        evaluate_gates,
        list_baselines,
        load_baseline,
        load_named_config,
        pin_baseline,
    )
    from evals.report import summary
    from evals.runner import Runner
    from evals.suites import default_suites, load_suite

    names = args.suite or default_suites()
    suites = [load_suite(name) for name in names]
    label, overrides = load_named_config(args.candidate_config)
    _, hand = load_named_config(args.baseline_config)
    runs = {}
    seconds: dict[str, float | None] = {}
    if args.baseline is not None and args.baseline in list_baselines():
        runs["hand"], seconds["hand"] = load_baseline(args.baseline), None
    for name, ovr, lab in (("hand", hand, "hand"), ("learned", overrides, label)):
        if name in runs:
            continue
        started = time.monotonic()
        runs[name] = Runner(ovr, no_embed=True, label=lab).run(suites)
        seconds[name] = round(time.monotonic() - started, 1)
        print(f"{name}: {seconds[name]} s", flush=True)
        if name == "hand" and args.baseline is not None:
            pin_baseline(args.baseline, runs[name])
    decision = evaluate_gates(runs["hand"], runs["learned"])
    result: dict[str, Any] = {
        "benchmark": "ranker_gate", "suites": names, "baseline": args.baseline,
        "candidate": dict(sorted(overrides.items())), "hand": dict(sorted(hand.items())),
        "decision": decision.decision, "reasons": list(decision.reasons),
        "gates": [g.model_dump(mode="json") for g in decision.gates],
        "summary": {name: summary(run) for name, run in runs.items()},
        "changed": changed_cases(runs["hand"], runs["learned"]),
        "seconds": seconds, "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({"decision": decision.decision, "reasons": list(decision.reasons)},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
