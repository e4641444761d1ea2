"""What a client can take from a Helix server is bounded: a body is counted as it streams (a
chunked body has no Content-Length to check), a body or a request head trickled a byte at a
time (slowloris) is cut off at its deadline, and a connection that sends nothing is closed.
`helix serve`'s app is driven over ASGI and through a real uvicorn with the server's own
options (`helix.servers.serving`); `helix mcp --http` is started as a user starts it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from helix.core.server_settings import ServerSettings
from helix.servers.http_api import create_app
from tests.net_helpers import free_port

REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
CHUNK = 64 * 1024
TIMEOUT_S = 1.0  # the deadlines these tests set
SETTINGS = ServerSettings(header_timeout_s=TIMEOUT_S, body_timeout_s=TIMEOUT_S)


class EchoWorkspace:
    """A workspace that answers at once (what is under test is in front of it)."""

    def ask(self, question: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"answer": f"asked: {question}"}

    def open_span(self, path: str, *args: Any) -> dict[str, Any]:
        return {"path": path}

    def search(self, query: str, *args: Any) -> dict[str, Any]:
        return {"query": query, "hits": []}


def _drive(app: Any, path: str, chunks: int) -> tuple[int, int]:
    """POST `path` over ASGI with a chunked body of `chunks` x 64 KiB and no Content-Length:
    (the status answered, how many chunks the app read)."""
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read >= chunks:
            await anyio.sleep(3600)
        read += 1
        return {"type": "http.request", "body": b"x" * CHUNK, "more_body": read < chunks}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "server": ("127.0.0.1", 8765),
             "client": ("127.0.0.1", 50000),
             "headers": [(b"host", b"127.0.0.1:8765"), (b"content-type", b"application/json"),
                         (b"transfer-encoding", b"chunked")]}

    async def call() -> None:
        with anyio.fail_after(30):
            await app(scope, receive, send)

    anyio.run(call)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return int(start["status"]), read


@pytest.mark.parametrize("path", ["/ask", "/search", "/open_span", "/index", "/export"])
def test_a_chunked_body_is_counted_as_it_streams(path: str) -> None:
    """48 chunks of 64 KiB (3 MiB, no Content-Length) on every route: 413 once the count
    passes 1 MB, the rest never read."""
    status, read = _drive(create_app(EchoWorkspace()), path, 48)  # type: ignore[arg-type]
    assert status == 413
    assert read * CHUNK <= ServerSettings().max_body_bytes + CHUNK


def test_a_body_under_the_cap_still_arrives_whole() -> None:
    app = create_app(EchoWorkspace())  # type: ignore[arg-type]
    status, _ = _drive(app, "/ask", 1)  # one chunk of x: not JSON
    assert status == 400


@contextmanager
def _uvicorn(app: Any, settings: ServerSettings) -> Iterator[int]:
    """`app` served by uvicorn in a thread with a Helix server's options; yields the port."""
    import uvicorn

    from helix.servers.serving import uvicorn_options

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           **uvicorn_options(settings)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(30)


def _trickle(port: int, head: bytes, trickled: bytes, *, every_s: float = 0.2,
             within_s: float = 6.0) -> tuple[bytes, float]:
    """Send `head` at once, then `trickled` a byte every `every_s`, until the server answers
    or closes: (what it sent, seconds until the connection ended)."""
    started = time.monotonic()
    got = b""
    with socket.create_connection(("127.0.0.1", port), timeout=within_s) as conn:
        conn.sendall(head)
        conn.settimeout(every_s)
        for byte in trickled:
            try:
                conn.sendall(bytes([byte]))
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
            got += chunk
            if not chunk:
                break
            if time.monotonic() - started > within_s:
                break
        conn.settimeout(max(0.1, within_s - (time.monotonic() - started)))
        try:
            while chunk := conn.recv(65536):
                got += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return got, time.monotonic() - started


def test_a_trickled_body_is_cut_at_its_deadline() -> None:
    app = create_app(EchoWorkspace(), settings=SETTINGS)  # type: ignore[arg-type]
    with _uvicorn(app, SETTINGS) as port:
        body = json.dumps({"question": "where is it?"}).encode() * 4
        head = (f"POST /ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                ).encode()
        got, took = _trickle(port, head, body)
    assert got.startswith(b"HTTP/1.1 408"), got[:200]
    assert b"request body not received within 1 s" in got
    assert took < TIMEOUT_S + 2


def test_a_trickled_request_head_is_cut_at_its_deadline() -> None:
    app = create_app(EchoWorkspace(), settings=SETTINGS)  # type: ignore[arg-type]
    with _uvicorn(app, SETTINGS) as port:
        head = f"Host: 127.0.0.1:{port}\r\nX-Slow: {'a' * 60}\r\n\r\n".encode()
        got, took = _trickle(port, b"GET /health HTTP/1.1\r\n", head)
    assert got.startswith(b"HTTP/1.1 408"), got[:200]
    assert json.loads(got.split(b"\r\n\r\n", 1)[1])["error"] == \
        "request head not received within 1 s"
    assert took < TIMEOUT_S + 2


def test_a_connection_that_sends_nothing_is_closed() -> None:
    app = create_app(EchoWorkspace(), settings=SETTINGS)  # type: ignore[arg-type]
    with _uvicorn(app, SETTINGS) as port:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=6) as conn:
            assert conn.recv(100) == b""  # closed, nothing said
        assert time.monotonic() - started < TIMEOUT_S + 2


