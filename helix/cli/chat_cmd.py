"""`helix chat`: an interactive session; also the `helix ask --session` turn path.

Thin: read a line, call `helix.session.run_turn`, render the turn. Commands inside the chat:
    /reply N <text>   answer turn N (focus anchors to it)
    /history          the session's turns
    /new              start a fresh session under the same name
    /help, /quit      (end of input quits too)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

import helix.inputs as inputs
from helix.cli.common import echo_json, one_repo, repo_option
from helix.cli.safe_text import echo
from helix.core.errors import HelixError, NotFoundError, UserError

if TYPE_CHECKING:
    from helix.core.config import HelixConfig
    from helix.session.turn import TurnResult

PROMPT = "you> "
HELP = ("commands: /reply N <text> (answer turn N), /history, /new (fresh session), /help, "
        "/quit")


def render_turn(turn: TurnResult) -> str:
    """The human view of one turn: header, answer, numbered list, opened span."""
    name = f" {turn.transition_name}" if turn.transition_name else ""
    lines = [f"[turn {turn.turn_id}] {turn.lane} {turn.transition}{name}"
             + (" (retrieval)" if turn.retrieval else "")
             + (f"  reply-to {turn.reply_to}" if turn.reply_to else "")]
    if turn.answer:
        lines.append(turn.answer)
    listed_in_answer = turn.lane == "selection" and turn.answer_mode == "clarify"
    if turn.shown is not None and turn.opened is None and not listed_in_answer:
        lines.append(f"({turn.shown.kind} list: refer to an item by its number)")
        for item in turn.shown.items:
            extra = f"  {item.sublabel}" if item.sublabel else ""
            lines.append(f"  {item.index}. {item.label}{extra}")
    if turn.envelope is not None and turn.envelope.citations:
        lines.append("citations: " + ", ".join(
            f"[{c.ref}] {c.path}:{c.start_line}" for c in turn.envelope.citations))
    return "\n".join(lines)


def _setup(repo: str | None) -> tuple[Path, HelixConfig]:
    from helix.cli.ask_cmd import repo_root
    from helix.core.config import load_config

    root = repo_root(repo)
    return root, load_config(root)


def ask_in_session(text: str, repo: str | None, *, session: str | None, reply_to: int | None,
                   dry_run: bool, as_json: bool) -> None:
    """`helix ask ... --session NAME [--reply-to TURN] [--json]`: one turn of a session."""
    if session is None:
        raise UserError("--reply-to needs --session NAME")
    from helix.session.runner import run_turn

    root, config = _setup(repo)
    turn = run_turn(session, text, root=root, config=config, reply_to=reply_to,
                    dry_run=dry_run)
    if as_json:
        echo_json(turn, lines=True)
    else:
        echo(render_turn(turn))


def _history(session: str) -> str:
    from helix.session.store import ensure_schema, get_session, load_turns
    from helix.store.db import open_db

    db = open_db()
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
    from helix.store.db import open_db

    db = open_db()
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


class LineTooLongError(UserError):
    """One chat line over the question limit: reported, skipped, the chat goes on."""


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
    from helix.session.runner import run_turn
    from helix.session.store import ensure_schema, validate_name
    from helix.store.db import open_db

    root, config = _setup(repo)
    name = validate_name(session or f"chat-{root.name}")  # refused once, up front
    ensure_schema(open_db())  # an unusable HELIX_HOME is one line before any input is read
    interactive = sys.stdin.isatty()
    if interactive:
        import readline  # noqa: F401  (line editing and history for input())
    echo(f"helix chat: session '{name}' on {root}  ({HELP})", err=True)
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
            turn = run_turn(name, text, root=root, config=config, reply_to=reply_to,
                            dry_run=dry_run)
        except HelixError as exc:
            echo(f"helix: {exc}", err=True)
            continue
        if as_json:
            echo_json(turn, lines=True)
        else:
            echo(render_turn(turn))
