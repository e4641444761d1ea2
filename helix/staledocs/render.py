"""The human view of a stale-docs report: each stale section with the code that changed under
it, the commits, and the lines of the section the change contradicts (its evidence); the
sections whose code only changed after them are counted. Plain text; the CLI makes every line
terminal-safe."""

from __future__ import annotations

from datetime import UTC, datetime

from helix.core.changes import CommitRef, StaleReport, StaleSection
from helix.core.visible import visible_field

SHORT_SHA = 12
SUBJECT_CHARS = 72


def _commit(commit: CommitRef) -> str:
    if not commit.time:
        return f"{commit.sha} {commit.subject}"
    day = datetime.fromtimestamp(commit.time, UTC).strftime("%Y-%m-%d")
    subject = " ".join(commit.subject.split())
    if len(subject) > SUBJECT_CHARS:
        subject = subject[:SUBJECT_CHARS - 1] + "…"
    return f"{commit.sha[:SHORT_SHA]} {day} {subject}"


def section_lines(section: StaleSection) -> list[str]:
    heading = " > ".join(section.heading)
    lines = [f"{visible_field(section.doc_path)}:{section.start_line}-{section.end_line} "
             f"\"{heading}\"  [{section.key}]"]
    if section.touched is not None:
        lines.append(f"  section last changed in {_commit(section.touched)}")
    for found in section.definitions:
        lines.append(f"  {visible_field(found.symbol)} "
                     f"({visible_field(found.path)}:{found.start_line}) changed after it:")
        lines += [f"    {c.kind}: {c.detail}" for c in found.changes]
        lines += [f"    in {_commit(c)}" for c in found.commits]
    for found in section.definitions:
        lines += [f"  evidence ({e.kind} {visible_field(e.name)}) line {e.line}: "
                  f"{visible_field(e.quote)}" for e in found.evidence]
    return lines


def render(report: StaleReport) -> str:
    head = (f"stale-docs at {report.head_rev[:SHORT_SHA]}: {len(report.stale)} stale "
            f"section(s) of {report.aligned} aligned to code ({report.sections} sections, "
            f"{report.definitions} definitions)")
    if report.changed:
        head += (f"; {len(report.changed)} whose code changed after them but whose text "
                 "states nothing it contradicts (--json lists them)")
    if report.acknowledged:
        head += f"; {report.acknowledged} acknowledged in the baseline"
    lines = [head, *(f"note: {n}" for n in report.notes)]
    for section in report.stale:
        lines += ["", *section_lines(section)]
    return "\n".join(lines)
