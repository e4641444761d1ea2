"""Render eval results: rich tables for people, one JSON document for machines."""

from __future__ import annotations

import sys
from typing import Any

from evals.gates import Decision
from evals.metrics import KS, CaseResult
from evals.runner import RunResult, SuiteResult, class_order

PIPE_WIDTH = 140  # columns when the output is not a terminal (logs, files)
TOTAL_KEYS = (*(f"hit@{k}" for k in KS), "mrr", "pass_rate", "hash_stable_rate",
              "llm_steps_zero_rate", "clarifier_rate", "wrong_route_rate", "p50_ms", "p95_ms",
              "answered", "fallback_rate", "contract_violation_rate", "citation_validity")


def result_json(run: RunResult, decision: Decision | None = None,
                pinned: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"run": run.model_dump(mode="json")}
    out["summary"] = summary(run)
    classes = pooled_classes(run)
    if classes:
        out["continuity_by_class"] = classes
    if decision is not None:
        out["decision"] = decision.model_dump(mode="json")
    if pinned is not None:
        out["pinned_baseline"] = pinned
    return out


def summary(run: RunResult) -> dict[str, Any]:
    """Per suite: the totals, and Helix vs the BM25-over-files baseline on file hits."""
    rows: dict[str, Any] = {}
    for suite in run.suites:
        if suite.kind == "continuity":
            cont = suite.continuity or {}
            rows[suite.name] = {"pass_rate": cont.get("pass_rate"),
                                "by_class": {k: v["pass_rate"]
                                             for k, v in cont.get("by_class", {}).items()}}
            continue
        row: dict[str, Any] = {k: suite.totals.get(k) for k in TOTAL_KEYS}
        row["cases"] = suite.totals.get("cases")
        if suite.bm25_files is not None:
            row["helix_vs_bm25_files"] = {
                f"file_hit@{k}": {"helix": suite.totals.get(f"file_hit@{k}"),
                                  "bm25_files": suite.bm25_files.get(f"file_hit@{k}")}
                for k in KS}
            row["helix_vs_bm25_files"]["file_mrr"] = {"helix": suite.totals.get("file_mrr"),
                                                      "bm25_files": suite.bm25_files.get("mrr")}
        rows[suite.name] = row
    return rows


def pooled_classes(run: RunResult) -> dict[str, dict[str, Any]]:
    """Per transition class over every continuity suite of the run."""
    pooled: dict[str, list[int]] = {}
    for suite in run.suites:
        for name, row in ((suite.continuity or {}).get("by_class") or {}).items():
            cases, passed = pooled.setdefault(name, [0, 0]), row["passed"]
            cases[0] += row["cases"]
            cases[1] += passed
    return {name: {"cases": n, "passed": p, "pass_rate": round(p / n, 4) if n else None}
            for name, (n, p) in sorted(pooled.items(), key=lambda kv: class_order(kv[0]))}


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.0f}"
    return str(value)


def _rank(case: CaseResult) -> str:
    parts = []
    if case.expects_files:
        parts.append(f"f{case.file_rank or '-'}")
    if case.expects_symbols:
        parts.append(f"s{case.symbol_rank or '-'}")
    return " ".join(parts) or "-"


def _suite_tables(suite: SuiteResult, console: Any, verbose: bool) -> None:
    from rich.table import Table

    if suite.kind == "continuity":
        cont = suite.continuity or {}
        table = Table(title=f"{suite.name}: per transition class")
        for col in ("class", "cases", "passed", "pass rate"):
            table.add_column(col)
        for name, row in cont.get("by_class", {}).items():
            table.add_row(name, str(row["cases"]), str(row["passed"]), _fmt(row["pass_rate"]))
        console.print(table)
        failed = [c for c in cont.get("cases", []) if not c["passed"]]
        for case in failed:
            console.print(f"  FAIL {case['id']}: {case.get('error') or 'see per_turn'}")
        return
    table = Table(title=f"{suite.name}: {len(suite.cases)} cases")
    table.add_column("case", no_wrap=True)
    for col in ("route", "stop", "rank", "failed checks", "ms"):
        table.add_column(col, overflow="fold")
    for case in suite.cases:
        if not verbose and case.passed:
            continue
        failed = [name for name, ok in case.checks.items() if not ok]
        table.add_row(case.id, case.route, case.stop_reason, _rank(case),
                      case.error or ", ".join(failed) or "ok", _fmt(case.time_ms))
    if table.row_count:
        console.print(table)
    totals = Table(title=f"{suite.name}: totals")
    totals.add_column("metric")
    totals.add_column("value", justify="right")
    for key in TOTAL_KEYS:
        totals.add_row(key, _fmt(suite.totals.get(key)))
    console.print(totals)
    if suite.bm25_files is not None and suite.bm25_files.get("cases"):
        cmp = Table(title=f"{suite.name}: Helix vs BM25 over whole files (file hits)")
        cmp.add_column("")
        for k in KS:
            cmp.add_column(f"file_hit@{k}")
        cmp.add_column("mrr (files)")
        cmp.add_row("helix", *(_fmt(suite.totals.get(f"file_hit@{k}")) for k in KS),
                    _fmt(suite.totals.get("file_mrr")))
        cmp.add_row("bm25_files", *(_fmt(suite.bm25_files.get(f"file_hit@{k}")) for k in KS),
                    _fmt(suite.bm25_files.get("mrr")))
        console.print(cmp)
    if suite.stop_reasons:
        console.print("stop reasons: " + ", ".join(f"{k}={v}"
                                                  for k, v in suite.stop_reasons.items()))


def render(run: RunResult, decision: Decision | None = None, *, verbose: bool = False,
           pinned: str | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=PIPE_WIDTH)
    console.print(f"[bold]helix eval[/bold] configuration '{run.label}' "
                  f"({run.config_hash[:19]}){' no-embed' if run.no_embed else ''}")
    for suite in run.suites:
        _suite_tables(suite, console, verbose)
    classes = pooled_classes(run)
    if sum(1 for s in run.suites if s.kind == "continuity") > 1:
        table = Table(title="continuity: per transition class, all scenario suites")
        for col in ("class", "cases", "passed", "pass rate"):
            table.add_column(col)
        for name, row in classes.items():
            table.add_row(name, str(row["cases"]), str(row["passed"]), _fmt(row["pass_rate"]))
        console.print(table)
    if decision is not None:
        table = Table(title=f"A/B: '{decision.candidate_label}' vs baseline "
                            f"'{decision.baseline_label}' ({', '.join(decision.suites)})")
        for col in ("gate", "threshold", "baseline", "candidate", "limit", "ok"):
            table.add_column(col)
        for gate in decision.gates:
            shown = _fmt(gate.candidate)
            if gate.candidate_ci is not None:
                shown += f" [{_fmt(gate.candidate_ci[0])}, {_fmt(gate.candidate_ci[1])}]"
            table.add_row(gate.metric, gate.rule, _fmt(gate.baseline), shown,
                          _fmt(gate.limit),
                          "yes" if gate.passed else ("NO" if gate.effect == "rollback"
                                                     else "HALT"))
        console.print(table)
        console.print(f"[bold]{decision.decision}[/bold]: " + "; ".join(decision.reasons))
    if pinned is not None:
        console.print(f"pinned baseline: {pinned}")
