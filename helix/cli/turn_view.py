"""One turn of a session, shared by `helix chat` and `helix ask --session`: its set-up, its run
and its human view (`render_turn`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helix.cli.common import citations_in_order, echo_json, limits_line, repo_root
from helix.cli.safe_text import echo, visible_field
from helix.core.errors import UserError

if TYPE_CHECKING:
    from controller.continuity.turn import TurnResult
    from helix.core.config import HelixConfig


def render_turn(turn: TurnResult, *, answer_shown: bool = False) -> str:
    """The human view of one turn: header, answer, numbered list, opened span. With
    `answer_shown`, the model's answer was shown as it streamed (and kept as shown): only what
    the turn says around it is printed."""
    name = f" {turn.transition_name}" if turn.transition_name else ""
    lines = [f"[turn {turn.turn_id}] {turn.lane} {turn.transition}{name}"
             + (" (retrieval)" if turn.retrieval else "")
             + (f"  reply-to {turn.reply_to}" if turn.reply_to else "")]
    body = turn.answer
    env = turn.envelope
    if answer_shown and env is not None and env.answer and body.endswith(env.answer):
        body = body[: len(body) - len(env.answer)].rstrip()
    if body:
        lines.append(body)
    listed_in_answer = turn.lane == "selection" and turn.answer_mode == "clarify"
    if turn.shown is not None and turn.opened is None and not listed_in_answer:
        lines.append(f"({turn.shown.kind} list: refer to an item by its number)")
        for item in turn.shown.items:
            extra = f"  {item.sublabel}" if item.sublabel else ""
            lines.append(f"  {item.index}. {item.label}{extra}")
    if env is not None and env.answer_limits:
        lines.append(limits_line(env.answer_limits))
    if turn.envelope is not None and turn.envelope.citations:
        lines.append("citations: " + ", ".join(
            f"[{c.ref}] {visible_field(c.path)}:{c.start_line}"
            for c in citations_in_order(turn.envelope.citations)))
    return "\n".join(lines)


def setup(repo: str | None, flags: dict[str, Any] | None = None
          ) -> tuple[Path, HelixConfig]:
    """The repository and its configuration, with the command's `flags` (dotted name ->
    value, `helix.core.config.load_config`)."""
    from helix.core.config import load_config

    root = repo_root(repo)
    return root, load_config(root, flags=flags)


def served_turn(session: str, text: str, root: Path, *, reply_to: int | None,
                dry_run: bool, on_text: Callable[[str], None] | None = None
                ) -> TurnResult | None:
    """The turn as a running `helix serve` for this $HELIX_HOME answers it (the same session
    store), or None to run it here: no server, a busy one, or HELIX_NO_SERVER=1."""
    from controller.continuity.turn import TurnResult
    from helix.core.config import helix_home
    from helix.servers.discovery import ask_served

    served = ask_served(helix_home(), root, {"question": text, "repo": str(root),
                                             "session": session, "reply_to": reply_to,
                                             "dry_run": dry_run}, on_text=on_text)
    if served is None:
        return None
    body = served[1]
    body.pop("repo", None)
    return TurnResult.model_validate(body)


def one_turn(session: str, text: str, root: Path, config: HelixConfig, *,
             reply_to: int | None, dry_run: bool, serve: bool = True,
             on_text: Callable[[str], None] | None = None) -> TurnResult:
    """A turn through the warm server when one serves `root` (`serve`), else here; `on_text`
    receives the model's answer as it is written, either way."""
    turn = served_turn(session, text, root, reply_to=reply_to, dry_run=dry_run,
                       on_text=on_text) if serve else None
    if turn is not None:
        return turn
    from helix.session.runner import run_turn

    return run_turn(session, text, root=root, config=config, reply_to=reply_to,
                    dry_run=dry_run, on_text=on_text)


def show_turn(session: str, text: str, root: Path, config: HelixConfig, *,
              reply_to: int | None, dry_run: bool, as_json: bool, serve: bool = True) -> None:
    """One turn, printed as `helix chat` and `helix ask --session` print it: on a terminal
    with a model, the answer streams as it is written and is not printed again when it is
    kept as shown; `as_json`: the turn as one JSON line."""
    import sys

    from helix.cli.live_answer import live_answer

    live = live_answer(sys.stdout, None, as_json=as_json, dry_run=dry_run)
    turn = one_turn(session, text, root, config, reply_to=reply_to, dry_run=dry_run,
                    serve=serve, on_text=live.on_text if live else None)
    if as_json:
        echo_json(turn, lines=True)
        return
    shown = live is not None and turn.envelope is not None and not live.after(turn.envelope)
    echo(render_turn(turn, answer_shown=shown))


def ask_in_session(text: str, repo: str | None, *, session: str | None, reply_to: int | None,
                   dry_run: bool, as_json: bool, serve: bool = True,
                   flags: dict[str, Any] | None = None) -> None:
    """`helix ask ... --session NAME [--reply-to TURN] [--json]`: one turn of a session
    (through a warm `helix serve` unless `serve` is off: a model flag was given), under the
    configuration with the command's `flags` (`helix.ask_plan.AskPlan.flags`)."""
    if session is None:
        raise UserError("--reply-to needs --session NAME")
    root, config = setup(repo, flags)
    show_turn(session, text, root, config, reply_to=reply_to, dry_run=dry_run,
              as_json=as_json, serve=serve)
