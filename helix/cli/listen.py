"""Where a server listens (`helix serve`, `helix mcp --http`): one line on standard error once
the socket is bound (not before: a port in use is uvicorn's error, not a false address)."""

from __future__ import annotations

from collections.abc import Callable

from helix.cli.safe_text import echo


def url(host: str, port: int, path: str = "") -> str:
    """`http://HOST:PORT/path`, an IPv6 host in brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def listening(what: str, host: str, port: int, path: str = "") -> Callable[[], None]:
    """The callback `helix.servers.serving.run` calls once it listens: the line
    `helix: WHAT on URL (Ctrl-C stops it)`."""
    def say() -> None:
        echo(f"helix: {what} on {url(host, port, path)} (Ctrl-C stops it)", err=True)

    return say
