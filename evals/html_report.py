"""Eval results as one self-contained HTML page with charts (plotly, its JavaScript inlined:
nothing is fetched when the page is viewed).

    render(payload, title) -> str    a `helix eval`, `helix eval history` or `helix eval qa`
                                     JSON result (the `--out` file), whichever it is
    compare(a, b, labels) -> str     two results of the same kind, side by side

What a page shows, by kind of result:
    suites    hit@k by suite and hit@5 by question kind; Helix against whole-file BM25
              (file_hit@k) in the same run; the
              latency of every question by suite; stop reasons and routes by suite; pass rates
              by transition class (continuity suites); each A/B gate with its limit and the
              decision, when the run was gated
    history   Acc@k by repository, Helix against BM25; the tuning / held-out totals
    qa        file@k, span@k, symbol@5 and evidence recall, Helix against BM25, by repository
              and by wording (what / where / how / why, with or without an identifier)
    changes   what changed under a repository's answers and documents (`helix eval
              changes`): questions by drift severity and each drifted one with its spans;
              stale documentation sections by kind of code change, each with its commits
    compare   every headline metric of A and B by suite or repository

The page marks itself when it has drawn (`data-charts` = number of charts, `data-drawn` =
charts with marks, `data-errors` = script errors): the browser test reads those.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

KS = (1, 3, 5, 10)
HELIX, BM25 = "Helix", "whole-file BM25"
Figure = dict[str, Any]  # plotly's JSON: {"data": [...], "layout": {...}}


def _bar(title: str, x: Sequence[str], series: dict[str, Sequence[float | None]],
         y_title: str = "", percent: bool = True) -> Figure:
    data = [{"type": "bar", "name": name, "x": list(x), "y": [v if v is not None else 0
                                                            for v in values]}
            for name, values in series.items()]
    axis: dict[str, Any] = {"title": {"text": y_title}}
    if percent:
        axis.update(range=[0, 1], tickformat=".0%")
    return {"data": data, "layout": {"title": {"text": title}, "barmode": "group",
                                     "yaxis": axis, "height": 380}}


def _stacked(title: str, x: Sequence[str], counts: dict[str, Sequence[int]]) -> Figure:
    data = [{"type": "bar", "name": name, "x": list(x), "y": list(values)}
            for name, values in sorted(counts.items())]
    return {"data": data, "layout": {"title": {"text": title}, "barmode": "stack",
                                     "yaxis": {"title": {"text": "questions"}}, "height": 380}}


def _table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> Figure:
    columns = [[str(row[i]) for row in rows] for i in range(len(header))]
    return {"data": [{"type": "table", "header": {"values": list(header)},
                      "cells": {"values": columns}}],
            "layout": {"title": {"text": title}, "height": 220 + 36 * max(len(rows), 1)}}


def _suite_figures(payload: dict[str, Any]) -> list[Figure]:
    suites = [s for s in payload["run"]["suites"] if s.get("kind") != "continuity"]
    names = [s["name"] for s in suites]
    figures: list[Figure] = []
    if suites:
        figures.append(_bar("hit@k by suite (an expected file or symbol in the first k items)",
                            names, {f"hit@{k}": [s["totals"].get(f"hit@{k}") for s in suites]
                                    for k in KS}))
        with_bm25 = [s for s in suites if s.get("bm25_files")]
        if with_bm25:
            x = [f"{s['name']} file_hit@{k}" for s in with_bm25 for k in KS]
            figures.append(_bar(f"{HELIX} against {BM25}, same run", x, {
                HELIX: [s["totals"].get(f"file_hit@{k}") for s in with_bm25 for k in KS],
                BM25: [s["bm25_files"].get(f"file_hit@{k}") for s in with_bm25 for k in KS]}))
        by_kind: dict[str, list[bool]] = {}
        for suite_row in suites:
            for case in suite_row["cases"]:
                if case.get("expects_files") or case.get("expects_symbols"):
                    rank = case.get("rank")
                    by_kind.setdefault(str(case.get("route")), []).append(
                        rank is not None and rank <= 5)
        kinds = sorted(by_kind)
        figures.append(_bar("hit@5 by question kind (route), every suite", kinds, {
            "hit@5": [round(sum(v) / len(v), 4) for v in (by_kind[k] for k in kinds)]}))
        figures.append({"data": [{"type": "box", "name": s["name"], "boxpoints": "all",
                                  "y": [c.get("time_ms") for c in s["cases"]]} for s in suites],
                        "layout": {"title": {"text": "time per question (ms)"}, "height": 380,
                                   "yaxis": {"title": {"text": "ms"}}}})
        for key, label in (("stop_reason", "stop reasons"), ("route", "routes")):
            counted = [Counter(str(c.get(key)) for c in s["cases"]) for s in suites]
            kinds = sorted({k for c in counted for k in c})
            figures.append(_stacked(f"{label} by suite", names,
                                    {kind: [c[kind] for c in counted] for kind in kinds}))
    classes = payload.get("continuity_by_class") or {}
    if classes:
        figures.append(_bar("continuity: pass rate by transition class", list(classes),
                            {"pass rate": [row.get("pass_rate") for row in classes.values()]}))
    decision = payload.get("decision")
    if decision:
        rows = [(g["metric"], g.get("rule", ""), g["baseline"],
                 g["candidate"] if not g.get("candidate_ci") else
                 f"{g['candidate']} [{g['candidate_ci'][0]}, {g['candidate_ci'][1]}]",
                 g["limit"], "pass" if g["passed"] else
                 ("ROLLBACK" if g.get("effect", "rollback") == "rollback" else "HALT"))
                for g in decision["gates"]]
        why = "; ".join(decision.get("reasons") or ())
        figures.append(_table(f"A/B gates: {decision['decision']} ({decision['candidate_label']}"
                              f" against {decision['baseline_label']})<br><sub>{html.escape(why)}"
                              "</sub>",
                              ("gate", "threshold", "baseline", "candidate (95% CI)", "limit",
                               "result"),
                              rows))
    return figures


def _history_figures(payload: dict[str, Any]) -> list[Figure]:
    repos = payload["repos"]
    names = [r["name"] for r in repos]
    figures = []
    for k in KS:
        figures.append(_bar(f"Acc@{k} by repository (every changed file in the first {k})",
                            names, {HELIX: [r["helix"].get(f"acc@{k}") for r in repos],
                                    BM25: [r["bm25"].get(f"acc@{k}") for r in repos]}))
    overall = payload.get("overall") or {}
    if overall:
        parts = [p for p in ("tuning", "held_out", "all") if overall.get(p)]
        figures.append(_bar("totals: tuning and held-out repositories", [
            f"{p} Acc@{k}" for p in parts for k in KS], {
            HELIX: [overall[p]["helix"].get(f"acc@{k}") for p in parts for k in KS],
            BM25: [overall[p]["bm25"].get(f"acc@{k}") for p in parts for k in KS]}))
    return figures


def _qa_results(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if payload.get("benchmark") == "qa":
        return {payload.get("file", "qa"): payload}
    return dict(payload.get("results") or {})  # benchmarks/qa_dev.py: one per repository


def _qa_figures(payload: dict[str, Any]) -> list[Figure]:
    results = _qa_results(payload)
    names = list(results)
    summaries = [r["summary"] for r in results.values()]
    figures = [
        _bar("a cited file in the first k: Helix against whole-file BM25",
             [f"{n} file@{k}" for n in names for k in KS],
             {HELIX: [s["helix"].get(f"file@{k}") for s in summaries for k in KS],
              BM25: [s["bm25_files"].get(f"file@{k}") for s in summaries for k in KS]}),
        _bar("the cited lines: span@k, symbol@5 and recall in the evidence sent", names,
             {metric: [s["helix"].get(metric) for s in summaries]
              for metric in ("span@5", "span@10", "symbol@5", "recall")}),
    ]
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for result in results.values():
        for group, row in (result.get("groups") or {}).items():
            groups.setdefault(group, []).append((group, row))
    if groups:
        labels = sorted(groups)
        figures.append(_bar("file@1 by wording (mean over repositories)", labels, {
            HELIX: [_mean(r["helix"].get("file@1") for _, r in groups[g]) for g in labels],
            BM25: [_mean(r["bm25_files"].get("file@1") for _, r in groups[g])
                   for g in labels]}))
    return figures


CELL_CHARS = 160  # a table cell's text is cut past this (the JSON result has all of it)


def _cut(text: str) -> str:
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"


def _changes_figures(payload: dict[str, Any]) -> list[Figure]:
    drift, stale = payload["drift"], payload["stale_docs"]
    counts = drift["counts"]
    order = ("changed", "moved", "ranking", "unchanged", "unrecorded")
    figures = [_bar("questions by drift since they were answered", list(order),
                    {"questions": [counts.get(k, 0) for k in order]}, "questions",
                    percent=False)]
    drifted = [q for q in drift["questions"] if q["severity"] not in ("unchanged",)]
    if drifted:
        rows = [[q["severity"], _cut(q["question"]), _cut("; ".join(
            f"{s['path']}:{s['start_line']}-{s['end_line']} {s['status']}"
            + (f" -> {s['now_path']}:{s['now_start']}" if s.get("now_path")
               and s["status"] not in ("same", "changed") else "")
            for s in q["spans"] if s["status"] != "same") or "ranking only")]
                for q in drifted]
        figures.append(_table("drifted questions", ["severity", "question", "cited spans"],
                              rows))
    kinds: Counter[str] = Counter(c["kind"] for s in stale["stale"] for d in s["definitions"]
                                  for c in d["changes"])
    names = sorted(kinds)
    figures.append(_bar(f"stale documentation sections: {len(stale['stale'])} of "
                        f"{stale['aligned']} aligned to code ({len(stale.get('changed', []))} "
                        "more whose code only changed), by kind of code change", names,
                        {"changes": [kinds[n] for n in names]}, "changes", percent=False))
    if stale["stale"]:
        rows = [[f"{s['doc_path']}:{s['start_line']}", _cut(" > ".join(s["heading"])),
                 _cut("; ".join(f"{d['symbol']}: " + ", ".join(
                     f"{c['kind']} {c['detail']}" for c in d["changes"])
                     for d in s["definitions"])),
                 _cut("; ".join(f"line {e['line']} {e['kind']} {e['name']}"
                                for d in s["definitions"] for e in d.get("evidence", []))),
                 ", ".join(sorted({c["sha"][:12] for d in s["definitions"]
                                   for c in d["commits"]}))]
                for s in stale["stale"]]
        figures.append(_table("stale sections", ["section", "heading", "what changed",
                                                 "evidence", "commits"], rows))
    return figures


def _mean(values: Any) -> float | None:
    present = [v for v in values if v is not None]
    return round(sum(present) / len(present), 4) if present else None


def kind_of(payload: dict[str, Any]) -> str:
    if payload.get("benchmark") in ("history", "changes"):
        return str(payload["benchmark"])
    if payload.get("benchmark") == "qa" or "results" in payload:
        return "qa"
    if "run" in payload and "suites" in payload.get("run", {}):
        return "suites"
    raise ValueError("not a helix eval result (suites, history, qa or changes)")


def figures_for(payload: dict[str, Any]) -> list[Figure]:
    return {"suites": _suite_figures, "history": _history_figures, "qa": _qa_figures,
            "changes": _changes_figures}[kind_of(payload)](payload)


def _headline(payload: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """metric -> {suite or repository: value} for comparing two results of one kind."""
    kind = kind_of(payload)
    out: dict[str, dict[str, float | None]] = {}
    if kind == "suites":
        for name, row in payload["summary"].items():
            for metric in ("hit@1", "hit@5", "mrr", "pass_rate"):
                out.setdefault(metric, {})[name] = row.get(metric)
    elif kind == "changes":
        raise ValueError("a changes result is a page of its own, not compared")
    elif kind == "history":
        for repo in payload["repos"]:
            for k in KS:
                out.setdefault(f"acc@{k}", {})[repo["name"]] = repo["helix"].get(f"acc@{k}")
    else:
        for name, result in _qa_results(payload).items():
            for metric in ("file@1", "file@5", "span@5", "recall"):
                out.setdefault(metric, {})[name] = result["summary"]["helix"].get(metric)
    return out


def compare_figures(a: dict[str, Any], b: dict[str, Any], labels: tuple[str, str]
                    ) -> list[Figure]:
    if kind_of(a) != kind_of(b):
        raise ValueError(f"cannot compare a {kind_of(a)} result with a {kind_of(b)} one")
    left, right = _headline(a), _headline(b)
    figures = []
    for metric in sorted(set(left) & set(right)):
        names = sorted(set(left[metric]) | set(right[metric]))
        figures.append(_bar(f"{metric}: {labels[0]} against {labels[1]}", names, {
            labels[0]: [left[metric].get(n) for n in names],
            labels[1]: [right[metric].get(n) for n in names]}))
    return figures


_STYLE = ("body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}"
          "h1{font-size:1.4em}.chart{margin:1.5em 0;border-top:1px solid #ddd}")
_CHECK = """
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
"""
_DRAW = """
(function () {
  var root = document.documentElement;
  var specs = JSON.parse(document.getElementById('helix-figures').textContent);
  root.dataset.charts = String(specs.length);
  var drawn = specs.map(function (spec, i) {
    var div = document.getElementById('chart-' + i);
    return Plotly.newPlot(div, spec.data, spec.layout, {responsive: true, displaylogo: false})
      .then(function () {
        return div.querySelectorAll('.trace, .bars path, .point, .column-cell').length > 0;
      });
  });
  Promise.all(drawn).then(function (marks) {
    root.dataset.drawn = String(marks.filter(Boolean).length);
    root.dataset.undrawn = marks.map(function (m, i) { return m ? '' : String(i); })
      .filter(Boolean).join(',');
    root.dataset.errors = String(window.__errors.length);
    root.dataset.errorText = window.__errors.join(' | ');
  }, function (error) {
    window.__errors.push(String(error));
    root.dataset.errors = String(window.__errors.length);
    root.dataset.errorText = window.__errors.join(' | ');
  });
})();
"""


def page(title: str, figures: Sequence[Figure], note: str = "") -> str:
    from plotly.offline import get_plotlyjs

    divs = "\n".join(f'<div class="chart" id="chart-{i}"></div>' for i in range(len(figures)))
    data = json.dumps(list(figures), sort_keys=True).replace("</", "<\\/")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style>"
            f"<script>{_CHECK}</script><script>{get_plotlyjs()}</script></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(note)}</p>\n{divs}\n"
            f"<script type=\"application/json\" id=\"helix-figures\">{data}</script>"
            f"<script>{_DRAW}</script></body></html>\n")


def render(payload: dict[str, Any], title: str) -> str:
    return page(title, figures_for(payload), f"{kind_of(payload)} result")


def compare(a: dict[str, Any], b: dict[str, Any], labels: tuple[str, str]) -> str:
    return page(f"{labels[0]} against {labels[1]}", compare_figures(a, b, labels),
                f"{kind_of(a)} results compared")
