"""A request that meets a bug in a Helix server: one redacted line in the server's log, the
client told the same error id, never a traceback (unless `HELIX_DEBUG=1`, and then masked).

Starlette's outermost layer re-raises whatever a request raised after answering it, and
uvicorn then logs the whole traceback, request data and local values' text included: a
question's secret, a repository's path. `Crashes` stands outside the app's other layers and
ends the exception there:

    helix serve: internal error 3f9c1e0a2b7d (KeyError) on POST /ask: <the message, masked>

The id is random (an error is an event, not evidence); the message goes through the CLI's
`error_line`, as every server error (secrets masked, one line, bounded length).
"""

from __future__ import annotations

import os
import sys
import traceback
import uuid
from typing import Any

DEBUG_ENV = "HELIX_DEBUG"
ID_HEX = 12  # hex digits of an error id


def new_error_id() -> str:
    return uuid.uuid4().hex[:ID_HEX]


def crash_line(server: str, error_id: str, exc: BaseException, where: str) -> str:
    """The one log line of a crash (pure: the caller writes it)."""
    from helix.servers.workspace import error_text

    said = error_text(exc)
    return f"{server}: internal error {error_id} ({type(exc).__name__}) on {where}: {said}"


def report_crash(server: str, exc: BaseException, where: str) -> str:
    """Write the crash's line (and its traceback only under HELIX_DEBUG) to stderr; its id."""
    error_id = new_error_id()
    sys.stderr.write(crash_line(server, error_id, exc, where) + "\n")
    if os.environ.get(DEBUG_ENV):  # asked for, as the CLI reads it: the traceback, masked too
        from helix.core.secrets import redact_text

        sys.stderr.write(redact_text("".join(traceback.format_exception(exc)))[0])
    sys.stderr.flush()
    return error_id


def client_message(error_id: str, exc: BaseException) -> str:
    """What the client reads: the id to quote, the kind of error, no detail."""
    return f"internal error {error_id} ({type(exc).__name__}): the server's log has its line"


class Crashes:
    """ASGI: a request's unhandled exception ends here as a 500 `{"error", "error_id"}` (when
    the response has not started; otherwise the connection is closed) and one log line."""

    def __init__(self, app: Any, *, server: str) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # a bug: said once, in one line, never a dead server
            where = f"{scope.get('method', '?')} {scope.get('path', '?')}"
            error_id = report_crash(self.server, exc, where)
            if not started:
                from starlette.responses import JSONResponse

                response = JSONResponse({"error": client_message(error_id, exc),
                                         "error_id": error_id}, status_code=500)
                await response(scope, receive, send)
