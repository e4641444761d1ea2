"""`helix chat`: an interactive session; also the `helix ask --session` turn path.

Thin: read a line, call `helix.session.run_turn`, render the turn. Commands inside the chat:
    /reply N <text>   answer turn N (focus anchors to it)
    /history          the session's turns
    /new              start a fresh session under the same name
    /help, /quit      (end of input quits too)
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

import helix.inputs as inputs
from helix.cli.common import one_repo, repo_option
from helix.cli.safe_text import echo
from helix.cli.turn_view import setup, show_turn
from helix.core.errors import (
    HelixError,
    LineTooLongError,
    NotFoundError,
    UserError,
)

if TYPE_CHECKING:
    from pathlib import Path

    from helix.core.config import HelixConfig

PROMPT = "you> "
HELP = ("commands: /reply N <text> (answer turn N), /history, /new (fresh session), /help, "
        "/quit")


def _history(session: str) -> str:
    from helix.session.store import ensure_schema, get_session, load_turns
    from helix.store.backend import open_backend

    db = open_backend()
    ensure_schema(db)
    record = get_session(db, session)
    if record is None:
        return "(no turns yet)"
    turns = load_turns(db, record.id)
    return "\n".join(f"  {t.turn_id}. {t.text}  -> {t.lane} {t.transition}"
                     + (f"  (reply to {t.reply_to})" if t.reply_to else "")
                     for t in turns) or "(no turns yet)"


def _reset(session: str) -> None:
    from helix.session.store import ensure_schema, reset_session
    from helix.store.backend import open_backend

    db = open_backend()
    ensure_schema(db)
    reset_session(db, session)


def parse_line(line: str) -> tuple[str, int | None, str]:
    """(command, reply_to, text): command is "", "reply", "history", "new", "help", "quit"."""
    stripped = line.strip()
    if not stripped.startswith("/"):
        return "", None, stripped
    word, _, rest = stripped[1:].partition(" ")
    word = word.lower()
    if word in ("quit", "exit", "q"):
        return "quit", None, ""
    if word in ("history", "new", "help"):
        return word, None, ""
    if word == "reply":
        number, _, text = rest.strip().partition(" ")
        if not (number.isascii() and number.isdigit()) or not text.strip():
            raise UserError("usage: /reply N <text>")
        if int(number) > inputs.MAX_COUNT:
            raise NotFoundError(f"no turn {inputs.shown(number)} in this session")
        return "reply", int(number), text.strip()
    raise UserError(f"unknown command /{word} ({HELP})")


def _read_piped_line(number: int) -> str | None:
    """Line `number` of piped input: UTF-8 text, read at most a question's worth at a time.
    Input that is not text (NUL bytes, not UTF-8) ends the chat with one line (exit 2)."""
    limit = inputs.MAX_QUESTION_BYTES
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream handed in by a caller: checked as each message is
        return sys.stdin.readline() or None
    raw = buffer.readline(limit + 1)
    if not raw:
        return None
    if len(raw) > limit:
        while raw and not raw.endswith(b"\n"):  # skip the rest of this line
            raw = buffer.readline(1 << 16)
        raise LineTooLongError(f"line {number} of standard input is longer than "
                               f"{inputs.MAX_QUESTION_CHARS:,} characters (the limit); skipped")
    return inputs.decode_text(raw, f"line {number} of standard input")


def _read_line(interactive: bool, number: int = 0) -> str | None:
    """The next line, or None at end of input."""
    if not interactive:
        return _read_piped_line(number)
    try:
        return input(PROMPT)
    except EOFError:
        echo("", err=True)
        return None


@click.command()
@repo_option("Repository to talk about (default: here).")
@click.option("--session", default=None,
              help="Session name (default: chat-<repository name>); sessions persist.")
@click.option("--dry-run", is_flag=True, help="No LLM call: deterministic answers only.")
@click.option("--json", "as_json", is_flag=True,
              help="Print each turn as one JSON object per line.")
def chat(repos: tuple[str, ...], session: str | None, dry_run: bool, as_json: bool) -> None:
    """Talk about a repository: numbered lists, follow-ups, /reply N, /new, /quit."""
    repo = one_repo(repos)
    from helix.session.store import ensure_schema, validate_name
    from helix.store.backend import open_backend

    root, config = setup(repo)
    name = validate_name(session or f"chat-{root.name}")  # refused once, up front
    ensure_schema(open_backend())  # an unusable HELIX_HOME is one line before any input is read
    interactive = sys.stdin.isatty()
    if interactive:
        import readline  # noqa: F401  (line editing and history for input())
    echo(f"helix chat: session '{name}' on {root}  ({HELP})", err=True)
    from helix.session.warm import warm_reading

    with warm_reading():  # a router that reads many turns: the warm encoder
        _loop(name, root, config, interactive, dry_run=dry_run, as_json=as_json)


def _loop(name: str, root: Path, config: HelixConfig, interactive: bool, *, dry_run: bool,
          as_json: bool) -> None:
    number = 0
    while True:
        number += 1
        try:
            line = _read_line(interactive, number)
        except LineTooLongError as exc:
            echo(f"helix: {exc}", err=True)
            continue
        if line is None:
            break
        try:
            command, reply_to, text = parse_line(line)
            if command == "quit":
                break
            if command == "help":
                echo(HELP)
                continue
            if command == "history":
                echo(_history(name))
                continue
            if command == "new":
                _reset(name)
                echo(f"new session '{name}'")
                continue
            if not text:
                continue
            text = inputs.check_question(text, "the message")
            show_turn(name, text, root, config, reply_to=reply_to, dry_run=dry_run,
                      as_json=as_json)
        except HelixError as exc:
            echo(f"helix: {exc}", err=True)
            continue
