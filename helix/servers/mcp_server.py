"""`helix mcp`: Helix as a Model Context Protocol server (the official `mcp` SDK), over stdio
or, with `--http`, streamable HTTP on a loopback port.

Tools (each with a JSON schema whose descriptions say what to pass): `ask`, `search`, `find`,
`open_span`, `callers`, `tests`, `status`, `index`, `drift`, `stale_docs`, `repos`. A resource
per run of a served repository: `helix://turn/{turn_id}` (the run's question, evidence and
answer, from the run log; another repository's run is not found, as one that never existed).
Every tool
goes through `helix.servers.workspace.Workspace`, the same service functions as the CLI; a bad
argument, a repository not served or any Helix error comes back as a tool error carrying the
one-line message the CLI would print, and the server goes on.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field

from helix.core.errors import HelixError
from helix.core.server_settings import ServerSettings
from helix.servers.crash import client_message, report_crash
from helix.servers.workspace import Workspace, error_text

F = TypeVar("F", bound=Callable[..., Any])
INSTRUCTIONS = (
    "Helix answers questions about the code and documentation of the repositories it serves, "
    "with path:line citations from a local index. Start with `ask` (dry_run true returns the "
    "ranked evidence and an extractive answer without calling any model); `search`, `find`, "
    "`callers` and `tests` look the index up directly; `open_span` reads lines of a file. "
    "`repos` lists the repositories; pass one's name as `repo` (default: the first).")

Repo = Annotated[str | None, Field(
    description="Which served repository: its directory name or path as listed by `repos` "
                "(default: the first one).")]
Symbol = Annotated[str, Field(description="A class, function or method name, bare or "
                                          "qualified (`Client.send`).", min_length=1)]


def _tool_errors(fn: F) -> F:
    """A Helix error becomes the tool error an agent reads (one line); anything else too,
    labelled internal: a request never takes the server down."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except HelixError as exc:
            raise ToolError(error_text(exc)) from None
        except Exception as exc:  # a bug: still an answer, never a crash; one log line
            error_id = report_crash("helix mcp", exc, f"tool {fn.__name__}")
            raise ToolError(client_message(error_id, exc)) from None

    return wrapper  # type: ignore[return-value]


_VALIDATION = re.compile(r"^Error executing tool (?P<tool>\w+): \d+ validation errors? for "
                         r"\w+\n(?P<body>.*)$", re.S)
_PYDANTIC_NOISE = re.compile(r"\s*\[type=[^\]]*\]|\s*For further information visit \S+")


def fold_error(text: str) -> str:
    """A tool error as one line: the SDK's argument-validation report (field lines, then
    indented messages) becomes `invalid arguments for TOOL: field: message; ...`."""
    match = _VALIDATION.match(text)
    if match is None:
        return " ".join(text.split())
    lines = [line.strip() for line in _PYDANTIC_NOISE.sub("", match["body"]).splitlines()
             if line.strip()]
    pairs = [f"{field}: {message}" for field, message in zip(lines[::2], lines[1::2],
                                                                  strict=False)]
    return f"invalid arguments for {match['tool']}: " + "; ".join(pairs)


async def _one_line_errors(ctx: Any, call_next: Any) -> Any:
    """Server middleware: every tool error reaches the client as one line."""
    from mcp.types import CallToolResult, TextContent

    result = await call_next(ctx)
    if isinstance(result, CallToolResult) and result.is_error:
        text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
        return result.model_copy(update={"content": [TextContent(type="text",
                                                                 text=fold_error(text))]})
    if isinstance(result, dict) and result.get("isError"):  # already serialized
        text = " ".join(str(c.get("text", "")) for c in result.get("content", ())
                        if isinstance(c, dict))
        return {**result, "content": [{"type": "text", "text": fold_error(text)}]}
    return result


