"""Scoring a natural question against its gold, and the aggregates (pure).

Per question, for Helix: its ranked evidence (`evals.metrics.ranked_items`) as spans, the
distinct files in that order, and the evidence it would send a model (`envelope.evidence`);
for the whole-file BM25 baseline: its ranked files.

- file@k: a gold file is among the first k distinct files; MRR: 1 / the rank of the first.
- span@k: one of the first k evidence items overlaps a gold span (a stated line range or a
  named definition); symbol@k: the same for the definitions alone.
- recall: some evidence item sent overlaps a gold span (could a model answer from it?).
Span, symbol and recall count only the questions whose gold has such spans.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from evals.metrics import percentile
from evals.qa.gold import Gold, GoldSpan
from evals.reserved import shown_path
from helix.core.schemas import Frozen

KS: tuple[int, ...] = (1, 3, 5, 10)
SPAN_KS: tuple[int, ...] = (5, 10)
WORDINGS = ("what", "where", "how", "why", "which", "other")
_IDENTIFIER = re.compile(r"`|\w\(\)|\b[A-Z][a-z0-9]+[A-Z]\w*|\b\w+_\w+\b|\b[a-z]\w*\.[a-z_]\w*\(")


class Span(Frozen):
    path: str
    start_line: int
    end_line: int


class CaseScore(Frozen):
    id: str
    question_head: str
    wording: str
    identifier: bool
    gold_files: tuple[str, ...]
    gold_spans: int
    gold_symbols: int
    helix_file_rank: int | None
    helix_span_rank: int | None  # the first ranked item overlapping a gold span
    helix_symbol_rank: int | None
    helix_recall: bool | None  # None: the gold has no span
    bm25_file_rank: int | None
    # Helix's first five items as path:start-end (a path naming a reserved project is not
    # written: `evals.reserved.shown_path`)
    top: tuple[str, ...]
    gold: tuple[str, ...] = ()  # the gold spans (up to ten) as path:start-end
    route: str
    seconds: float
    error: str | None = None


def wording(question: str) -> str:
    first = question.strip().split(maxsplit=1)[0].lower() if question.strip() else ""
    return first if first in WORDINGS else "other"


def has_identifier(question: str) -> bool:
    return _IDENTIFIER.search(question) is not None


def _overlaps(item: Span, gold: GoldSpan) -> bool:
    return (item.path == gold.path and item.start_line <= gold.end_line
            and gold.start_line <= item.end_line)


def first_span_rank(items: Sequence[Span], gold: Sequence[GoldSpan]) -> int | None:
    for rank, item in enumerate(items, start=1):
        if any(_overlaps(item, g) for g in gold):
            return rank
    return None


def first_file_rank(files: Sequence[str], gold_files: Sequence[str]) -> int | None:
    wanted = set(gold_files)
    for rank, path in enumerate(dict.fromkeys(files), start=1):
        if path in wanted:
            return rank
    return None


def score_case(case_id: str, question: str, gold: Gold, items: Sequence[Span],
               sent: Sequence[Span], bm25_files: Sequence[str], *, route: str,
               seconds: float, error: str | None = None) -> CaseScore:
    symbols = gold.symbols
    return CaseScore(
        id=case_id, question_head=" ".join(question.split())[:100], wording=wording(question),
        identifier=has_identifier(question), gold_files=gold.files, gold_spans=len(gold.spans),
        gold_symbols=len(symbols),
        helix_file_rank=first_file_rank([i.path for i in items], gold.files),
        helix_span_rank=first_span_rank(items, gold.spans) if gold.spans else None,
        helix_symbol_rank=first_span_rank(items, symbols) if symbols else None,
        helix_recall=(first_span_rank(sent, gold.spans) is not None) if gold.spans else None,
        bm25_file_rank=first_file_rank(bm25_files, gold.files),
        top=tuple(f"{shown_path(i.path)}:{i.start_line}-{i.end_line}" for i in items[:5]),
        route=route,
        gold=tuple(f"{g.path}:{g.start_line}-{g.end_line}" for g in gold.spans[:10]),
        seconds=round(seconds, 4), error=error)


def _rate(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _at(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def summarize(cases: Sequence[CaseScore]) -> dict[str, object]:
    """Helix and BM25 side by side over `cases`."""
    spans = [c for c in cases if c.gold_spans]
    symbols = [c for c in cases if c.gold_symbols]
    out: dict[str, object] = {"questions": len(cases), "with_spans": len(spans),
                              "with_symbols": len(symbols)}
    helix: dict[str, float | None] = {}
    bm25: dict[str, float | None] = {}
    for k in KS:
        helix[f"file@{k}"] = _rate([_at(c.helix_file_rank, k) for c in cases])
        bm25[f"file@{k}"] = _rate([_at(c.bm25_file_rank, k) for c in cases])
    helix["mrr"] = round(sum(1 / c.helix_file_rank for c in cases if c.helix_file_rank)
                         / len(cases), 4) if cases else None
    bm25["mrr"] = round(sum(1 / c.bm25_file_rank for c in cases if c.bm25_file_rank)
                        / len(cases), 4) if cases else None
    for k in SPAN_KS:
        helix[f"span@{k}"] = _rate([_at(c.helix_span_rank, k) for c in spans])
    helix["symbol@5"] = _rate([_at(c.helix_symbol_rank, 5) for c in symbols])
    helix["recall"] = _rate([bool(c.helix_recall) for c in spans])
    times = [c.seconds for c in cases]
    helix["p50_s"] = round(percentile(times, 50), 4) if times else None
    out["helix"] = helix
    out["bm25_files"] = bm25
    out["errors"] = sum(1 for c in cases if c.error)
    return out


def by_group(cases: Sequence[CaseScore]) -> dict[str, dict[str, object]]:
    """The summary per wording and per identifier presence."""
    groups: dict[str, list[CaseScore]] = {}
    for case in cases:
        groups.setdefault(f"wording:{case.wording}", []).append(case)
        key = "identifier:yes" if case.identifier else "identifier:no"
        groups.setdefault(key, []).append(case)
    return {name: summarize(members) for name, members in sorted(groups.items())}
