"""The human-readable report of a `helix eval qa` result (pure)."""

from __future__ import annotations

from typing import Any

_ROWS = ("file@1", "file@3", "file@5", "file@10", "mrr", "span@5", "span@10", "symbol@5",
         "recall")


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(summary: dict[str, Any]) -> list[str]:
    helix, bm25 = summary["helix"], summary["bm25_files"]
    lines = [f"  {'metric':<9} {'helix':>7} {'bm25':>7}"]
    for row in _ROWS:
        lines.append(f"  {row:<9} {_cell(helix.get(row)):>7} {_cell(bm25.get(row)):>7}")
    return lines


def render(result: dict[str, Any], verbose: bool = False) -> str:
    summary = result["summary"]
    dropped = ", ".join(f"{k} {v}" for k, v in sorted(result["dropped"].items()) if v) or "none"
    lines = [f"qa {result['file']} on {result['repo']} at {result['rev'][:12]}: "
             f"{summary['questions']} questions scored of {result['read']} read "
             f"(dropped: {dropped}); {summary['with_spans']} with gold spans, "
             f"{summary['with_symbols']} with gold definitions", *_table(summary)]
    for name, group in result["groups"].items():
        helix = group["helix"]
        lines.append(f"  {name:<16} n={group['questions']:<3} file@1 {_cell(helix['file@1'])} "
                     f"(bm25 {_cell(group['bm25_files']['file@1'])})  span@5 "
                     f"{_cell(helix['span@5'])}  recall {_cell(helix['recall'])}")
    for case in result["cases"]:
        missed = case["helix_file_rank"] != 1 or (case["gold_spans"]
                                                   and case["helix_span_rank"] is None)
        if verbose or missed:
            lines.append(f"  {case['id']}: file {case['helix_file_rank']} span "
                         f"{case['helix_span_rank']} bm25 {case['bm25_file_rank']} | "
                         f"{case['question_head'][:70]} | gold {', '.join(case['gold_files'][:3])}")
    return "\n".join(lines)