def build_server(workspace: Workspace) -> Any:
    """The MCP server over `workspace` (an `mcp.server.mcpserver.MCPServer`)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

    # the SDK sets the root logger to its level: at its default (INFO) every library's INFO
    # lines (its own session manager's among them) reached stderr at each start
    server = MCPServer(name="helix", instructions=INSTRUCTIONS, middleware=[_one_line_errors],
                       log_level="WARNING")

    @server.tool()
    @_tool_errors
    def ask(question: Annotated[str, Field(description="The question, a pasted bug report or "
                                                       "a traceback.", min_length=1)],
            repo: Annotated[str | list[str] | None, Field(
                description="Which served repository (its name or path as listed by `repos`; "
                            "default: the first), or a list of them to ask across (each "
                            "evidence item then names its repository).")] = None,
            dry_run: Annotated[bool, Field(description="True: the evidence and an extractive "
                                                       "answer, no model call. False: one call "
                                                       "to the model Helix is configured "
                                                       "with.")] = True,
            session: Annotated[str | None, Field(description="A conversation name: follow-ups "
                                                             "in it resolve against earlier "
                                                             "turns ('open the second one').")]
            = None,
            reply_to: Annotated[int | None, Field(description="In a session: the turn number "
                                                              "this one answers.", ge=1)] = None,
            scope: Annotated[str | None, Field(description="Only paths under this prefix "
                                                           "(e.g. `src/http/`).")] = None,
            sense: Annotated[str | None, Field(description="The sense to take when a word is "
                                                           "ambiguous (a clarifier's option)."
                                               )] = None,
            repos: Annotated[str | None, Field(description="The registered group this server "
                                                           "serves (or all): asked across its "
                                                           "best repositories for the question "
                                                           "(the envelope's repo_routing says "
                                                           "which and why).")] = None
            ) -> dict[str, Any]:
        """Answer a question about a repository: the answer text, its `path:line` citations,
        the item hashes and the full envelope (route, controller steps, stop reason,
        evidence)."""
        return workspace.ask(question, repo, dry_run=dry_run, session=session,
                             reply_to=reply_to, scope=scope, sense=sense, group=repos)

    @server.tool()
    @_tool_errors
    def search(query: Annotated[str, Field(description="Words to search for.", min_length=1)],
               repo: Repo = None,
               channel: Annotated[Literal["bm25", "dense", "all"], Field(
                   description="Which index: lexical (bm25), vectors (dense), or both.")] = "all",
               k: Annotated[int, Field(description="Hits per channel.", ge=1, le=100)] = 10
               ) -> dict[str, Any]:
        """Search the index directly: chunks with path, lines, score and rank per channel."""
        return workspace.search(query, repo, channel, k)

    @server.tool()
    @_tool_errors
    def find(symbol: Symbol, repo: Repo = None,
             limit: Annotated[int, Field(description="At most this many definitions.", ge=1,
                                         le=1000)] = 20) -> dict[str, Any]:
        """Look a symbol up: its definitions (path, line, kind, scope) and how many references,
        calls and imports name it; close names (marked fuzzy) when none matches exactly."""
        return workspace.find(symbol, repo, limit)

    @server.tool()
    @_tool_errors
    def open_span(path: Annotated[str, Field(description="A file path relative to the "
                                                         "repository root.", min_length=1)],
                  start: Annotated[int, Field(description="First line (from 1).", ge=1)] = 1,
                  end: Annotated[int | None, Field(description="Last line (default: the end, "
                                                               "at most 400 lines).", ge=1)]
                  = None,
                  repo: Repo = None) -> dict[str, Any]:
        """Read lines of a file inside the repository (secrets masked); a path outside it is
        refused."""
        return workspace.open_span(path, start, end, repo)

    @server.tool()
    @_tool_errors
    def callers(symbol: Symbol, repo: Repo = None) -> dict[str, Any]:
        """Every resolved call site of a symbol, grouped by calling function."""
        return workspace.callers(symbol, repo)

    @server.tool()
    @_tool_errors
    def tests(symbol: Symbol, repo: Repo = None) -> dict[str, Any]:
        """The tests that exercise a symbol (the index graph's `tests` edges)."""
        return workspace.tests(symbol, repo)

    @server.tool()
    @_tool_errors
    def status(repo: Repo = None) -> dict[str, Any]:
        """Whether the index is fresh: changed files, revisions, size, embedding coverage."""
        return workspace.status(repo)

    @server.tool()
    @_tool_errors
    def index(repo: Repo = None,
              force: Annotated[bool, Field(description="Rebuild from scratch.")] = False
              ) -> dict[str, Any]:
        """Bring the index up to date (incremental unless `force`); the build report."""
        return workspace.build(repo, force=force)

    @server.tool()
    @_tool_errors
    def drift(repo: Repo = None,
              since: Annotated[str | None, Field(description="Only questions asked since a "
                                                             "date (YYYY-MM-DD) or a commit.")]
              = None,
              questions: Annotated[list[str | dict[str, Any]] | None, Field(
                  description="Pinned questions instead of the run log's: texts, or pin "
                              "objects with their evidence (`helix drift --write-pins`).",
                  max_length=1000)] = None) -> dict[str, Any]:
        """What changed under earlier answers: the repository's recent questions (or the
        pinned ones) re-run as dry runs at HEAD, each compared with its recorded evidence;
        by severity: cited lines changed or vanished (with their diff), moved or renamed,
        ranking only."""
        return workspace.drift(repo, since=since, questions=questions)

    @server.tool()
    @_tool_errors
    def stale_docs(repo: Repo = None,
                   paths: Annotated[list[str] | None, Field(
                       description="Documentation files or folders, relative to the "
                                   "repository (default: all).", max_length=1000)] = None,
                   baseline: Annotated[list[str] | None, Field(
                       description="Keys of findings already acknowledged.",
                       max_length=100_000)] = None) -> dict[str, Any]:
        """Documentation sections whose aligned code changed after the section was last
        edited: what changed (signature, parameters, defaults, raised errors, removed names)
        and the commits. Changes of layout, comments or docstrings are ignored."""
        return workspace.stale_docs(repo, paths=paths or (), baseline=baseline or ())

    @server.tool()
    @_tool_errors
    def repos() -> dict[str, Any]:
        """The repositories this server answers about (name and path)."""
        return {"repos": workspace.describe()}

    @server.resource("helix://turn/{turn_id}", mime_type="application/json",
                     description="A run from the run log: question, evidence, answer.")
    def turn(turn_id: str) -> str:
        try:
            return json.dumps(workspace.run(turn_id), sort_keys=True)
        except HelixError as exc:
            raise ResourceNotFoundError(error_text(exc)) from None
        except Exception as exc:  # a bug: one masked log line, the id to the client (the SDK
            # logged the whole traceback, the exception's text and its secrets included)
            error_id = report_crash("helix mcp", exc, "resource helix://turn")
            raise ResourceError(client_message(error_id, exc)) from None

    return server


def http_app(server: Any, *, port: int, settings: ServerSettings) -> Any:
    """`helix mcp --http`: the SDK's streamable HTTP app, its DNS-rebinding protection
    limited to this server's own loopback Host and Origin (the port included; more with
    `server.allowed_hosts` / `allowed_origins`), the body counted as it streams and read
    within its deadline (`helix.servers.guard.BodyLimit`, the SDK's own count behind it)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from helix.servers.crash import Crashes
    from helix.servers.guard import BodyLimit, loopback_hosts, loopback_origins

    hosts = [*loopback_hosts(port), *settings.allowed_hosts,
             *(f"{host}:{port}" for host in settings.allowed_hosts
               if not host.rpartition(":")[2].isdigit())]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[*loopback_origins(port), *settings.allowed_origins])
    app = server.streamable_http_app(max_request_body_size=settings.max_body_bytes,
                                     transport_security=security)
    return Crashes(BodyLimit(app, settings), server="helix mcp")

