"""Continuity scenario cases (data/evals/continuity/T1.jsonl ... T10.jsonl) and their runner.

A case is a conversation with an expectation per turn:

    {"id": "t3-open-second", "repo": "fixture:continuity_repo",
     "turns": [{"text": "where is the BM25 index built?",
                "expect": {"lane": "root", "transition": "T1", "retrieval": true}},
               {"text": "open the second one", "reply_to": 1,
                "expect": {"lane": "selection", "transition": "T3", "retrieval": false,
                           "answer_contains": ["search/bm25.py"]}}]}

Expectation keys (all optional): lane, transition, intent, retrieval (bool), answer_contains /
answer_not_contains (case-insensitive substrings), shown_kind, opened_path, answer_mode,
mutations_include / mutations_exclude (state slots), opened_item [turn, n]: the turn opened item
n of the list that turn `turn` of the case showed (robust to ranking changes).
`helix eval` calls `run_case` for the suites under data/evals/continuity/ and reports pass rates
per transition class.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.continuity.turn import TurnResult
from evals.suites import read_jsonl
from helix.core.config import HelixConfig
from helix.core.errors import ConfigError, HelixError
from helix.core.hashing import short_id

MS_PER_S = 1000.0
SUITE_DIR = Path(__file__).resolve().parents[1] / "data" / "evals" / "continuity"
FIXTURE_DIR = Path(__file__).resolve().parents[1] / "data" / "fixtures"
EXPECT_KEYS = frozenset({
    "lane", "transition", "intent", "retrieval", "answer_contains", "answer_not_contains",
    "shown_kind", "opened_path", "answer_mode", "mutations_include", "mutations_exclude",
    "opened_item"})


def load_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of one JSONL suite, validated (one-line error on a bad case)."""
    cases = []
    for number, case in read_jsonl(path):
        if not case.get("id") or not case.get("turns"):
            raise ConfigError(f"{path.name}:{number}: a case needs 'id' and 'turns'")
        for turn in case["turns"]:
            unknown = set(turn.get("expect", {})) - EXPECT_KEYS
            if "text" not in turn or unknown:
                raise ConfigError(f"{path.name}:{number}: bad turn (needs 'text'; unknown "
                                  f"expect keys {sorted(unknown)})")
        cases.append(case)
    return cases


def resolve_repo(spec: str, base: Path | None = None) -> Path:
    """`fixture:<name>` -> data/fixtures/<name>; else a path (relative to `base`)."""
    if spec.startswith("fixture:"):
        return FIXTURE_DIR / spec.split(":", 1)[1]
    path = Path(spec)
    return path if path.is_absolute() or base is None else base / path


def check_turn(turn: TurnResult, expect: dict[str, Any],
               earlier: Sequence[TurnResult] = ()) -> list[str]:
    """The failed expectations of one turn (empty: passed); `earlier`: the case's turns."""
    failures = []
    if "opened_item" in expect:
        at, n = expect["opened_item"]
        source = earlier[at - 1] if 0 < at <= len(earlier) else None
        items = source.shown.items if source is not None and source.shown else ()
        wanted = items[n - 1].target_id if 0 < n <= len(items) else None
        got = turn.opened.target.id if turn.opened else None
        if wanted is None or got != wanted:
            failures.append(f"opened_item: expected item {n} of turn {at} ({wanted}), got {got}")
    for key in ("lane", "transition", "intent", "answer_mode"):
        if key in expect and getattr(turn, key) != expect[key]:
            failures.append(f"{key}: expected {expect[key]}, got {getattr(turn, key)}")
    if "retrieval" in expect and turn.retrieval != bool(expect["retrieval"]):
        failures.append(f"retrieval: expected {expect['retrieval']}, got {turn.retrieval}")
    answer = turn.answer.lower()
    shown = " ".join(f"{i.label} {i.sublabel}" for i in turn.shown.items).lower() \
        if turn.shown else ""
    for needle in expect.get("answer_contains", []):
        if needle.lower() not in answer and needle.lower() not in shown:
            failures.append(f"answer lacks {needle!r}")
    for needle in expect.get("answer_not_contains", []):
        if needle.lower() in answer:
            failures.append(f"answer contains {needle!r}")
    if "shown_kind" in expect and (turn.shown.kind if turn.shown else None) != \
            expect["shown_kind"]:
        failures.append(f"shown_kind: expected {expect['shown_kind']}")
    if "opened_path" in expect and (turn.opened.path if turn.opened else None) != \
            expect["opened_path"]:
        failures.append(f"opened_path: expected {expect['opened_path']}, got "
                        f"{turn.opened.path if turn.opened else None}")
    for slot in expect.get("mutations_include", []):
        if slot not in turn.state_mutations:
            failures.append(f"state mutation {slot} missing")
    for slot in expect.get("mutations_exclude", []):
        if slot in turn.state_mutations:
            failures.append(f"state mutation {slot} not allowed")
    return failures


def run_case(case: dict[str, Any], *, root: Path, config: HelixConfig,
             dry_run: bool = True) -> dict[str, Any]:
    """Run one case in a fresh session over `root`; no LLM call when `dry_run`."""
    from helix.session.runner import run_turn
    from helix.session.store import ensure_schema, reset_session
    from helix.store.backend import open_backend

    db = open_backend()
    ensure_schema(db)
    name = f"eval-{case['id']}-{short_id('scenario', case)}"
    reset_session(db, name)
    per_turn: list[dict[str, Any]] = []
    done: list[TurnResult] = []
    broken = False
    for number, spec in enumerate(case["turns"], start=1):
        expect = spec.get("expect", {})
        row: dict[str, Any] = {"turn": number, "text": spec["text"],
                               "expected_transition": expect.get("transition")}
        if broken:
            row.update(passed=False, failures=["an earlier turn failed to run"])
            per_turn.append(row)
            continue
        started = time.perf_counter()
        try:
            turn = run_turn(name, spec["text"], root=root, config=config,
                            reply_to=spec.get("reply_to"), dry_run=dry_run, db=db)
        except HelixError as exc:
            broken = True
            row.update(passed=False, failures=[f"error: {exc}"])
            per_turn.append(row)
            continue
        failures = check_turn(turn, expect, done)
        done.append(turn)
        retries = [e for e in turn.events if e.name.endswith("_enrichment_retry_called")]
        row.update(passed=not failures, failures=failures, lane=turn.lane,
                   transition=turn.transition, retrieval=turn.retrieval,
                   answer_mode=turn.answer_mode,
                   time_ms=round((time.perf_counter() - started) * MS_PER_S, 3),
                   retries=len(retries),
                   unchanged_retries=sum(1 for e in retries if e.fingerprint_before is not None
                                         and e.fingerprint_before == e.fingerprint_after))
        per_turn.append(row)
    reset_session(db, name)
    classes = [row["expected_transition"] or row.get("transition") for row in per_turn]
    return {"id": case["id"], "passed": all(row["passed"] for row in per_turn),
            "per_turn": per_turn, "transition_classes": classes}


def run_suite(path: Path, *, config: HelixConfig, base: Path | None = None) -> list[dict]:
    """Every case of one suite file (repos resolved per case)."""
    return [run_case(case, root=resolve_repo(case.get("repo", "fixture:continuity_repo"),
                                             base), config=config)
            for case in load_cases(path)]
