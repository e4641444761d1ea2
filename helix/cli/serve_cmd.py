"""`helix serve`: the HTTP API (FastAPI on uvicorn), loopback unless told otherwise, and then
only with a bearer token (`HELIX_SERVE_TOKEN`)."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import click

from helix.cli.common import repo_root
from helix.core.errors import UserError

TOKEN_ENV = "HELIX_SERVE_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
GRACEFUL_S = 30  # seconds SIGTERM waits for the requests in flight


def bearer_token(host: str, environ: dict[str, str] | os._Environ[str] = os.environ) -> str | None:
    """The token requests must carry: `HELIX_SERVE_TOKEN` when set; required beyond loopback."""
    token = environ.get(TOKEN_ENV) or None
    if token is None and host not in LOOPBACK:
        raise UserError(f"binding {host} serves beyond this machine: set {TOKEN_ENV} to a "
                        "secret token first (clients send it as Authorization: Bearer ...)")
    if token is not None and len(token) < 16:
        raise UserError(f"{TOKEN_ENV} is too short (at least 16 characters)")
    return token


@click.command("serve")
@click.option("--repo", "repos", multiple=True, metavar="PATH",
              help="A repository to serve (repeat for several; default: the current one). "
                   "Clients can reach these and nothing else.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The interface to bind (beyond loopback needs HELIX_SERVE_TOKEN).")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="The TCP port.")
@click.option("--max-concurrent", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Requests run at once; the next one gets 503 with Retry-After.")
@click.option("--stop", is_flag=True, help="Stop the server running for this $HELIX_HOME.")
@click.option("--repos", "group", default=None, metavar="GROUP|all",
              help="Also answer questions across this registered group (`helix repos`): "
                   "POST /ask with repos.")
def serve(repos: tuple[str, ...], host: str, port: int, max_concurrent: int,
          stop: bool, group: str | None) -> None:
    """Serve Helix over HTTP: POST /ask, /search, /open_span, /index; GET /find, /callers,
    /tests, /status, /runs (OpenAPI at /openapi.json). `helix ask` on a served repository
    then answers through it, warm (HELIX_NO_SERVER=1: never). A repository a file-system
    watch says is unchanged is not walked again before a question (HELIX_NO_WATCH=1: always
    walk)."""
    from helix.core.config import helix_home
    from helix.servers import discovery

    home = helix_home()
    if stop:
        _stop(home)
        return
    from helix.cli.listen import listening
    from helix.core.config import load_config
    from helix.servers import serving
    from helix.servers.http_api import create_app
    from helix.servers.workspace import Workspace

    token = bearer_token(host)
    settings = load_config(None).server  # yours: no repository's config sets a server limit
    roots = [repo_root(r) for r in repos] or ([] if group else [repo_root(None)])
    workspace = Workspace(roots, group=group)
    app = create_app(workspace, token=token, max_concurrent=max_concurrent, settings=settings)
    # uvicorn finishes the requests in flight on SIGTERM, then re-raises the signal: that is a
    # clean stop, exit 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    info = discovery.ServerInfo(pid=os.getpid(), host=host, port=port, token=token,
                                repos=tuple(str(root) for root in workspace.roots))
    discovery.write_server_file(home, info)
    from helix.session.warm import warm_reading

    try:
        with warm_reading():  # a router that reads many turns: the warm encoder
            serving.run(app, host=host, port=port, settings=settings, graceful_s=GRACEFUL_S,
                        on_listening=listening(f"serving {_repositories(workspace.roots)} over "
                                               "HTTP (OpenAPI at /openapi.json)", host, port))
    finally:
        workspace.close()
        discovery.remove_server_file(home, os.getpid())


def _repositories(roots: Sequence[Path]) -> str:
    return str(roots[0]) if len(roots) == 1 else f"{len(roots)} repositories"


STOP_WAIT_S = 30.0


def _stop(home: Path) -> None:
    """SIGTERM to the server this $HELIX_HOME names, once it has answered as itself."""
    from helix.cli.safe_text import echo
    from helix.core.errors import NotFoundError
    from helix.servers.discovery import running_server

    info = running_server(home)
    if info is None:
        raise NotFoundError(f"no helix server runs for {home}")
    os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    while time.monotonic() < deadline:
        try:
            os.kill(info.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    echo(f"stopped the helix server (pid {info.pid}, {info.base})")
