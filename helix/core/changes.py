"""What changed under an answer, or under a document: the records `helix drift` and
`helix stale-docs` produce, read by the CLI, the servers, the session lanes (a T9 recap of a
turn's drift) and the eval report.

Drift of one question (`QuestionDrift`), by severity, worst first:
    changed     a line the answer cited changed (its code, not only its form) or vanished
    moved       every cited span is still there, but elsewhere: shifted lines, another file,
                another name (followed by content similarity), or only reformatted
    ranking     every cited span is where it was; the evidence around it moved
    unchanged   the same evidence in the same order
    unrecorded  nothing to compare with (a pinned question that was never asked)

A stale section (`StaleSection`): a documentation section aligned to definitions whose code
changed (`CodeChange`) in commits after the last commit that touched the section.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from helix.core.schemas import Frozen

ChangeKind = Literal["removed", "parameters", "defaults", "annotations", "signature", "raises",
                     "members", "body"]
Severity = Literal["changed", "moved", "ranking", "unchanged", "unrecorded"]
SEVERITIES: tuple[Severity, ...] = ("changed", "moved", "ranking", "unchanged", "unrecorded")
SpanStatus = Literal["same", "shifted", "reformatted", "moved", "renamed", "changed", "vanished"]
# the severity one cited span's status gives its question
SPAN_SEVERITY: dict[str, Severity] = {
    "same": "unchanged", "shifted": "moved", "reformatted": "moved", "moved": "moved",
    "renamed": "moved", "changed": "changed", "vanished": "changed"}
OldText = Literal["envelope", "git", "excerpt", "none"]
# what each span status says, in words (the CLI's report and a session's recap)
SPAN_WORDS: dict[str, str] = {
    "same": "unchanged", "shifted": "lines shifted", "reformatted": "reformatted only",
    "moved": "moved to another file", "renamed": "renamed", "changed": "cited lines changed",
    "vanished": "cited lines vanished"}


def worse(a: Severity, b: Severity) -> Severity:
    """The worse of two severities (`SEVERITIES` order)."""
    return a if SEVERITIES.index(a) <= SEVERITIES.index(b) else b


def at_least(severity: Severity, threshold: Severity) -> bool:
    """`severity` is `threshold` or worse (unrecorded is never past a threshold)."""
    return severity != "unrecorded" and SEVERITIES.index(severity) <= SEVERITIES.index(threshold)


class CodeChange(Frozen):
    kind: ChangeKind
    detail: str
    # the names it is about (parameters, exceptions, members; a default's parameter and old
    # value): what a document would mention if it described what changed
    names: tuple[str, ...] = ()


class SpanDrift(Frozen):
    """One span the answer cited, then and now."""

    path: str
    start_line: int
    end_line: int
    symbol: str | None = None
    status: SpanStatus
    now_path: str | None = None
    now_start: int | None = None
    now_end: int | None = None
    now_symbol: str | None = None
    now_chunk_id: str | None = None  # the index chunk the span is in now
    similarity: float | None = None  # token similarity of a followed span (moved, renamed)
    diff: tuple[str, ...] = ()  # the cited lines' unified diff, then -> now (bounded)
    changes: tuple[CodeChange, ...] = ()  # a changed definition: what changed in its code
    old_text: OldText = "none"  # where the cited lines as they were came from


class QuestionDrift(Frozen):
    question: str
    scope: str | None = None
    sense: str | None = None
    source: Literal["runlog", "pinned"]
    run_id: str | None = None  # the run compared with (None: a pin's own evidence)
    asked: float | None = None  # when it was asked (seconds since the epoch)
    recorded_rev: str | None = None  # the repository revision it was answered at
    severity: Severity
    spans: tuple[SpanDrift, ...] = ()
    was: tuple[str, ...] = ()  # the leading evidence then, `path:start-end`
    now: tuple[str, ...] = ()  # the leading evidence now
    note: str = ""


class DriftReport(Frozen):
    repo_root: str
    head_rev: str
    index_rev: str
    pinned: bool  # questions from --question-file (else the run log's)
    fail_on: Severity
    failed: bool  # a pinned question drifted at `fail_on` or worse
    counts: dict[str, int]
    questions: tuple[QuestionDrift, ...]
    files_read: int = 0  # files whose earlier text was read from git (changed ones only)
    timings_ms: dict[str, float] = Field(default_factory=dict)


class CommitRef(Frozen):
    sha: str
    time: int
    subject: str


EvidenceKind = Literal["removed-definition", "removed-parameter", "old-default",
                       "unraised-error", "removed-member", "missing-parameter", "removed-base",
                       "asked-for"]
# a stale section's severity: `stale` when its text states something a change made untrue or
# incomplete (evidence), `changed` when only the code changed after it (not a finding)
StaleSeverity = Literal["stale", "changed"]


class Evidence(Frozen):
    """A line of the section that a change contradicts (`helix.staledocs.evidence`)."""

    kind: EvidenceKind
    name: str  # the parameter, default's parameter, error, member, base or definition
    line: int  # the document's line
    quote: str


class StaleDefinition(Frozen):
    symbol: str
    path: str  # where it is now (where it was, when removed)
    start_line: int
    end_line: int
    changes: tuple[CodeChange, ...]
    commits: tuple[CommitRef, ...]  # the commits after the section that changed it, newest first
    evidence: tuple[Evidence, ...] = ()


class StaleSection(Frozen):
    key: str  # stable across line shifts: what a baseline acknowledges
    doc_path: str
    heading: tuple[str, ...]
    start_line: int
    end_line: int
    touched: CommitRef | None  # the last commit that touched the section
    definitions: tuple[StaleDefinition, ...]
    severity: StaleSeverity = "stale"


class StaleReport(Frozen):
    repo_root: str
    head_rev: str
    sections: int  # documentation sections read
    aligned: int  # of those, aligned to at least one definition
    definitions: int  # aligned definitions whose history was read
    stale: tuple[StaleSection, ...]  # with evidence: the findings
    # the code changed after them, but their text states nothing it contradicts
    changed: tuple[StaleSection, ...] = ()
    acknowledged: int = 0  # found, but in the baseline
    notes: tuple[str, ...] = ()
    timings_ms: dict[str, float] = Field(default_factory=dict)
