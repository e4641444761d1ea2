"""A bug met by a request: the server logs one redacted line with an error id, the client gets
a 500 with the same id, no traceback anywhere unless HELIX_DEBUG=1 (issue 28: tracebacks with
request data in the server log)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from helix.servers.crash import crash_line
from helix.servers.http_api import create_app

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
HOST = {"Host": "127.0.0.1:8765"}


@pytest.fixture(scope="module")
def mcp_client() -> Any:
    """mcp's client and error, imported once for the module before any test's capfd (not
    at collection: ~1.5 CPU s a worker): mcp.client.stdio binds sys.stderr as a default
    argument at import, and capfd's stream is closed after the test (a later stdio client then
    fails)."""
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    return Client, MCPError


class Broken:
    """A workspace whose every answer meets a bug that quotes a secret."""

    def describe(self) -> list[dict[str, Any]]:
        raise KeyError(f"token {SECRET} not in table")

    def ask(self, *args: Any, **kwargs: Any) -> Any:
        raise KeyError(f"token {SECRET} not in table")

    def run(self, turn: str) -> Any:
        raise KeyError(f"token {SECRET} not in table")


def _client() -> TestClient:
    client = TestClient(create_app(Broken()),  # type: ignore[arg-type]
                        base_url="http://127.0.0.1:8765", raise_server_exceptions=True)
    client.headers.update(HOST)
    return client


@pytest.mark.parametrize("debug", ["", "1"])
def test_a_bug_is_one_redacted_log_line_and_an_id(capfd: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  debug: str) -> None:
    monkeypatch.setenv("HELIX_DEBUG", debug)
    requests = (lambda: _client().get("/repos"),
                lambda: _client().post("/ask", json={"question": "where?", "stream": True}))
    for request in requests:
        response = request()
        if response.headers["content-type"].startswith("text/event-stream"):
            error_id = response.text.split('"error_id": "', 1)[1][:12]
        else:
            assert response.status_code == 500
            error_id = response.json()["error_id"]
        assert SECRET not in response.text and "Traceback" not in response.text
        assert f"internal error {error_id} (KeyError)" in response.text
        err = capfd.readouterr().err
        lines = [line for line in err.splitlines() if "internal error" in line]
        assert len(lines) == 1 and error_id in lines[0] and "KeyError" in lines[0]
        assert SECRET not in err
        assert ("Traceback" in err) == (debug == "1")


def test_the_line_is_one_line_and_masked() -> None:
    line = crash_line("helix serve", "abc", ValueError(f"bad\nvalue {SECRET}"), "GET /x")
    assert "\n" not in line and SECRET not in line
    assert line.startswith("helix serve: internal error abc (ValueError) on GET /x: bad value")


def _one_logged_line(err: str, error_id: str, debug: str) -> None:
    lines = [line for line in err.splitlines() if "internal error" in line]
    assert len(lines) == 1 and error_id in lines[0] and "KeyError" in lines[0], err
    assert lines[0].startswith("helix mcp: internal error")
    assert SECRET not in err
    assert ("Traceback" in err) == (debug == "1")


@pytest.mark.parametrize("debug", ["", "1"])
def test_an_mcp_tool_that_meets_a_bug_is_one_line_and_an_id(mcp_client: Any,
                                                             capfd: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             debug: str) -> None:
    import asyncio

    client_type = mcp_client[0]

    from helix.servers.mcp_server import build_server

    monkeypatch.setenv("HELIX_DEBUG", debug)

    async def call() -> Any:
        async with client_type(build_server(Broken())) as client:  # type: ignore[arg-type]
            return await client.call_tool("repos", {})

    capfd.readouterr()
    result = asyncio.run(call())
    text = result.content[0].text
    assert result.is_error and SECRET not in text and "\n" not in text
    error_id = text.split("internal error ", 1)[1][:12]
    assert f"internal error {error_id} (KeyError)" in text
    _one_logged_line(capfd.readouterr().err, error_id, debug)


@pytest.mark.parametrize("debug", ["", "1"])
def test_the_mcp_http_app_ends_a_bug_with_a_500_and_an_id(capfd: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          debug: str) -> None:
    from helix.core.server_settings import ServerSettings
    from helix.servers.mcp_server import http_app

    monkeypatch.setenv("HELIX_DEBUG", debug)

    async def transport(scope: Any, receive: Any, send: Any) -> None:
        raise KeyError(f"token {SECRET} not in table")  # the SDK's transport meets a bug

    class Server:
        def streamable_http_app(self, **kwargs: Any) -> Any:
            return transport

    app = http_app(Server(), port=8765, settings=ServerSettings())
    capfd.readouterr()
    client = TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=True)
    response = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                           headers=HOST)
    assert response.status_code == 500
    error_id = response.json()["error_id"]
    assert SECRET not in response.text and "Traceback" not in response.text
    assert f"internal error {error_id} (KeyError)" in response.text
    _one_logged_line(capfd.readouterr().err, error_id, debug)


@pytest.mark.parametrize("debug", ["", "1"])
def test_an_mcp_resource_that_meets_a_bug_is_one_line_and_an_id(
        mcp_client: Any, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        debug: str) -> None:
    # the SDK logged a 160-line traceback holding the exception's text (a secret here)
    import asyncio

    client_type, refused_type = mcp_client

    from helix.servers.mcp_server import build_server

    monkeypatch.setenv("HELIX_DEBUG", debug)

    async def read() -> str:
        async with client_type(build_server(Broken())) as client:  # type: ignore[arg-type]
            with pytest.raises(refused_type) as refused:
                await client.read_resource("helix://turn/abc")
            return str(refused.value)

    capfd.readouterr()
    text = asyncio.run(read())
    assert SECRET not in text and "\n" not in text
    error_id = text.split("internal error ", 1)[1][:12]
    assert f"internal error {error_id} (KeyError)" in text
    _one_logged_line(capfd.readouterr().err, error_id, debug)
