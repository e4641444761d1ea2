"""Run an ASGI app on uvicorn (`helix serve`, `helix mcp --http`) and say where it listens, one
line on standard error once the socket is bound (not before: a port in use is uvicorn's error,
not a false address)."""

from __future__ import annotations

from typing import Any

from helix.cli.safe_text import echo

STARTUP_FAILURE = 3  # uvicorn's own exit code when it could not start


def url(host: str, port: int, path: str = "") -> str:
    """`http://HOST:PORT/path`, an IPv6 host in brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def serve_announced(app: Any, *, host: str, port: int, what: str, path: str = "",
                    **options: Any) -> None:
    """`uvicorn.run(app, host, port, log_level="warning", **options)`, plus the line
    `helix: WHAT on URL (Ctrl-C stops it)` when the server has started."""
    import uvicorn

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                echo(f"helix: {what} on {url(host, port, path)} (Ctrl-C stops it)", err=True)

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", **options)
    server = Announcing(config)
    server.run()
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)
