"""The questions `helix drift` re-runs and the evidence each is compared with.

From the run log: the most recent distinct questions asked of this repository (the newest run
of each question, scope and sense), finished runs only, at most `drift.max_questions`, since a
time when `--since` says one. From a pinned file (`--question-file`), one question a line:

    plain text                         a question; its record is its newest run in the log
    {"question": ..., "scope": ...}    the same, with a scope and / or a sense
    {"question": ..., "evidence": [...], "citations": [...], "repo_rev": ...}
                                       a question with the evidence it is held to (what
                                       `helix drift --write-pins` writes): no run log needed
    an envelope (`helix ask --json`, on one line)

Blank lines and lines starting with `#` are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from helix.core.envelope import Citation, Envelope, EvidenceItem
from helix.core.errors import HelixError, UserError
from helix.core.schemas import Frozen
from helix.inputs import check_question
from helix.runlog import RunLog, RunRecord

FINISHED = ("done", "fallback")


class Recorded(Frozen):
    """A question as it was answered: its evidence and what the answer cited."""

    question: str
    scope: str | None = None
    sense: str | None = None
    evidence: tuple[EvidenceItem, ...]
    citations: tuple[Citation, ...] = ()
    repo_rev: str | None = None
    # what answered it: the index generation, the evidence settings and the dense vectors
    # (all the same now: the dry run would give the same evidence, so it is not re-run)
    index_rev: str | None = None
    config_hash: str | None = None
    dense_generation: str | None = None
    run_id: str | None = None
    asked: float | None = None

    @classmethod
    def of(cls, envelope: Envelope, run_id: str | None = None,
           asked: float | None = None) -> Recorded:
        intent = envelope.items.intent
        dense = envelope.dense_state.generation if envelope.dense_state else None
        return cls(question=envelope.question, scope=intent.scope, sense=intent.sense,
                   evidence=envelope.evidence, citations=envelope.citations,
                   repo_rev=envelope.repo_rev, index_rev=envelope.index_rev,
                   config_hash=envelope.config_hash, dense_generation=dense, run_id=run_id,
                   asked=asked)

    def answered_by(self, index_rev: str, config_hash: str, dense: str | None) -> bool:
        """The same index, settings and vectors answered it: a dry run now is the same."""
        return (self.index_rev == index_rev and self.config_hash == config_hash
                and self.dense_generation == dense)

    def pin(self) -> dict[str, Any]:
        """The JSON Lines record `--write-pins` writes (and `--question-file` reads back)."""
        return self.model_dump(mode="json", exclude={"run_id", "asked"}, exclude_none=True)


class Pin(Frozen):
    question: str
    scope: str | None = None
    sense: str | None = None
    recorded: Recorded | None = None  # the pin's own evidence, when it carries some


def _key(question: str, scope: str | None, sense: str | None) -> tuple[str, str, str]:
    return " ".join(question.split()).lower(), scope or "", sense or ""


def from_runlog(log: RunLog, root: str, *, limit: int, since: float | None = None
                ) -> list[Recorded]:
    """The newest run of each distinct question (its text) asked of `root`, newest first."""
    out: list[Recorded] = []
    seen: set[tuple[str, str, str]] = set()
    for summary in log.recent(None, [root]):
        if len(out) >= limit:
            break
        if summary.status not in FINISHED or (since is not None and summary.created < since):
            continue
        key = _key(summary.question, None, None)
        if key in seen:  # decided on the summary: no envelope read
            continue
        seen.add(key)
        try:
            recorded = _of_record(log.get(summary.id, [root]))
        except HelixError:  # an unreadable row: noted by the log, skipped here
            continue
        if recorded.evidence:
            out.append(recorded)
    return out


def _of_record(record: RunRecord) -> Recorded:
    return Recorded.of(record.envelope, run_id=record.id, asked=record.created)


def parse_pins(text: str, name: str, limit: int) -> list[Pin]:
    """The pinned questions of a file's text (see the module docstring)."""
    pins: list[Pin] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if len(pins) >= limit:
            raise UserError(f"{name} pins more than {limit:,} questions (drift.max_pinned)")
        where = f"{name} line {number}"
        pins.append(_pin(stripped, where) if stripped.startswith("{") else
                    Pin(question=check_question(stripped, where)))
    if not pins:
        raise UserError(f"{name} holds no question (one a line, or JSON Lines)")
    return pins


def pins_from(values: Sequence[str | dict[str, Any]], limit: int) -> list[Pin]:
    """Pinned questions a client sends a server: each a question, or a pin object (as a
    line of a pin file holds one)."""
    if len(values) > limit:
        raise UserError(f"more than {limit:,} pinned questions (drift.max_pinned)")
    return [_pin_of(value, f"questions[{number}]") if isinstance(value, dict) else
            Pin(question=check_question(value, f"questions[{number}]"))
            for number, value in enumerate(values)]


def _pin(line: str, where: str) -> Pin:
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise UserError(f"{where}: not JSON ({exc})") from None
    return _pin_of(data, where)


def _pin_of(data: Any, where: str) -> Pin:
    if not isinstance(data, dict) or not isinstance(data.get("question"), str):
        raise UserError(f"{where}: a JSON line needs a \"question\" string")
    question = check_question(data["question"], where)
    try:
        if "items" in data:  # a whole envelope
            recorded = Recorded.of(Envelope.model_validate(data))
            return Pin(question=question, scope=recorded.scope, sense=recorded.sense,
                       recorded=recorded)
        fields = {k: data.get(k) for k in ("scope", "sense")}
        for value in fields.values():
            if value is not None and not isinstance(value, str):
                raise UserError(f"{where}: scope and sense are strings")
        held = (Recorded.model_validate({**data, "question": question})
                if "evidence" in data else None)
        return Pin(question=question, recorded=held, **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise UserError(f"{where}: {loc}: {first['msg']}") from None


def records_for_pins(pins: Sequence[Pin], log: RunLog, root: str,
                     since: float | None = None) -> list[Recorded | Pin]:
    """Each pin's record: its own evidence, else its newest run in the log (since `since`),
    else the pin itself (nothing to compare with)."""
    wanted = {_key(p.question, p.scope, p.sense) for p in pins if p.recorded is None}
    found: dict[tuple[str, str, str], Recorded] = {}
    if wanted:
        for recorded in _logged(log, root, since):
            key = _key(recorded.question, recorded.scope, recorded.sense)
            if key in wanted:
                found.setdefault(key, recorded)
            if len(found) == len(wanted):
                break
    out: list[Recorded | Pin] = []
    for pin in pins:
        if pin.recorded is not None:
            out.append(pin.recorded)
        else:
            out.append(found.get(_key(pin.question, pin.scope, pin.sense), pin))
    return out


def _logged(log: RunLog, root: str, since: float | None) -> Iterable[Recorded]:
    for summary in log.recent(None, [root]):
        if summary.status not in FINISHED or (since is not None and summary.created < since):
            continue
        try:
            yield _of_record(log.get(summary.id, [root]))
        except HelixError:  # an unreadable row: noted by the log, skipped here
            continue
