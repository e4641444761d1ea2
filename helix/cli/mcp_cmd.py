"""`helix mcp`: serve the repositories to an MCP client (an agent, an editor) over stdio, or
over streamable HTTP on a loopback port (`--http HOST:PORT`)."""

from __future__ import annotations

import click

from helix.cli.common import repo_root
from helix.core.errors import UserError

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MCP_PATH = "/mcp"  # the streamable HTTP endpoint


def http_address(value: str) -> tuple[str, int]:
    """`HOST:PORT` on a loopback interface (the MCP endpoint has no token of its own: serving
    it beyond this machine is `helix serve`'s job, with a token)."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--http wants HOST:PORT, got {value!r}")
    if host not in LOOPBACK:
        raise UserError(f"--http binds loopback only (127.0.0.1, localhost, ::1), got {host!r}")
    return host, int(port)


@click.command("mcp")
@click.option("--repo", "repos", multiple=True, metavar="PATH",
              help="A repository to serve (repeat for several; default: the current one).")
@click.option("--http", "http", metavar="HOST:PORT",
              help="Serve streamable HTTP on this loopback address instead of stdio.")
@click.option("--repos", "group", default=None, metavar="GROUP|all",
              help="Also answer questions across this registered group (`helix repos`): "
                   "the ask tool's repos.")
def mcp(repos: tuple[str, ...], http: str | None, group: str | None) -> None:
    """Serve Helix's tools (ask, search, find, open_span, callers, tests, status, index,
    repos, drift, stale_docs) to an MCP client over stdio; `--http 127.0.0.1:8765` serves
    streamable HTTP instead. Unchanged repositories are not walked again before a question
    (HELIX_NO_WATCH=1: always walk)."""
    from helix.core.config import load_config
    from helix.servers.mcp_server import build_server, http_app
    from helix.servers.workspace import Workspace

    address = http_address(http) if http else None
    settings = load_config(None).server  # yours: no repository's config sets a server limit
    roots = [repo_root(r) for r in repos] or ([] if group else [repo_root(None)])
    workspace = Workspace(roots, group=group)
    server = build_server(workspace)
    from helix.session.warm import warm_reading

    try:
        with warm_reading():  # a router that reads many turns: the warm encoder
            if address is None:
                server.run("stdio")
            else:
                from helix.cli.listen import listening
                from helix.servers import serving

                serving.run(http_app(server, port=address[1], settings=settings),
                            host=address[0], port=address[1], settings=settings,
                            on_listening=listening("serving MCP (streamable HTTP)", address[0],
                                                   address[1], MCP_PATH))
    finally:
        workspace.close()
