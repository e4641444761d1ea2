"""`helix log` lists past runs; `helix show TURN` reopens one."""

from __future__ import annotations

import datetime as dt

import click

import helix.inputs as inputs
from helix.cli.common import citations_in_order, echo_json
from helix.cli.safe_text import echo, visible_field

DEFAULT_LIMIT = 20
QUESTION_WIDTH = 60


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@click.command("log")
@click.option("--limit", type=click.IntRange(min=1, max=inputs.MAX_COUNT), default=DEFAULT_LIMIT,
              show_default=True, help="How many runs to list (newest first).")
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
def log(limit: int, as_json: bool) -> None:
    """List past runs (newest first): turn id, time, mode, model, question."""
    from helix.runlog import RunLog

    run_log = RunLog()
    runs = run_log.recent(limit=limit)
    run_log.notice_unreadable()
    if as_json:
        echo_json([r.model_dump(mode="json") for r in runs])
        return
    if not runs:
        echo("no runs yet (run `helix ask QUESTION`)")
        return
    for run in runs:
        mode = run.answer_mode or "-"
        if run.fallback_reason:
            mode += f"({run.fallback_reason})"
        if run.status in ("pending", "error", "interrupted"):
            mode += f" [{run.status}]"
        echo(f"{run.id}  {_when(run.created)}  {mode:<22} {run.model or '-':<16} "
             f"{_clip(run.question, QUESTION_WIDTH)}")


@click.command("show")
@click.argument("turn")
@click.option("--json", "as_json", is_flag=True, help="Print the whole run as JSON.")
@click.option("--prompt", "with_prompt", is_flag=True, help="Also print the prompt messages.")
def show(turn: str, as_json: bool, with_prompt: bool) -> None:
    """Reopen a run: question, answer, citations, evidence, model, tokens, timings.

    TURN is a turn id from `helix log`, a unique prefix of one, or `last`.
    """
    from helix.runlog import RunLog

    record = RunLog().get(turn)
    if as_json:
        data = record.model_dump(mode="json")
        if not with_prompt:
            data.pop("prompt", None)
        echo_json(data)
        return
    env = record.envelope
    echo(f"turn      {record.id}  ({record.status}, {_when(record.created)})")
    echo(f"question  {record.question}")
    echo(f"repo      {visible_field(record.repo_root)} @ {record.repo_rev}  "
         f"index {record.index_rev}")
    echo(f"mode      {record.answer_mode or '-'}"
         + (f"  reason {record.fallback_reason}" if record.fallback_reason else ""))
    echo(f"model     {record.model or '-'}  tokens {record.prompt_tokens} prompt / "
         f"{record.completion_tokens} completion  attempts {record.attempts}  "
         f"llm_steps {record.llm_steps}")
    if record.timings_ms:
        echo("timings   " + "  ".join(f"{k} {v:.0f} ms"
                                      for k, v in sorted(record.timings_ms.items())))
    if record.redactions:
        kinds = sorted(record.redactions.items())
        echo("redacted  " + ", ".join(f"{k} x{v}" for k, v in kinds))
    if record.error:
        echo(f"error     {record.error}")
    echo("")
    echo(record.answer if record.answer is not None else env.answer)
    if env.citations:
        echo("\ncitations")
        for c in citations_in_order(env.citations):
            echo(f"  [{c.ref}] {visible_field(c.path)}:{c.start_line}-{c.end_line}")
    if env.evidence:
        echo("\nevidence")
        for rank, item in enumerate(env.evidence, start=1):
            label = item.symbol or item.heading or ""
            echo(f"  E{rank:<3} {visible_field(item.path)}:{item.start_line}-{item.end_line}"
                 f"  {item.kind}" + (f"  {visible_field(label)}" if label else ""))
    if with_prompt:
        echo("\nprompt")
        for message in record.prompt or ():
            echo(f"--- {message['role']}\n{message['content']}")
        if not record.prompt:
            echo("  (no prompt: no model was called for this run)")
