"""A plain `POST /ask` whose client goes away stops its retrieval at the next step
(`helix.servers.http_api.answer_unless_gone`); one that stays gets its answer. The app is
driven as uvicorn drives it: an ASGI call whose `receive` says the client disconnected."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import anyio

from helix.servers.http_api import create_app

STEP_S = 0.02
STEPS = 500  # 10 s of "retrieval" if nothing stops it


class SlowWorkspace:
    """A workspace whose question takes `steps` steps (STEPS), each reported to the trace."""

    def __init__(self, steps: int = STEPS) -> None:
        self.steps, self.planned = 0, steps
        self.finished = threading.Event()

    def ask(self, question: str, repo: Any = None, *, trace: Any = None,
            **_: Any) -> dict[str, Any]:
        try:
            for _step in range(self.planned):
                time.sleep(STEP_S)
                self.steps += 1
                if trace is not None:
                    trace("controller_step", {"index": self.steps})
            return {"answer": "done", "steps": self.steps}
        finally:
            self.finished.set()


def _call(workspace: Any, leave_after_s: float | None, **request: Any
          ) -> list[dict[str, Any]]:
    """What the app sends for one `POST /ask` driven over ASGI; the client leaves after
    `leave_after_s` (None: it stays)."""
    sent: list[dict[str, Any]] = []
    anyio.run(_drive, create_app(workspace), sent, leave_after_s, request)
    return sent


async def _drive(app: Any, sent: list[dict[str, Any]], leave_after_s: float | None,
                 request: dict[str, Any]) -> None:
    body = json.dumps({"question": "where is it?", **request}).encode()
    started = time.monotonic()
    first = True

    async def receive() -> dict[str, Any]:
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": body, "more_body": False}
        if leave_after_s is None:
            await anyio.sleep(3600)  # the client stays (the server stops waiting)
        await anyio.sleep(max(0.0, leave_after_s - (time.monotonic() - started)))
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/ask", "raw_path": b"/ask",
             "query_string": b"", "root_path": "", "server": ("127.0.0.1", 8000),
             "client": ("127.0.0.1", 50000),
             "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}
    await app(scope, receive, send)


def test_a_client_that_goes_away_stops_the_question_at_its_next_step() -> None:
    workspace = SlowWorkspace()
    started = time.monotonic()
    _call(workspace, leave_after_s=0.2)
    assert workspace.finished.wait(5)
    assert workspace.steps < STEPS // 5, workspace.steps  # stopped, not run to the end
    assert time.monotonic() - started < 5


def test_a_client_that_stays_gets_the_answer() -> None:
    # 100 steps (2 s): ten times as long as the leaving client above stays, every step's
    # check still made; STEPS (10 s) only bounds how far a question nobody stops would run
    workspace_steps = STEPS // 5
    workspace = SlowWorkspace(workspace_steps)
    sent = _call(workspace, leave_after_s=None)
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert start["status"] == 200
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    assert json.loads(payload) == {"answer": "done", "steps": workspace_steps}


class StreamingWorkspace:
    """A workspace whose model writes its answer in three pieces."""

    def ask(self, question: str, repo: Any = None, *, trace: Any = None, on_text: Any = None,
            **_: Any) -> dict[str, Any]:
        if trace is not None:
            trace("controller_step", {"index": 0})
        for piece in ("It is ", "decided ", "here [E1]."):
            if on_text is not None:
                on_text(piece)
        return {"answer": "It is decided here [E1]."}


def test_a_streamed_ask_sends_the_models_text_as_it_is_written() -> None:
    sent = _call(StreamingWorkspace(), None, stream=True)
    stream = b"".join(m.get("body", b"") for m in sent
                      if m["type"] == "http.response.body").decode()
    kinds = [line.split(": ", 1)[1] for line in stream.splitlines()
             if line.startswith("event: ")]
    assert kinds == ["trace", "token", "token", "token", "answer"]
    tokens = [json.loads(line.split(": ", 1)[1])["text"] for line in stream.splitlines()
              if line.startswith("data: ") and '"text"' in line]
    assert "".join(tokens) == "It is decided here [E1]."


class GatedWorkspace:
    """A workspace whose question waits for a gate (the work of a long streamed answer)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()

    def ask(self, question: str, repo: Any = None, **_: Any) -> dict[str, Any]:
        self.entered.set()
        self.gate.wait(10)
        return {"answer": "done"}


def test_a_stream_holds_its_slot_until_it_ends() -> None:
    """At --max-concurrent 1, a request while a stream is under way is refused with 503 and
    Retry-After; once the stream has ended, the next one is answered."""
    workspace = GatedWorkspace()
    app = create_app(workspace, max_concurrent=1)
    streamed: list[dict[str, Any]] = []
    during: list[dict[str, Any]] = []
    after: list[dict[str, Any]] = []

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(_drive, app, streamed, None, {"stream": True})
            while not workspace.entered.is_set():
                await anyio.sleep(0.01)
            await _drive(app, during, None, {})
            workspace.gate.set()
        await _drive(app, after, None, {})

    anyio.run(main)
    status = [next(m["status"] for m in sent if m["type"] == "http.response.start")
              for sent in (streamed, during, after)]
    assert status == [200, 503, 200]
    start = next(m for m in during if m["type"] == "http.response.start")
    assert (b"retry-after", b"1") in start["headers"]
