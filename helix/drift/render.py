"""The human view of a drift report: a head line, then each question that drifted, worst
first, with its cited spans and the diff of the lines that changed. Plain text; the CLI makes
every line terminal-safe (`helix.cli.safe_text`)."""

from __future__ import annotations

from datetime import UTC, datetime

from helix.core.changes import SPAN_WORDS, DriftReport, QuestionDrift, SpanDrift
from helix.core.visible import visible_field

LABEL = {"changed": "CHANGED", "moved": "MOVED", "ranking": "RANKING", "unchanged": "same",
         "unrecorded": "UNRECORDED"}
SHORT_SHA = 12


def _rev(rev: str | None) -> str:
    if not rev:
        return "?"
    head, plus, rest = rev.partition("+")
    return head[:SHORT_SHA] + plus + rest


def _when(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _where(path: str | None, start: int | None, end: int | None) -> str:
    return f"{visible_field(path or '?')}:{start}-{end}"


def span_lines(span: SpanDrift, indent: str = "  ") -> list[str]:
    """One cited span: where it was, what it is now, and the diff of its lines."""
    then = _where(span.path, span.start_line, span.end_line)
    name = f" {visible_field(span.symbol)}" if span.symbol else ""
    head = f"{indent}{then}{name}: {SPAN_WORDS[span.status]}"
    if span.status not in ("same", "vanished") and span.now_path is not None:
        now_name = (f" {visible_field(span.now_symbol)}"
                    if span.now_symbol and span.now_symbol != span.symbol else "")
        head += f" -> {_where(span.now_path, span.now_start, span.now_end)}{now_name}"
    if span.similarity is not None and span.similarity < 1.0:
        head += f" (similarity {span.similarity:.2f})"
    lines = [head]
    lines += [f"{indent}  {c.kind}: {c.detail}" for c in span.changes]
    if span.status in ("changed", "vanished") and not span.diff:
        lines.append(f"{indent}  (the earlier text of these lines was not kept: "
                     f"{span.old_text})")
    lines += [f"{indent}    {line}" for line in span.diff]
    return lines


def question_lines(q: QuestionDrift) -> list[str]:
    scope = f" [scope {q.scope}]" if q.scope else ""
    asked = f", asked {_when(q.asked)}" if q.asked is not None else ""
    turn = f"turn {q.run_id}" if q.run_id else "pinned"
    lines = [f"{LABEL[q.severity]:<8} \"{q.question}\"{scope}  ({turn}{asked} at "
             f"{_rev(q.recorded_rev)})"]
    if q.note:
        lines.append(f"  {q.note}")
    for span in q.spans:
        if span.status != "same":
            lines += span_lines(span)
    if q.severity == "ranking":
        lines.append(f"  was: {', '.join(q.was)}")
        lines.append(f"  now: {', '.join(q.now)}")
    return lines


def render(report: DriftReport, show_all: bool = False) -> str:
    counts = report.counts
    asked = len(report.questions)
    source = "pinned" if report.pinned else "from the run log"
    head = (f"drift at {_rev(report.head_rev)}: {asked} question(s) {source}; "
            + ", ".join(f"{counts.get(k, 0)} {k}" for k in ("changed", "moved", "ranking",
                                                             "unchanged"))
            + (f", {counts['unrecorded']} unrecorded" if counts.get("unrecorded") else ""))
    lines = [head]
    if not asked:
        lines.append("nothing to compare: no question of this repository in the run log"
                     + (" since then" if not report.pinned else ""))
    for q in report.questions:
        if q.severity == "unchanged" and not show_all:
            continue
        lines += ["", *question_lines(q)]
    hidden = counts.get("unchanged", 0)
    if hidden and not show_all:
        lines += ["", f"{hidden} unchanged question(s) not shown (--all lists them)"]
    if report.pinned and report.failed:
        lines += ["", f"pinned questions drifted ({report.fail_on} or worse): exit 1"]
    return "\n".join(lines)
