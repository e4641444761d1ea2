"""How `helix serve` and `helix mcp --http` run their ASGI app: uvicorn (h11), bounded.

uvicorn closes an idle kept-alive connection (`timeout_keep_alive`) and caps a request head's
size (`h11_max_incomplete_event_size`), but nothing times the head itself: `timeout_keep_alive`
is armed only after a response and disarmed by any byte received, so a client that opens a
connection and trickles its headers, a byte at a time, holds it for ever (slowloris). The
protocol below adds that deadline: from a connection's opening, or from the end of its previous
response, the head of the next request must be whole within `server.header_timeout_s`, else
the connection is closed (with a 408 when part of a head had come). The body has its own
deadline in the app (`helix.servers.guard.bounded_body`); once a request is being answered,
nothing here interferes (a long answer, a stream). Bytes a client goes on sending after its
response (a body nobody read) are under the same deadline.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from helix.core.server_settings import ServerSettings


class HeadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with the head deadline (see the module docstring)."""

    head_timeout_s: float = ServerSettings().header_timeout_s
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _unanswered(self) -> bool:
        """Whether bytes may come that no request in progress is reading: the head of the
        next request, or the rest of a body after its response."""
        cycle = self.cycle
        return self.conn.their_state is h11.IDLE or (cycle is not None
                                                     and cycle.response_complete)

    def _watch(self) -> None:
        if self.transport.is_closing() or not self._unanswered():
            self._disarm()
        elif self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout_s, self._expired)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _expired(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        started = self.conn.their_state is h11.IDLE and bool(self.conn.trailing_data[0])
        if started:  # part of a head came: say why the connection ends
            body = json.dumps({"error": "request head not received within "
                                        f"{self.head_timeout_s:g} s"}).encode()
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\n"
                                 b"content-type: application/json\r\n"
                                 b"content-length: " + str(len(body)).encode() + b"\r\n"
                                 b"connection: close\r\n\r\n" + body)
        self.transport.close()


def protocol_for(settings: ServerSettings) -> type[HeadDeadlineProtocol]:
    return type("HeadDeadlineProtocol", (HeadDeadlineProtocol,),
                {"head_timeout_s": settings.header_timeout_s})


def uvicorn_options(settings: ServerSettings) -> dict[str, Any]:
    """uvicorn's options for a Helix server: h11 with the head deadline, no websockets, the
    idle, head-size and connection bounds of `settings`."""
    return {"log_level": "warning", "http": protocol_for(settings), "ws": "none",
            "timeout_keep_alive": settings.keep_alive_s,
            "h11_max_incomplete_event_size": settings.max_header_bytes,
            "limit_concurrency": settings.max_connections}


STARTUP_FAILURE = 3  # uvicorn's own exit code when it could not start


def run(app: Any, *, host: str, port: int, settings: ServerSettings,
        graceful_s: int | None = None,
        on_listening: Callable[[], None] | None = None) -> None:
    """Serve `app` until stopped (SIGINT/SIGTERM finish the requests in flight; a port in
    use exits as uvicorn does). `on_listening` is called once the socket is bound (the CLI
    says where it listens)."""

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and on_listening is not None:
                on_listening()

    server = Announcing(uvicorn.Config(app, host=host, port=port,
                                       timeout_graceful_shutdown=graceful_s,
                                       **uvicorn_options(settings)))
    server.run()
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)
