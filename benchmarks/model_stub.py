"""A loopback model for benchmarks and tests: a tiny HTTP server speaking the OpenAI
chat-completions API (`POST /v1/chat/completions`, plain or streamed as server-sent events).

It answers by quoting the first citation id it finds in the prompt (`[E1]`), so the answer
passes Helix's tool-result contract; `status` makes every request fail with that HTTP status
(and an OpenAI-style error body) instead. It binds 127.0.0.1 on a free port and serves from a
daemon thread; `requests` counts what it was asked.

    with ModelStub() as stub:
        helix ask --model openai/stub --api-base {stub.base} ...
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_CITATION = re.compile(r"\[E\d+\]")


def _answer(body: dict[str, Any]) -> str:
    text = " ".join(str(m.get("content", "")) for m in body.get("messages", ()))
    found = _CITATION.search(text)
    cite = found.group(0) if found else "[E1]"
    return f"The code that does this is cited here {cite}."


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _send(self, status: int, payload: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(size) or b"{}")
        self.server.requests.append(body)
        if self.server.status != 200:
            error = {"error": {"message": self.server.reason, "type": "server_error",
                               "code": self.server.status}}
            self._send(self.server.status, json.dumps(error).encode(), "application/json")
            return
        model = str(body.get("model", "stub"))
        text = _answer(body)
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if body.get("stream"):
            chunks = [{"id": "c1", "object": "chat.completion.chunk", "created": 0,
                       "model": model, "choices": [{"index": 0, "delta": {
                           "role": "assistant", "content": text}, "finish_reason": None}]},
                      {"id": "c1", "object": "chat.completion.chunk", "created": 0,
                       "model": model, "choices": [{"index": 0, "delta": {},
                                                    "finish_reason": "stop"}], "usage": usage}]
            events = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self._send(200, events.encode(), "text/event-stream")
            return
        reply = {"id": "c1", "object": "chat.completion", "created": 0, "model": model,
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": text}}],
                 "usage": usage}
        self._send(200, json.dumps(reply).encode(), "application/json")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    requests: list[dict[str, Any]]
    status: int
    reason: str


class ModelStub:
    """The stub server on a free loopback port while the `with` block runs."""

    def __init__(self, *, status: int = 200,
                 reason: str = "The server had an error while processing your request.") -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.requests = []
        self._server.status = status
        self._server.reason = reason
        # polled every 50 ms, not the default 500: `shutdown` waits for the loop to look
        # again, and each `with` block ended up to half a second later than its last answer
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self._server.requests

    def __enter__(self) -> ModelStub:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
