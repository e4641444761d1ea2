"""What stands in front of every request of a Helix HTTP server, as plain ASGI (so a slot is
held until the response, a stream's too, has been sent, and a client's disconnect reaches the
endpoint as it is):

    Guard       `helix serve`: the bearer token (every route but /health, when one is set);
                without a token, the Host and Origin of this loopback server only (DNS
                rebinding); the body, counted as it streams and read within its deadline;
                then one of `max_concurrent` slots, or 503 with Retry-After
    BodyLimit   `helix mcp --http`: the body as above (the MCP SDK checks Host and Origin)

A refusal is one JSON line `{"error": ...}` and closes the connection (a client refused before
its body was read cannot go on trickling it). The head of a request (request line and
headers) is bounded where the HTTP protocol is parsed: `helix.servers.serving`.
"""

from __future__ import annotations

import hmac
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from helix.core.server_settings import ServerSettings

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
RETRY_AFTER_S = 1
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
DEFAULT_HTTP_PORT = 80


def error_response(status: int, message: str, **headers: str) -> Any:
    """A Helix server's error: one JSON line `{"error": message}`."""
    from starlette.responses import JSONResponse

    return JSONResponse({"error": message}, status_code=status, headers=headers)


def refuse(status: int, message: str, **headers: str) -> Any:
    """A guard's refusal: the error, and the connection closed after it."""
    return error_response(status, message, **headers, Connection="close")


def host_allowed(host: str | None, port: int | None, allowed: Sequence[str] = ()) -> bool:
    """Whether `host` (a Host header) names this server: a loopback name with its port, or
    one of `allowed` (`name` or `name:port`; `name` stands for `name:<port>` too)."""
    if not host:
        return False
    host = host.strip().lower()
    names = [*LOOPBACK_NAMES, *allowed]
    if host in allowed:
        return True
    if port is None:
        return False
    if port == DEFAULT_HTTP_PORT and host in LOOPBACK_NAMES:
        return True
    return host in {f"{name}:{port}" for name in names}


def origin_allowed(origin: str | None, port: int | None, allowed: Sequence[str] = ()) -> bool:
    """Whether a request's Origin may read this server: none sent (not a browser's
    cross-origin request), this loopback server's own origin, or one of `allowed`."""
    if origin is None:
        return True
    origin = origin.strip().lower()
    if origin in allowed:
        return True
    if port == DEFAULT_HTTP_PORT and origin in {f"http://{name}" for name in LOOPBACK_NAMES}:
        return True
    return port is not None and origin in loopback_origins(port)


def loopback_hosts(port: int) -> list[str]:
    return [f"{name}:{port}" for name in LOOPBACK_NAMES]


def loopback_origins(port: int) -> list[str]:
    return [f"http://{name}:{port}" for name in LOOPBACK_NAMES]


async def _read(receive: Receive, limit: int) -> tuple[list[Message], bool]:
    """The request's messages up to the end of its body (or the client's disconnect), and
    whether the body went over `limit` bytes (reading stops there)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, False
        size += len(message.get("body", b""))
        if size > limit:
            return messages, True
        if not message.get("more_body", False):
            return messages, False


async def bounded_body(receive: Receive, settings: ServerSettings) -> tuple[Receive, Any]:
    """The body read whole before the endpoint runs, counted as it arrives (chunked or not)
    and within `body_timeout_s`: (a receive that replays it, None), or (receive, the 413 or
    408 refusal)."""
    import anyio

    try:
        with anyio.fail_after(settings.body_timeout_s):
            messages, over = await _read(receive, settings.max_body_bytes)
    except TimeoutError:
        return receive, refuse(408, "request body not received within "
                                    f"{settings.body_timeout_s:g} s")
    if over:
        return receive, refuse(413, f"request body over {settings.max_body_bytes:,} bytes")
    pending = deque(messages)

    async def replay() -> Message:
        return pending.popleft() if pending else await receive()

    return replay, None


def _declared_too_large(headers: Any, limit: int) -> Any:
    length = headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        return refuse(413, f"request body over {limit:,} bytes")
    return None


def _port(scope: Any) -> int | None:
    server = scope.get("server")
    return int(server[1]) if server and server[1] is not None else None


class Guard:
    """`helix serve`'s checks (see the module docstring)."""

    def __init__(self, app: Any, *, token: str | None, settings: ServerSettings,
                 slots: threading.BoundedSemaphore) -> None:
        self.app, self.token, self.settings, self.slots = app, token, settings, slots

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self._refusal(scope)
        if refused is None:
            receive, refused = await bounded_body(receive, self.settings)
        if refused is None and not self.slots.acquire(blocking=False):
            refused = refuse(503, "busy: try again shortly", **{"Retry-After": str(RETRY_AFTER_S)})
        if refused is not None:
            await refused(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.slots.release()

    def _refusal(self, scope: Any) -> Any:
        from starlette.datastructures import Headers

        headers = Headers(scope=scope)
        if self.token is not None:
            if scope["path"] != "/health":
                given = headers.get("authorization", "")
                if not hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
                    return refuse(401, "a bearer token is required (Authorization: Bearer ...)",
                                  **{"WWW-Authenticate": "Bearer"})
        else:  # no token: only a client that knows it talks to this loopback server
            port = _port(scope)
            if not host_allowed(headers.get("host"), port, self.settings.allowed_hosts):
                return refuse(403, "this server answers only requests addressed to it "
                                   "(Host: localhost, 127.0.0.1 or [::1] with its port; "
                                   "more with server.allowed_hosts)")
            if not origin_allowed(headers.get("origin"), port, self.settings.allowed_origins):
                return refuse(403, "cross-origin requests are refused (the page's Origin is "
                                   "not this server's; more with server.allowed_origins)")
        return _declared_too_large(headers, self.settings.max_body_bytes)


class BodyLimit:
    """The body bound alone, in front of the MCP SDK's streamable HTTP app."""

    def __init__(self, app: Any, settings: ServerSettings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.datastructures import Headers

        refused = _declared_too_large(Headers(scope=scope), self.settings.max_body_bytes)
        if refused is None:
            receive, refused = await bounded_body(receive, self.settings)
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)
