"""`helix events [--session NAME] [--name EVENT] [--json]`: the continuity telemetry."""

from __future__ import annotations

import click

import helix.inputs as inputs
from helix.cli.common import echo_json
from helix.cli.safe_text import echo
from helix.core.errors import NotFoundError


@click.command()
@click.option("--session", default=None, help="Only this session's events.")
@click.option("--name", "event_name", default=None, help="Only events with this name.")
@click.option("--limit", type=click.IntRange(min=1, max=inputs.MAX_COUNT), default=None,
              help="The last N events.")
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON.")
def events(session: str | None, event_name: str | None, limit: int | None,
           as_json: bool) -> None:
    """Show continuity events (lane decisions, transitions, loop-cycle fields)."""
    from controller.continuity.events import ALL_EVENTS
    from helix.session.eventlog import read_events
    from helix.session.store import ensure_schema, get_session, validate_name
    from helix.store.backend import open_backend

    if event_name is not None and event_name not in ALL_EVENTS:
        raise NotFoundError(f"unknown event name '{event_name}'")
    db = open_backend()
    ensure_schema(db)
    session_id = None
    if session is not None:
        record = get_session(db, validate_name(session))
        if record is None:
            raise NotFoundError(f"no session named '{session}'")
        session_id = record.id
    found = read_events(db, session_id=session_id, name=event_name, limit=limit)
    if as_json:
        echo_json([event.model_dump(mode="json") for event in found])
        return
    for e in found:
        loop = (f" cycle={e.loop_cycle_id} retry={e.retry_attempt_index}"
                f" budget={e.retry_budget_remaining}" if e.loop_cycle_id else "")
        echo(f"{e.session_id} #{e.turn_id} {e.transition or '-':>3} {e.lane or '-':<14} "
             f"{e.name}{loop}" + (f"  {e.reason}" if e.reason else ""))
