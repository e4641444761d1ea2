"""Which way one `helix ask` goes, decided outside the CLI (which only parses and renders).

    plan_ask(AskRequest) -> AskPlan

- `across`: several `--repo`: one question across them (`helix.multi_repo.ask_across`), or
  `--repos GROUP`: across the best of a registered group for it (`ask_group`);
- `session`: `--session` / `--reply-to`: one turn of a conversation (`helix.session.runner`);
- `here`: one question through `helix.service.ask`, first offered to a warm `helix serve`
  when nothing asks for this process (`try_server`: no model flag, no `--wait`, `--trace` or
  `--sense`, which a server does not take).

A combination no path takes is a `UserError` here, in one line. The settings a flag changes
(`--model`, `--api-base`, `--wait`) are handed on as configuration flags (`AskPlan.flags`,
for `helix.core.config.load_config`), never through the process environment.
"""

from __future__ import annotations

from typing import Any, Literal

from helix.core.errors import UserError
from helix.core.schemas import Frozen

AskPath = Literal["across", "session", "here"]


class AskRequest(Frozen):
    """What `helix ask` was given, parsed (the question already read and checked)."""

    text: str
    repos: tuple[str, ...] = ()
    group: str | None = None  # --repos GROUP|all
    dry_run: bool = False
    scope: str | None = None
    sense: str | None = None
    session: str | None = None
    reply_to: int | None = None
    model: str | None = None
    api_base: str | None = None
    trace: bool = False
    wait: bool = False


class AskPlan(Frozen):
    path: AskPath
    try_server: bool = False  # offer the question to a warm `helix serve` first
    flags: dict[str, Any]  # configuration flags (dotted name -> value; None: not given)


def _flags(request: AskRequest) -> dict[str, Any]:
    return {"synthesis.model": request.model, "synthesis.api_base": request.api_base,
            "index.background_dense": False if request.wait else None}


def _refuse_across(request: AskRequest) -> None:
    if request.group is not None and request.repos:
        raise UserError("--repos GROUP does not combine with --repo")
    given = [name for name, value in (("--scope", request.scope), ("--sense", request.sense),
                                      ("--session", request.session),
                                      ("--reply-to", request.reply_to),
                                      ("--trace", request.trace or None))
             if value is not None]
    if given:
        several = "--repos" if request.group is not None else "several --repo"
        raise UserError(f"{', '.join(given)} do not combine with {several} (ask each "
                        "repository on its own for that)")


def _refuse_session(request: AskRequest) -> None:
    if request.scope is not None or request.sense is not None:
        raise UserError("--scope/--sense do not combine with --session (say it in words: "
                        "'same question but only in tests/')")
    if request.trace:
        raise UserError("--trace does not combine with --session (see `helix events`)")
    if request.session is None:
        raise UserError("--reply-to needs --session NAME")


def plan_ask(request: AskRequest) -> AskPlan:
    """The path `request` takes, its flags refused in one line when no path takes them."""
    flags = _flags(request)
    unasked = request.model is None and request.api_base is None and not request.wait
    if request.group is not None or len(set(request.repos)) > 1:
        _refuse_across(request)
        return AskPlan(path="across", flags=flags)
    if request.session is not None or request.reply_to is not None:
        _refuse_session(request)
        return AskPlan(path="session", try_server=unasked, flags=flags)
    return AskPlan(path="here", flags=flags,
                   try_server=unasked and not request.trace and request.sense is None)
