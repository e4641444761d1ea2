"""`helix serve`: Helix over HTTP (FastAPI, served by uvicorn), the same operations as the CLI
and the MCP tools through one `Workspace`, with the same argument names.

    GET  /health                      {"ok": true, "pid": the server's process id}
    GET  /repos                       the repositories served (the allowlist given at start)
    POST /ask                         {"question", "repo", "dry_run", "session", "reply_to",
                                       "scope", "sense"} -> answer, citations, envelope;
                                      with "stream": true, server-sent events (the steps,
                                      then the answer); closing the stream, or the
                                      connection of a plain request, stops retrieval
    POST /search                      {"query", "repo", "channel", "k"}
    GET  /find?symbol=&repo=&limit=   definitions and reference counts
    GET  /callers?symbol=&repo=       call sites grouped by caller
    GET  /tests?symbol=&repo=         tests linked to the symbol
    POST /open_span                   {"path", "start", "end", "repo"}
    GET  /status?repo=                index freshness
    POST /index                       {"repo", "force"}
    POST /drift                       {"repo", "since", "questions"} -> the drift report of
                                      the repository's recent (or pinned) questions
    POST /stale_docs                  {"repo", "paths", "baseline"} -> stale sections
    GET  /runs?limit=                 recent runs of the served repositories (the run log)
    GET  /runs/{turn}                 one of them, without its prompt
    POST /export                      {"format", "include_diagnostic", "answer_modes",
                                       "since"} -> the admission report and the records
    OpenAPI at /openapi.json (and /docs).

Guards (`helix.servers.guard`): a bearer token (`Authorization: Bearer ...`) on every route
but /health when one is set (always, when bound beyond loopback); without one, only requests
whose Host (and Origin, when sent) name this loopback server (DNS rebinding); a body is
counted as it streams, over `server.max_body_bytes` it is refused (413), not received within
`server.body_timeout_s` too (408); at most `max_concurrent` requests run at once, the next gets
503 with Retry-After instead of a queue without bound. Runs and exports are those of the
served repositories only (another's turn id is 404, as one that does not exist). A Helix
error is a JSON `{"error": one line}` (400 for what the client asked wrong, 404 for what is
not there, 503 when busy, 500 otherwise); a crash in one request never takes the server down.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Literal

from pydantic import BaseModel, Field
from starlette.requests import Request  # resolved by FastAPI from this module's names

from helix.core.errors import (
    HelixError,
    IndexLockedError,
    NoMatchError,
    NotFoundError,
    RunLogBusyError,
    StateDatabaseError,
    UserError,
)
from helix.core.server_settings import ServerSettings
from helix.servers.crash import Crashes, client_message, report_crash
from helix.servers.guard import Guard, error_response
from helix.servers.workspace import Workspace, error_text


class AskRequest(BaseModel):
    question: str = Field(min_length=1, description="The question, a bug report or traceback.")
    repo: str | list[str] | None = Field(
        None, description="A served repository (default: the first), or a list of them to ask "
                          "across.")
    repos: str | None = Field(None, description="The registered group this server serves "
                                                "(`helix serve --repos GROUP|all`): asked "
                                                "across its best repositories for the "
                                                "question; the envelope's repo_routing says "
                                                "which and why.")
    dry_run: bool = Field(True, description="True: evidence and an extractive answer only.")
    session: str | None = Field(None, description="A conversation name, for follow-ups.")
    reply_to: int | None = Field(None, ge=1, description="The turn this one answers.")
    scope: str | None = Field(None, description="Only paths under this prefix.")
    sense: str | None = Field(None, description="The sense of an ambiguous word to take.")
    stream: bool = Field(False, description="Answer as server-sent events: the controller's "
                                            "steps as they happen (`trace`), the model's text "
                                            "as it is written (`token`, before the contract "
                                            "checks it), then `answer` (or `error`). Closing "
                                            "the stream stops the work.")


class SearchRequest(BaseModel):
    query: str = Field(min_length=1)
    repo: str | None = None
    channel: Literal["bm25", "dense", "all"] = "all"
    k: int = Field(10, ge=1, le=100)


class SpanRequest(BaseModel):
    path: str = Field(min_length=1)
    start: int = Field(1, ge=1)
    end: int | None = Field(None, ge=1)
    repo: str | None = None


class IndexRequest(BaseModel):
    repo: str | None = None
    force: bool = False


class DriftRequest(BaseModel):
    repo: str | None = None
    since: str | None = Field(None, description="A date (YYYY-MM-DD) or a commit.")
    questions: list[str | dict[str, Any]] | None = Field(
        None, max_length=1000, description="Pinned questions (texts or pin objects).")


class StaleDocsRequest(BaseModel):
    repo: str | None = None
    paths: list[str] = Field(default_factory=list, max_length=1000)
    baseline: list[str] = Field(default_factory=list, max_length=100_000)


class ExportRequest(BaseModel):
    format: Literal["records", "chat"] = "records"
    include_diagnostic: bool = False
    answer_modes: list[str] = Field(default_factory=lambda: ["llm"])
    since: str | None = Field(None, description="`last` or a UTC date/time, as the CLI.")


def status_of(exc: HelixError) -> int:
    if isinstance(exc, NotFoundError | NoMatchError):
        return 404
    if isinstance(exc, IndexLockedError | RunLogBusyError | StateDatabaseError):
        return 503
    if isinstance(exc, UserError):
        return 400
    return 500


class Cancelled(BaseException):
    """The client closed the stream: the question's work stops at its next step, or at the
    model's next piece of text. A BaseException, so that no `except Exception` on the way
    (the model client maps every Exception to a transient error and retries) swallows it."""


def event_stream(workspace: Workspace, body: AskRequest) -> Any:
    """`POST /ask` with `"stream": true`: server-sent events from a worker thread."""
    import json
    import queue
    import threading

    from starlette.responses import StreamingResponse

    events: queue.Queue[tuple[str, Any]] = queue.Queue()
    closed = threading.Event()

    def trace(name: str, data: dict[str, Any]) -> None:
        if closed.is_set():
            raise Cancelled("the client closed the stream")
        events.put(("trace", {"event": name, **data}))

    def token(text: str) -> None:  # the model's answer as it is written, before the contract
        if closed.is_set():
            if body.session:  # a session turn runs to its end: its state is written whole
                return
            raise Cancelled("the client closed the stream")
        events.put(("token", {"text": text}))

    def work() -> None:
        try:
            events.put(("answer", workspace.ask(
                body.question, body.repo, dry_run=body.dry_run, session=body.session,
                reply_to=body.reply_to, scope=body.scope, sense=body.sense,
                trace=None if body.session else trace, on_text=token, group=body.repos)))
        except Cancelled:
            pass
        except HelixError as exc:
            events.put(("error", {"error": error_text(exc), "status": status_of(exc)}))
        except Exception as exc:  # a bug: said, never a dead server
            error_id = report_crash("helix serve", exc, "POST /ask (stream)")
            events.put(("error", {"error": client_message(error_id, exc),
                                  "error_id": error_id}))
        finally:
            events.put(("end", None))

    async def stream() -> Any:
        import anyio

        worker = threading.Thread(target=work, name="helix-ask-stream", daemon=True)
        worker.start()
        try:
            while True:
                kind, data = await anyio.to_thread.run_sync(events.get)
                if kind == "end":
                    break
                yield f"event: {kind}\ndata: {json.dumps(data, sort_keys=True)}\n\n"
        finally:
            closed.set()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store"})


async def answer_unless_gone(workspace: Workspace, body: AskRequest, request: Request) -> Any:
    """`POST /ask`: the question in a worker thread while the connection is watched; a client
    that goes away stops the retrieval at its next step (a session turn runs to its end: its
    state is written whole)."""
    import anyio

    gone = threading.Event()

    def trace(name: str, data: dict[str, Any]) -> None:
        if gone.is_set():
            raise Cancelled("the client went away")

    def work() -> dict[str, Any]:
        return workspace.ask(body.question, body.repo, dry_run=body.dry_run,
                             session=body.session, reply_to=body.reply_to, scope=body.scope,
                             sense=body.sense, trace=None if body.session else trace,
                             group=body.repos)

    async def watch() -> None:
        # the body is read: the next message from the server is the client's disconnect
        # (waited for, not polled: a poll inside a cancelled scope never sees it through the
        # middleware)
        while (await request.receive())["type"] != "http.disconnect":
            pass
        gone.set()

    answer: dict[str, Any] | None = None
    failed: Exception | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            answer = await anyio.to_thread.run_sync(work)
        except Cancelled:
            answer = None
            gone.set()
        except Exception as exc:  # raised again outside the group, not wrapped in one
            failed = exc
        finally:
            group.cancel_scope.cancel()
    if gone.is_set() and answer is None:
        from starlette.responses import Response

        return Response(status_code=499)  # nobody reads it: the client has gone
    if failed is not None:
        raise failed
    return answer


def create_app(workspace: Workspace, *, token: str | None = None, max_concurrent: int = 4,
               settings: ServerSettings | None = None) -> Any:
    """The FastAPI application over `workspace`, its limits from `settings` (the `server`
    section of the user's config)."""
    from fastapi import FastAPI
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.responses import Response

    app = FastAPI(title="Helix", version="1",
                  description="Questions about a repository, answered with path:line citations.")
    slots = threading.BoundedSemaphore(max_concurrent)
    app.add_middleware(Guard, token=token, settings=settings or ServerSettings(), slots=slots)
    app.add_middleware(Crashes, server="helix serve")  # outermost: a bug ends here

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        parts = [f"{'.'.join(str(p) for p in e['loc'] if p != 'body')}: {e['msg']}"
                 for e in exc.errors()]
        return error_response(400, "invalid request: " + "; ".join(parts))

    @app.exception_handler(HelixError)
    async def helix_error(request: Request, exc: HelixError) -> Response:
        return error_response(status_of(exc), error_text(exc))

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "pid": os.getpid()}

    @app.get("/repos")
    def repos() -> dict[str, Any]:
        return {"repos": workspace.describe()}

    @app.post("/ask", response_model=None)
    async def ask(body: AskRequest, request: Request) -> Response:
        if body.stream:
            return event_stream(workspace, body)
        answer = await answer_unless_gone(workspace, body, request)
        if isinstance(answer, Response):
            return answer
        # JSON-ready already (dumped in JSON mode): sent as is, not walked again by FastAPI
        return JSONResponse(answer)

    @app.post("/search")
    def search(body: SearchRequest) -> dict[str, Any]:
        return workspace.search(body.query, body.repo, body.channel, body.k)

    @app.get("/find")
    def find(symbol: str, repo: str | None = None, limit: int = 20) -> dict[str, Any]:
        return workspace.find(symbol, repo, max(1, min(limit, 1000)))

    @app.get("/callers")
    def callers(symbol: str, repo: str | None = None) -> dict[str, Any]:
        return workspace.callers(symbol, repo)

    @app.get("/tests")
    def tests(symbol: str, repo: str | None = None) -> dict[str, Any]:
        return workspace.tests(symbol, repo)

    @app.post("/open_span")
    def open_span(body: SpanRequest) -> dict[str, Any]:
        return workspace.open_span(body.path, body.start, body.end, body.repo)

    @app.get("/status")
    def status(repo: str | None = None) -> dict[str, Any]:
        return workspace.status(repo)

    @app.post("/index")
    def index(body: IndexRequest) -> dict[str, Any]:
        return workspace.build(body.repo, force=body.force)

    @app.post("/drift")
    def drift(body: DriftRequest) -> dict[str, Any]:
        return workspace.drift(body.repo, since=body.since, questions=body.questions)

    @app.post("/stale_docs")
    def stale_docs(body: StaleDocsRequest) -> dict[str, Any]:
        return workspace.stale_docs(body.repo, paths=body.paths, baseline=body.baseline)

    @app.get("/runs")
    def runs(limit: int = 20) -> dict[str, Any]:
        return {"runs": workspace.runs(max(1, min(limit, 1000)))}

    @app.post("/export")
    def export(body: ExportRequest) -> dict[str, Any]:
        """Training records from the run log (the records in the response; the export is
        stored under $HELIX_HOME/exports as `helix export` stores it)."""
        return workspace.export(fmt=body.format, include_diagnostic=body.include_diagnostic,
                                answer_modes=tuple(body.answer_modes), since=body.since)

    @app.get("/runs/{turn}")
    def run(turn: str) -> dict[str, Any]:
        return workspace.run(turn)

    return app
