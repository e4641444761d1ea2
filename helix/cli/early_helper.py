"""The model helper started at the first moment of a `helix` process (issue 29).

litellm's import (2-3 CPU seconds) is what an environment's first `helix ask --model` waits
for; the ask itself takes well under a second. So `helix.cli.main` calls `start_early` before
it imports anything of Helix's own that is heavy (click, pydantic, the settings): the helper
(`helix.synthesis.model_helper`) imports litellm on the other core while this process starts,
loads the index and retrieves, and the ask adopts it (`helix.service.cli_llm`). `helix index`
and `helix status`, which a user runs before asking, start it too, so the first ask finds it
warm; it stops after `synthesis.helper_idle_s` with no request, as always.

Only when a model is configured for this command: `--model` (ask), else `HELIX_MODEL` /
`HELIX_SYNTHESIS__MODEL`, else `[synthesis] model` in `$HELIX_HOME/config.toml` (a repository's
config may not set the model), and `synthesis.model_helper` is not "off"; never for a
registered test model, a dry run, `--help`, or an ask that takes another path (a session,
several repositories). The settings are read here with the standard library only; a value
this cannot read starts nothing (the command then reports it as usual). Nothing here is
required: any failure leaves the start to `cli_llm`, or the call to the ask's own process.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

STARTS_HELPER = ("ask", "index", "status")  # commands run before or for a model answer
_NOT_HERE = ("--dry-run", "--session", "--reply-to", "--repos", "--help", "-h")
_MODEL_ENV = ("HELIX_MODEL", "HELIX_SYNTHESIS__MODEL")  # later wins, as in config.py


def _command(args: Sequence[str]) -> str | None:
    return next((a for a in args if not a.startswith("-")), None)


def _flag(args: Sequence[str], name: str) -> str | None:
    """The value of `--name VALUE` / `--name=VALUE` (the last one given)."""
    found = None
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith(name + "="):
            found = arg.partition("=")[2]
    return found


def _user_synthesis(home: Path) -> dict[str, Any]:
    try:
        with open(home / "config.toml", "rb") as handle:
            table = tomllib.load(handle).get("synthesis", {})
    except FileNotFoundError:
        return {}
    return table if isinstance(table, dict) else {}


def helper_settings(args: Sequence[str], environ: Mapping[str, str], home: Path
                    ) -> tuple[str, float] | None:
    """(model, idle seconds) when this command should start the model helper, else None."""
    command = _command(args)
    if command not in STARTS_HELPER or any(a in _NOT_HERE for a in args):
        return None
    if command == "ask" and args.count("--repo") > 1:
        return None  # several repositories: `helix.multi_repo`, not this process's helper
    user = _user_synthesis(home)
    model = user.get("model")
    for name in _MODEL_ENV:
        model = environ.get(name) or model
    if command == "ask":
        model = _flag(args, "--model") or model
    mode = environ.get("HELIX_SYNTHESIS__MODEL_HELPER") or user.get("model_helper", "process")
    idle = environ.get("HELIX_SYNTHESIS__HELPER_IDLE_S") or user.get("helper_idle_s", 600.0)
    if not isinstance(model, str) or not model or model.startswith("fake/") or (
            mode != "process"):
        return None
    return model, float(idle)


def start_early(args: Sequence[str]) -> bool:
    """Start the model helper for this command if it wants one; True when one was started
    (or was already starting or serving for this environment)."""
    try:
        from helix.core.home import helix_home
        from helix.synthesis.model_helper import ModelHelper, process_environ

        environ = process_environ()
        home = helix_home(environ)
        wanted = helper_settings(args, environ, home)
        if wanted is None:
            return False
        helper = ModelHelper(home, idle_s=wanted[1], start_s=0.0)  # started, not waited for
        helper.start()
        return helper.usable()
    except Exception:  # never required: `cli_llm` starts it, or the call is made in process
        return False


def from_entry_point(name: str, argv0: str) -> bool:
    """This module is run as the `helix` command (`python -m helix.cli.main`, or the console
    script), not imported by a test or a server."""
    return name == "__main__" or os.path.basename(argv0) == "helix"
