"""The run log: pending before the call, finished after, readable while another process writes."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers_synthesis import envelope

from helix.core.config import SynthesisSettings
from helix.core.errors import NotFoundError
from helix.core.ports import Completion, FakeClock
from helix.runlog import RunLog
from helix.store.db import open_db
from helix.synthesis.answer import synthesize


def test_start_then_finish_round_trips() -> None:
    log = RunLog()
    env = envelope()
    run_id = log.start(env, created=100.0, dry_run=False, session_id="s1", turn_number=2)
    pending = log.get(run_id)
    assert pending.status == "pending" and pending.question == env.question
    assert pending.envelope == env and pending.prompt is None
    log.set_prompt(run_id, [{"role": "user", "content": "x"}], "sha256:p", updated=101.0)
    answered = env.model_copy(update={"answer_mode": "llm", "answer": "A [E1]", "llm_steps": 1,
                                      "model": "m", "timings_ms": {"synthesis": 5.0}})
    log.finish(run_id, answered, updated=102.0, prompt_tokens=10, completion_tokens=4,
               attempts=2, redactions={"jwt": 1})
    record = log.get(run_id)
    assert record.status == "done" and record.answer == "A [E1]" and record.answer_mode == "llm"
    assert record.prompt == ({"role": "user", "content": "x"},)
    assert (record.prompt_tokens, record.completion_tokens, record.attempts) == (10, 4, 2)
    assert record.timings_ms == {"synthesis": 5.0} and record.redactions == {"jwt": 1}
    assert (record.session_id, record.turn_number) == ("s1", 2)
    assert [r.id for r in log.for_session("s1")] == [run_id]


@pytest.mark.parametrize("mode", ["dry_run", "fallback"])
def test_a_dry_run_recorded_in_one_step_is_the_row_start_and_finish_leave(mode: str) -> None:
    log = RunLog()
    env = envelope(question="where is it?").model_copy(update={
        "answer_mode": mode, "fallback_reason": "no model" if mode == "fallback" else None,
        "timings_ms": {"total": 3.5}})
    two = log.start(env, created=5.0, dry_run=True, session_id="s", run_id="a" * 16)
    log.finish(two, env, updated=6.0)
    one = log.record(env, created=5.0, updated=6.0, session_id="s", run_id="b" * 16)
    cursor = log.conn.execute("SELECT * FROM runs")
    columns = [d[0] for d in cursor.description]
    rows = {row["id"]: row for row in (dict(zip(columns, r, strict=True)) for r in cursor)}
    first, second = rows[two], rows[one]
    first.pop("id"), second.pop("id")
    assert first["turn_number"] == 1 and second["turn_number"] == 2  # its session's next turn
    first.pop("turn_number"), second.pop("turn_number")
    assert first == second


def test_fallback_status_and_listing_order() -> None:
    log = RunLog()
    first = log.start(envelope(question="q1"), created=1.0, dry_run=True)
    second = log.start(envelope(question="q2"), created=2.0, dry_run=False)
    log.finish(second, envelope().model_copy(update={"answer_mode": "fallback",
                                                      "fallback_reason": "timeout"}), updated=3.0)
    log.finish(first, envelope(), updated=3.0)
    assert [r.id for r in log.recent()] == [second, first]
    assert [r.id for r in log.recent(limit=1)] == [second]
    assert log.get(second).status == "fallback"
    assert [r.id for r in log.records()] == [first, second]


def test_resolve_by_prefix_and_last() -> None:
    log = RunLog()
    run_id = log.start(envelope(), created=1.0, dry_run=True)
    assert log.resolve(run_id[:6]) == run_id
    assert log.resolve("last") == run_id
    with pytest.raises(NotFoundError):
        log.get("zzzzzzzz")
    with pytest.raises(NotFoundError):
        log.resolve("ab")


def test_question_and_prompt_are_logged_before_a_crash_in_the_call() -> None:
    log = RunLog()
    env = envelope()
    run_id = log.start(env, created=1.0, dry_run=False)

    class Crash:
        def complete(self, messages: Any, **kwargs: Any) -> Completion:
            raise SystemExit("killed mid-call")

    with pytest.raises(SystemExit):
        synthesize(env, llm=Crash(), settings=SynthesisSettings(model="m"), clock=FakeClock(),
                   before_call=lambda p: log.set_prompt(run_id, p.messages, p.hash, updated=2.0))
    # a fresh connection (another process's view) finds the pending row with everything
    fresh = RunLog(open_db())
    record = fresh.get(run_id)
    assert record.status == "pending"
    assert record.question == env.question
    assert record.envelope.evidence == env.evidence
    assert record.prompt is not None and "TOOL_RESULTS" in record.prompt[1]["content"]


def _writer(home: str, count: int, ready: Any) -> None:
    os.environ["HELIX_HOME"] = home
    log = RunLog()
    for n in range(count):
        run_id = log.start(envelope(question=f"q{n}"), created=float(n), dry_run=True)
        if n == 0:
            ready.set()
        log.finish(run_id, envelope(question=f"q{n}"), updated=float(n))


def test_readable_while_another_process_writes(helix_home: Path) -> None:
    RunLog()  # migrate first
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    count = 40
    proc = ctx.Process(target=_writer, args=(str(helix_home), count, ready))
    proc.start()
    try:
        assert ready.wait(60)
        reader = RunLog()
        seen = []
        while proc.is_alive():
            seen.append(len(reader.recent()))
        proc.join(60)
        assert proc.exitcode == 0
        assert len(reader.recent()) == count
        assert seen == sorted(seen)  # every read saw a consistent, growing log
    finally:
        if proc.is_alive():
            proc.kill()
    conn = sqlite3.connect(str(helix_home / "helix.sqlite"))
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_log_command_lists_runs_newest_first() -> None:
    from click.testing import CliRunner

    from helix.cli.main import cli

    runner = CliRunner()
    assert runner.invoke(cli, ["log"]).stdout.startswith("no runs yet")
    log = RunLog()
    old = log.start(envelope(question="old question"), created=1.0, dry_run=True)
    log.finish(old, envelope(question="old question"), updated=1.0)
    new = log.start(envelope(question="new question"), created=2.0, dry_run=False)
    lines = runner.invoke(cli, ["log"]).stdout.splitlines()
    assert lines[0].startswith(new) and "[pending]" in lines[0] and "new question" in lines[0]
    assert lines[1].startswith(old) and "dry_run" in lines[1]
    assert len(runner.invoke(cli, ["log", "--limit", "1"]).stdout.splitlines()) == 1
