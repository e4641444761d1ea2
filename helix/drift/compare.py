"""One question's drift: its recorded evidence against a dry run of it at HEAD. Pure over the
index at HEAD; the cited lines' earlier text comes from `then_lines` (asked only for a span
whose chunk the index no longer has).

The cited spans are the answer's citations (their line ranges, by evidence item); an answer
that cited nothing is held to its first `drift.lead_items` evidence items. The question's
severity is its worst span's (`helix.core.changes.SPAN_SEVERITY`); when every cited span is
where it was, a different order of the first `drift.rank_items` evidence items (each item
followed to what it became) is a ranking move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from helix.core.changes import SPAN_SEVERITY, OldText, QuestionDrift, Severity, SpanDrift, worse
from helix.core.envelope import Envelope, EvidenceItem
from helix.core.history_settings import DriftSettings
from helix.drift.records import Recorded
from helix.drift.spans import Range, Then, compare_span, still_there
from indexers.api import IndexReader

ThenLines = Callable[[Recorded, EvidenceItem], tuple[tuple[str, ...] | None, OldText]]


def _merged(ranges: Sequence[Range]) -> tuple[Range, ...]:
    out: list[list[int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return tuple((a, b) for a, b in out)


def cited(recorded: Recorded, lead_items: int) -> list[tuple[EvidenceItem, tuple[Range, ...]]]:
    """The evidence items the answer cited, each with its cited line ranges (clipped to it)."""
    by_id = {e.id: e for e in recorded.evidence}
    ranges: dict[str, list[Range]] = {}
    for citation in recorded.citations:
        item = by_id.get(citation.evidence_id)
        if item is None:
            continue
        start = max(item.start_line, min(citation.start_line, item.end_line))
        end = min(item.end_line, max(citation.end_line, start))
        ranges.setdefault(item.id, []).append((start, end))
    if ranges:
        return [(by_id[i], _merged(r)) for i, r in ranges.items()]
    lead = [e for e in recorded.evidence if not e.context_only][:lead_items]
    return [(e, ((e.start_line, e.end_line),)) for e in lead]


def _label(path: str, start: int, end: int) -> str:
    return f"{path}:{start}-{end}"


def leading(evidence: Sequence[EvidenceItem], count: int) -> list[EvidenceItem]:
    return [e for e in evidence if not e.context_only][:count]


def compare_question(recorded: Recorded, now: Envelope, index: IndexReader,
                     then_lines: ThenLines, settings: DriftSettings,
                     source: Literal["runlog", "pinned"] = "runlog") -> QuestionDrift:
    answer_now = [e.chunk_id for e in now.evidence if e.chunk_id]
    spans: list[SpanDrift] = []
    followed: dict[str, str] = {}  # an old chunk id -> the chunk it became
    for item, ranges in cited(recorded, settings.lead_items):
        lines: tuple[str, ...] | None = None
        origin: OldText = "none"
        if not still_there(index, item):
            lines, origin = then_lines(recorded, item)
        span = compare_span(index, Then(item=item, cited=ranges, lines=lines, source=origin),
                            answer_now, settings)
        spans.append(span)
        if span.now_chunk_id is not None and span.status != "changed":
            followed[item.chunk_id] = span.now_chunk_id
    severity: Severity = "unchanged"
    for span in spans:
        severity = worse(severity, SPAN_SEVERITY[span.status])
    was = leading(recorded.evidence, settings.rank_items)
    is_now = leading(now.evidence, settings.rank_items)
    if severity == "unchanged" and _order(was, index, followed) != _order(is_now, index, {}):
        severity = "ranking"
    return QuestionDrift(
        question=recorded.question, scope=recorded.scope, sense=recorded.sense,
        source=source, run_id=recorded.run_id,
        asked=recorded.asked, recorded_rev=recorded.repo_rev, severity=severity,
        spans=tuple(spans), was=tuple(_label(e.path, e.start_line, e.end_line) for e in was),
        now=tuple(_label(e.path, e.start_line, e.end_line) for e in is_now))


def _order(items: Sequence[EvidenceItem], index: IndexReader, followed: dict[str, str]
           ) -> list[str]:
    """The items as comparable keys: the same chunk, or the chunk a cited one became (one
    that is gone matches nothing)."""
    return [followed.get(item.chunk_id) or (item.chunk_id if still_there(index, item)
                                            else f"gone:{item.chunk_id}") for item in items]
