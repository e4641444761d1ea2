"""`helix drift`: re-run recorded questions as dry runs at HEAD and say what changed under them.

    drift(root, config, pins=None, since=None)  -> DriftReport
    question_drift(root, config, envelope)      -> QuestionDrift (one earlier answer: a session
                                                   turn's "did anything change since ...?")

The index is made fresh once (`helix.service.prepare`), then every question runs through
`helix.service.ask` as `helix ask --dry-run` runs it, with the run log kept in memory: a drift
check leaves no runs of its own. The cited lines' earlier text is the evidence's own text when
it was kept whole (its digest is the recorded content hash), else the file at the recorded
revision, read from git once per file and only for spans whose chunk changed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from helix.core.changes import SEVERITIES, DriftReport, OldText, QuestionDrift, at_least
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope, EvidenceItem
from helix.core.errors import UserError
from helix.core.git_history import blob_at, commit_time, resolve
from helix.core.hashing import digest
from helix.core.secrets import redact_text
from helix.drift.compare import compare_question, leading
from helix.drift.records import Pin, Recorded, from_runlog, records_for_pins
from helix.inputs import shown
from helix.runlog import RunLog

MS = 1000.0


class GitText:
    """The cited lines as they were: from the envelope when whole, else from git at the
    recorded revision (each file read once, secrets masked as the index masks them)."""

    def __init__(self, root: Path, max_blob_bytes: int, timeout: float) -> None:
        self.root, self.max_blob_bytes, self.timeout = root, max_blob_bytes, timeout
        self._files: dict[tuple[str, str], list[str] | None] = {}

    @property
    def files_read(self) -> int:
        return len(self._files)

    def __call__(self, recorded: Recorded, item: EvidenceItem
                 ) -> tuple[tuple[str, ...] | None, OldText]:
        if item.text and digest(item.text) == item.content_hash:
            return tuple(item.text.split("\n")), "envelope"
        rev = recorded.repo_rev or ""
        if "+" in rev or not rev or rev == "nogit":
            return None, "excerpt"
        key = (rev, item.path)
        if key not in self._files:
            raw = blob_at(self.root, rev, item.path, max_blob_bytes=self.max_blob_bytes,
                          timeout=self.timeout)
            self._files[key] = (redact_text(raw.decode("utf-8", "replace"))[0].split("\n")
                                if raw is not None else None)
        lines = self._files[key]
        if lines is None:
            return None, "excerpt"
        span = tuple(lines[item.start_line - 1:item.end_line])
        if digest("\n".join(span)) != item.content_hash:
            return None, "excerpt"
        return span, "git"


def since_time(root: Path, value: str) -> float:
    """`--since`: a date (YYYY-MM-DD, or an ISO date and time; UTC unless it says) or a
    revision (its commit time)."""
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        sha = resolve(root, text)
        when = commit_time(root, sha) if sha else None
        if when is None:
            raise UserError(f"--since {shown(text)} is neither a date (YYYY-MM-DD) nor a "
                            "revision of this repository") from None
        return float(when)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _quiet(message: str) -> None:
    """The dry runs' notices (a clock stop) are the drift report's business, not stderr's."""


def drift(root: Path, config: HelixConfig, *, pins: Sequence[Pin] | None = None,
          since: float | None = None, runlog: RunLog | None = None,
          progress: Callable[[int, int], None] | None = None,
          collect: list[Recorded] | None = None) -> DriftReport:
    """The drift of the run log's recent questions of `root` (or of `pins`); `collect`
    receives each question as answered at HEAD (what `--write-pins` writes)."""
    import sqlite_utils

    from helix.service import ask, prepare

    settings = config.drift
    started = time.monotonic()
    prepared = prepare(root, config)
    indexed = time.monotonic()
    log = runlog or RunLog()
    try:
        chosen: list[Recorded | Pin] = (
            list(records_for_pins(pins, log, str(root), since)) if pins is not None else
            list(from_runlog(log, str(root), limit=settings.max_questions, since=since)))
    finally:
        if runlog is None:
            log.close()
    scratch = RunLog(sqlite_utils.Database(memory=True))
    then = GitText(root, settings.max_blob_bytes, settings.git_timeout_s)
    source: Literal["runlog", "pinned"] = "pinned" if pins is not None else "runlog"
    out: list[QuestionDrift] = []
    index = prepared.index
    dense = (index.dense_state or {}).get("generation")
    for number, item in enumerate(chosen, start=1):
        if isinstance(item, Pin):
            out.append(QuestionDrift(question=item.question, scope=item.scope,
                                     sense=item.sense, source="pinned", severity="unrecorded",
                                     note="never asked here, and the pin carries no evidence"))
            continue
        if item.answered_by(index.index_rev, prepared.config.evidence_hash, dense):
            out.append(unchanged(item, source, settings.rank_items))  # the same evidence
            if collect is not None:
                collect.append(item)
            continue
        result = ask(item.question, root=root, config=config, dry_run=True, scope=item.scope,
                     sense=item.sense, runlog=scratch, prepared=prepared, notify=_quiet)
        out.append(compare_question(item, result.envelope, prepared.index, then,
                                    settings, source=source))
        if collect is not None:
            collect.append(Recorded.of(result.envelope))
        if progress is not None:
            progress(number, len(chosen))
    scratch.close()
    ordered = sorted(out, key=lambda q: (SEVERITIES.index(q.severity), -(q.asked or 0),
                                         q.question))
    counts = Counter(q.severity for q in out)
    failed = pins is not None and any(at_least(q.severity, settings.fail_on) for q in out)
    return DriftReport(
        repo_root=str(root), head_rev=prepared.index.repo_rev,
        index_rev=prepared.index.index_rev, pinned=pins is not None,
        fail_on=settings.fail_on, failed=failed,
        counts={s: counts.get(s, 0) for s in SEVERITIES}, questions=tuple(ordered),
        files_read=then.files_read,
        timings_ms={"index": round((indexed - started) * MS, 3),
                    "total": round((time.monotonic() - started) * MS, 3)})


def unchanged(recorded: Recorded, source: Literal["runlog", "pinned"], shown: int
              ) -> QuestionDrift:
    """A question answered from the very index, settings and vectors there are now."""
    lead = leading(recorded.evidence, shown)
    return QuestionDrift(
        question=recorded.question, scope=recorded.scope, sense=recorded.sense,
        source=source, run_id=recorded.run_id, asked=recorded.asked,
        recorded_rev=recorded.repo_rev, severity="unchanged",
        was=tuple(f"{e.path}:{e.start_line}-{e.end_line}" for e in lead),
        now=tuple(f"{e.path}:{e.start_line}-{e.end_line}" for e in lead),
        note="answered from this very index: not re-run")


def question_drift(root: Path, config: HelixConfig, envelope: Envelope,
                   run_id: str | None = None) -> QuestionDrift:
    """The drift of one earlier answer (its envelope), checked now."""
    import sqlite_utils

    from helix.service import ask, prepare

    recorded = Recorded.of(envelope, run_id=run_id)
    prepared = prepare(root, config)
    scratch = RunLog(sqlite_utils.Database(memory=True))
    try:
        result = ask(recorded.question, root=root, config=config, dry_run=True,
                     scope=recorded.scope, sense=recorded.sense, runlog=scratch,
                     prepared=prepared, notify=_quiet)
    finally:
        scratch.close()
    then = GitText(root, config.drift.max_blob_bytes, config.drift.git_timeout_s)
    return compare_question(recorded, result.envelope, prepared.index, then, config.drift)
