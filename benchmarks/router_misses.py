"""The meaning router's misses on its own training files, each put down to the stage that
decided the turn (in-sample: a router that cannot route its training turns is limited by its
structure, not by its data).

    python benchmarks/router_misses.py [--files NAME[,NAME...]] [--out FILE]

Training files (evals.router_train.TRAIN_FILES) and the tune_writer*.jsonl tune files only
(the held-apart files are refused). Every
session runs through the real session path (dry run) with the meaning router, as
benchmarks/router_heldapart.py runs it; each follow-up is scored the same way (transition and
lane, alt readings accepted). Its labelled class is the trainer's (`evals.router_train.label_of`,
with the vocabulary rules' reading of the turn). The stage that decided a turn:

  exact        the rules alone, before the classifier (a strict answer to a pending question,
               start over, cancel, a source cue): the reader was not asked
  agreed       the classifier read what the rules read (the rules' plan)
  rules_kept   the classifier read something else, not sure enough (`router_rescue` /
               `router_override`) or not actionable: the rules' plan
  reading      the classifier's reading was acted on (`readings.plan_for`)
  alternative  a second reading was acted on (`router._acted_on`)
  clarifier    two close readings offered (`clarify_reading`)
and `gated` when the coverage gate turned the plan into a boundary (a miss of kind `gate`,
whatever read it). A miss whose classifier
reading was its labelled class is a structure miss (the reading was right, what was done with it
was not); one whose reading was another class is a classifier miss.
Writes benchmarks/results/router_misses.json (per file and stage: turns, misses, and each miss
with its text, label, reading and route).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "router_misses.json"
GATED = "so its result is not carried into"


class Recorder:
    """Wraps the router's reader and `read_plan` to note, per turn, what decided it."""

    def __init__(self) -> None:
        self.turn: dict[str, Any] = {}

    def __enter__(self) -> Recorder:
        import controller.continuity.router as router

        self.router, self.read_plan = router, router.read_plan

        def read_plan(t: Any, rules_plan: Any, reading: Any, **kw: Any) -> Any:
            from controller.continuity.meaning import meaning_of

            plan = self.read_plan(t, rules_plan, reading, **kw)
            self.turn.update(stage=self._stage(t, rules_plan, reading, plan),
                             rules=meaning_of(rules_plan),
                             reading=reading.meaning, confidence=reading.confidence,
                             second=reading.alternatives[0][0] if reading.alternatives else None)
            return plan

        router.read_plan = read_plan  # type: ignore[assignment]
        return self

    def _stage(self, t: Any, rules_plan: Any, reading: Any, plan: Any) -> str:
        from controller.continuity.meaning import meaning_of
        from controller.continuity.readings import plan_for

        if plan.intent == "clarify_reading":
            return "clarifier"
        if _action(plan) == _action(rules_plan):
            return "agreed" if reading.meaning == meaning_of(rules_plan) else "rules_kept"
        mine = plan_for(reading.meaning, t, reading)
        return "reading" if mine is not None and _action(mine) == _action(plan) \
            else "alternative"

    def __exit__(self, *_: object) -> None:
        self.router.read_plan = self.read_plan  # type: ignore[assignment]


def _action(plan: Any) -> tuple[str, str, str]:
    return plan.transition, plan.lane, plan.intent


def run_file(name: str, recorder: Recorder) -> list[dict[str, Any]]:
    """Every follow-up of one training file, scored, with its label and deciding stage."""
    from evals.heldapart import score_turn, session_runner
    from evals.router_train import _overrides, label_of
    from evals.scenarios import SUITE_DIR, resolve_repo
    from evals.suites import read_jsonl
    from helix.core.config import load_config
    from helix.core.hashing import short_id
    from helix.core.ports import FakeClock

    overrides = _overrides()
    runners: dict[str, Any] = {}
    rows = []
    for _, session in read_jsonl(SUITE_DIR / name):
        spec = str(session.get("repo", "fixture:continuity_repo"))
        if spec not in runners:
            root = resolve_repo(spec)
            runners[spec] = session_runner(root, load_config(root, flags={
                "index.embed_enabled": False, "continuity.router": "meaning"}))
        run, clock = runners[spec], FakeClock(start=1_700_000_000.0, step=0.001)
        session_name = f"misses-{short_id('router-misses', name, session['id'])}"
        for number, spec_turn in enumerate(session["turns"], start=1):
            recorder.turn = {}
            turn = run(session_name, spec_turn["text"], clock)
            expect = spec_turn.get("expect")
            if number == 1 or not expect or "transition" not in expect:
                continue
            seen = dict(recorder.turn)
            row = score_turn(turn, expect)
            rows.append({"file": name, "session": session["id"], "turn": number,
                         "text": spec_turn["text"], "stage": seen.get("stage", "exact"),
                         "label": label_of(name, session, number, overrides,
                                           seen.get("rules", "")),
                         "gated": any(GATED in r for r in turn.reasons),
                         "reasons": list(turn.reasons),
                         **{k: seen.get(k) for k in ("rules", "reading", "confidence",
                                                      "second")},
                         **{k: row[k] for k in ("ok", "expected", "got", "intent",
                                                "silent_search")}})
    return rows


def kind(row: dict[str, Any]) -> str:
    """A miss's kind: the stage that decided it, and whether the classifier's reading was the
    labelled class (structure) or not (classifier)."""
    if row["gated"]:
        return "gate"  # the coverage gate refused the last answer's carryover (a boundary)
    if row["stage"] == "exact":
        return "exact"
    right = row["label"] is not None and row["reading"] == row["label"]
    return f"{row['stage']}/{'structure' if right else 'classifier'}"


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    misses = [r for r in rows if not r["ok"]]
    by_class: dict[str, list[bool]] = {}
    for r in rows:
        by_class.setdefault(r["expected"], []).append(r["ok"])
    return {"turns": len(rows), "accuracy": round(sum(r["ok"] for r in rows) / len(rows), 4),
            "silent_new_searches": sum(r["silent_search"] for r in rows),
            "stages": dict(sorted(Counter(r["stage"] for r in rows).items())),
            "misses_by_kind": dict(sorted(Counter(kind(r) for r in misses).items())),
            "by_class": {k: round(sum(v) / len(v), 4) for k, v in sorted(by_class.items())},
            "misses": [{**r, "kind": kind(r)} for r in misses]}


def main() -> None:
    from evals.router_train import FORBIDDEN, TRAIN_FILES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="heldapart_tune.jsonl")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    names = [n if n.endswith(".jsonl") else f"{n}.jsonl" for n in args.files.split(",") if n]
    refused = [n for n in names if n in FORBIDDEN
               or not (n in TRAIN_FILES or re.fullmatch(r"tune_writer\d+\.jsonl", n))]
    if refused:
        sys.exit(f"router_misses: not a training file: {', '.join(refused)}")
    from evals.heldapart import fresh_home

    os.environ["HELIX_HOME"] = fresh_home()
    result: dict[str, Any] = {"files": {}, "load": [load_1m()], "machine": machine()}
    with Recorder() as recorder:
        for name in names:
            result["files"][name] = summarize(run_file(name, recorder))
    result["load"].append(load_1m())
    result["cpu_seconds"] = round(cpu_seconds(), 1)
    write_result(args.out, result, indent=1)
    print(json.dumps({n: {k: r[k] for k in ("turns", "accuracy", "silent_new_searches",
                                            "misses_by_kind")}
                      for n, r in result["files"].items()}, indent=1))


if __name__ == "__main__":
    main()