def test_a_prompt_client_is_answered_on_a_kept_alive_connection() -> None:
    """The deadlines do not touch a client that sends its request at once: two requests on
    one connection, both answered."""
    import httpx

    app = create_app(EchoWorkspace(), settings=SETTINGS)  # type: ignore[arg-type]
    with _uvicorn(app, SETTINGS) as port, httpx.Client(base_url=f"http://127.0.0.1:{port}",
                                                       timeout=10) as client:
        first = client.post("/ask", json={"question": "one"})
        time.sleep(TIMEOUT_S / 2)
        second = client.post("/ask", json={"question": "two"})
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.json()["answer"] == "asked: two"


@pytest.fixture
def mcp_http(tmp_path: Path) -> Iterator[int]:
    """`helix mcp --http` on a loopback port, its deadlines at 1 s, `myhost` allowed."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    port = free_port()
    env = {**os.environ, "HELIX_HOME": str(tmp_path / "home"),
           "HELIX_INDEX__EMBED_ENABLED": "false", "HELIX_SERVER__HEADER_TIMEOUT_S": "1",
           "HELIX_SERVER__BODY_TIMEOUT_S": "1", "HELIX_SERVER__ALLOWED_HOSTS": "myhost"}
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from helix.cli.main import main; sys.exit(main())",
         "mcp", "--repo", str(repo), "--http", f"127.0.0.1:{port}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        process.kill()
        pytest.fail(f"helix mcp --http did not start: {process.communicate()[1][-2000:]}")
    yield port
    process.kill()
    process.communicate()


def test_mcp_over_http_checks_the_host_with_its_port_and_bounds_slow_clients(
        mcp_http: int) -> None:
    import httpx

    port = mcp_http
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}

    def post(**extra: str) -> int:
        return httpx.post(url, json=ping, headers={**headers, **extra},
                          timeout=10).status_code

    async def session() -> tuple[Any, Any]:
        from mcp.client import Client

        async with Client(url) as client:  # the SDK's own client, through the bounds
            return (await client.call_tool("repos", {}),
                    await client.call_tool("ask", {"question": "where is the BM25 index "
                                                               "built?"}))

    listed, answered = anyio.run(session)
    assert not listed.is_error and not answered.is_error, (listed, answered)
    assert post() not in (403, 421)
    assert post(Host="myhost") not in (403, 421)  # server.allowed_hosts
    assert post(Host=f"myhost:{port}") not in (403, 421)
    assert post(Host="evil.example") == 421
    assert post(Host=f"localhost:{port + 1}") == 421  # a loopback name, another port
    assert post(Origin="http://evil.example") == 403
    assert post(Origin=f"http://localhost:{port + 1}") == 403

    def chunks() -> Iterator[bytes]:
        for _ in range(48):
            yield b" " * CHUNK

    assert httpx.post(url, content=chunks(), headers=headers, timeout=30).status_code == 413
    got, took = _trickle(port, b"POST /mcp HTTP/1.1\r\n",
                         f"Host: 127.0.0.1:{port}\r\nX-Slow: {'a' * 60}\r\n\r\n".encode())
    assert got.startswith(b"HTTP/1.1 408") and took < TIMEOUT_S + 2, (got[:200], took)
    body = json.dumps(ping).encode()
    got, took = _trickle(port, (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                "Accept: application/json, text/event-stream\r\n"
                                "Content-Type: application/json\r\n"
                                f"Content-Length: {len(body)}\r\n\r\n").encode(), body)
    assert got.startswith(b"HTTP/1.1 408") and took < TIMEOUT_S + 2, (got[:200], took)


def test_a_repository_cannot_raise_a_server_limit(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from helix.core.config import resolve_config

    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    (tmp_path / ".helix.toml").write_text("[helix.server]\nmax_body_bytes = 1000000000\n"
                                          "allowed_hosts = ['evil.example']\n")
    config, notices = resolve_config(tmp_path, env={"HELIX_HOME": str(tmp_path / "home")})
    assert config.server == ServerSettings()
    assert any("ignored server.max_body_bytes" in notice for notice in notices)
    assert any("ignored server.allowed_hosts" in notice for notice in notices)
