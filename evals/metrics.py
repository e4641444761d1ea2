"""Pure scoring of dry-run envelopes against a case's expectations, and suite aggregates.

Ranking: the envelope's evidence in order, then any clarifier options' evidence (a clarifying
run still shows where it looked). A *file hit* is an item whose path is an expected file (or lies
under an expected directory ending in "/"); a *symbol hit* is an item whose symbol or qualname is
the expected name (or ends with ".name"), or whose text defines it (`def name`, `class name`,
`name = ...`). A case's rank is the first rank of any hit; MRR averages 1/rank (0 when missed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from evals.suites import Case
from helix.core.envelope import Envelope, EvidenceItem
from helix.core.schemas import Frozen

KS: tuple[int, ...] = (1, 3, 5, 10)
PASS_K = 5  # a case passes retrieval when every expected kind (file, symbol) is hit in the top 5
CLARIFY_OPTIONS = 2


def ranked_items(env: Envelope) -> list[EvidenceItem]:
    """Evidence in rank order, then clarifier-option evidence not already listed."""
    items = list(env.evidence)
    seen = {item.id for item in items}
    if env.clarify is not None:
        for option in env.clarify.options:
            for item in option.evidence:
                if item.id not in seen:
                    seen.add(item.id)
                    items.append(item)
    return items


def path_matches(path: str, expected: str) -> bool:
    path = path.removeprefix("./")
    if expected.endswith("/"):
        return path.startswith(expected)
    return path == expected


def _defines(text: str, name: str) -> bool:
    bare = re.escape(name.rsplit(".", 1)[-1])
    pattern = rf"^\s*(?:async\s+def|def|class)\s+{bare}\b|^\s*{bare}\s*(?::[^=\n]*)?=(?!=)"
    return re.search(pattern, text, flags=re.MULTILINE) is not None


def symbol_matches(item: EvidenceItem, expected: str) -> bool:
    symbol = item.symbol or ""
    if symbol and (symbol == expected or symbol.endswith("." + expected)):
        return True
    if item.node_id.endswith("::" + expected) or item.node_id.endswith("." + expected):
        return True
    return bool(item.text) and _defines(item.text, expected)


def first_rank(items: Sequence[EvidenceItem], expected: Sequence[str], *,
               symbols: bool) -> int | None:
    """1-based rank of the first item matching any expected value; None when none does."""
    if not expected:
        return None
    for rank, item in enumerate(items, start=1):
        for value in expected:
            if (symbol_matches(item, value) if symbols else path_matches(item.path, value)):
                return rank
    return None


def clarify_ok(env: Envelope) -> bool:
    """A usable clarifier: exactly two options, each with evidence."""
    return (env.clarify is not None and len(env.clarify.options) == CLARIFY_OPTIONS
            and all(option.evidence for option in env.clarify.options))


class CaseResult(Frozen):
    id: str
    suite: str
    repo: str
    question: str
    route: str
    stop_reason: str
    evidence_count: int
    steps: int
    llm_steps: int
    clarified: bool
    file_rank: int | None
    symbol_rank: int | None
    rank: int | None  # first hit of any kind
    expects_files: bool
    expects_symbols: bool
    checks: dict[str, bool]  # named pass/fail checks
    passed: bool
    time_ms: float
    time_ms_repeat: float
    item_hashes: dict[str, str]
    top: tuple[str, ...]  # the first evidence items as path:start-end
    error: str | None = None
    # with an answerer (`helix eval --answerer MODEL`): the answer's mode, why the model's
    # answer was not used, and its citations kept / removed by the contract
    answer_mode: str | None = None
    fallback_reason: str | None = None
    citations_valid: int = 0
    citations_removed: int = 0


def _hit(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def score_case(case: Case, suite: str, env: Envelope, repeat: Envelope, *,
               time_ms: float, time_ms_repeat: float, top_n: int = 5) -> CaseResult:
    """Score one case from two runs of the same question (the second checks hash stability)."""
    items = ranked_items(env)
    exp = case.expect
    file_rank = first_rank(items, exp.files, symbols=False)
    symbol_rank = first_rank(items, exp.symbols, symbols=True)
    ranks = [r for r in (file_rank, symbol_rank) if r is not None]
    checks: dict[str, bool] = {
        "llm_steps_zero": env.llm_steps == 0 and repeat.llm_steps == 0,
        "steps_present": len(env.controller_steps) > 0,
        "hashes_stable": env.item_hashes == repeat.item_hashes
        and [i.id for i in env.evidence] == [i.id for i in repeat.evidence],
    }
    if exp.files:
        checks[f"file@{PASS_K}"] = _hit(file_rank, PASS_K)
    if exp.symbols:
        checks[f"symbol@{PASS_K}"] = _hit(symbol_rank, PASS_K)
    if exp.route is not None:
        checks["route"] = env.route == exp.route
    if exp.stop_reason is not None:
        checks["stop_reason"] = env.stop_reason == exp.stop_reason
    if exp.clarify is True:
        checks["clarify"] = clarify_ok(env)
    elif exp.clarify is False:
        checks["no_clarify"] = env.clarify is None
    if exp.answer_contains:
        answer = env.answer.lower()
        checks["answer_contains"] = all(s.lower() in answer for s in exp.answer_contains)
    return CaseResult(
        id=case.id, suite=suite, repo=case.repo, question=case.question, route=env.route,
        stop_reason=env.stop_reason, evidence_count=len(env.evidence),
        steps=len(env.controller_steps), llm_steps=env.llm_steps,
        clarified=env.clarify is not None, file_rank=file_rank, symbol_rank=symbol_rank,
        rank=min(ranks) if ranks else None, expects_files=bool(exp.files),
        expects_symbols=bool(exp.symbols), checks=checks, passed=all(checks.values()),
        time_ms=round(time_ms, 3), time_ms_repeat=round(time_ms_repeat, 3),
        item_hashes=dict(env.item_hashes),
        top=tuple(f"{i.path}:{i.start_line}-{i.end_line}" for i in items[:top_n]),
    )


def error_result(case: Case, suite: str, message: str) -> CaseResult:
    """A case whose run raised: every check fails, the message is kept."""
    exp = case.expect
    return CaseResult(
        id=case.id, suite=suite, repo=case.repo, question=case.question, route="",
        stop_reason="", evidence_count=0, steps=0, llm_steps=0, clarified=False,
        file_rank=None, symbol_rank=None, rank=None, expects_files=bool(exp.files),
        expects_symbols=bool(exp.symbols), checks={"ran": False}, passed=False,
        time_ms=0.0, time_ms_repeat=0.0, item_hashes={}, top=(), error=message)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return float(ordered[min(index, len(ordered) - 1)])


def _rate(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def aggregate(results: Sequence[CaseResult]) -> dict[str, float | int | None]:
    """Suite totals. Rates over the cases they apply to; None when no case applies."""
    ran = [r for r in results if r.error is None]
    targeted = [r for r in results if r.expects_files or r.expects_symbols]
    with_files = [r for r in results if r.expects_files]
    with_symbols = [r for r in results if r.expects_symbols]
    with_route = [r for r in results if "route" in r.checks]
    times = [r.time_ms for r in ran]
    out: dict[str, float | int | None] = {"cases": len(results), "errors": len(results) - len(ran)}
    for k in KS:
        out[f"hit@{k}"] = _rate([_hit(r.rank, k) for r in targeted])
        out[f"file_hit@{k}"] = _rate([_hit(r.file_rank, k) for r in with_files])
        out[f"symbol_hit@{k}"] = _rate([_hit(r.symbol_rank, k) for r in with_symbols])
    out["mrr"] = (round(sum(1.0 / r.rank if r.rank else 0.0 for r in targeted) / len(targeted), 4)
                  if targeted else None)
    out["file_mrr"] = (round(sum(1.0 / r.file_rank if r.file_rank else 0.0 for r in with_files)
                             / len(with_files), 4) if with_files else None)
    out["pass_rate"] = _rate([r.passed for r in results])
    out["llm_steps_zero_rate"] = _rate([r.checks.get("llm_steps_zero", False) for r in results])
    out["hash_stable_rate"] = _rate([r.checks.get("hashes_stable", False) for r in results])
    out["clarifier_rate"] = _rate([r.clarified for r in results])
    out["wrong_route_rate"] = _rate([not r.checks["route"] for r in with_route])
    answered = [r for r in ran if r.answer_mode is not None and r.answer_mode != "clarify"]
    out["answered"] = len(answered)
    out["fallback_rate"] = _rate([r.answer_mode == "fallback" for r in answered])
    out["contract_violation_rate"] = _rate([(r.fallback_reason or "").startswith("contract_")
                                            for r in answered])
    cited = sum(r.citations_valid + r.citations_removed for r in answered)
    out["citation_validity"] = (round(sum(r.citations_valid for r in answered) / cited, 4)
                                if cited else None)
    out["p50_ms"] = round(percentile(times, 50), 3)
    out["p95_ms"] = round(percentile(times, 95), 3)
    out["mean_ms"] = round(sum(times) / len(times), 3) if times else 0.0
    return out


def stop_reasons(results: Sequence[CaseResult]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.stop_reason or "error"] = counts.get(r.stop_reason or "error", 0) + 1
    return dict(sorted(counts.items()))
