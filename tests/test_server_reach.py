"""A server answers only about what it serves, and only to whom it is addressed: runs, exports
and run resources of other repositories (the run log under $HELIX_HOME is shared) are not
there for its clients; without a token, a request whose Host or Origin is not this loopback
server is refused (DNS rebinding); a text a client sends that no path can hold (a NUL, text
that is not UTF-8) is a one-line 400 or tool error; a burst of first questions at a repository
never indexed gets answers or 503, never an error."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from helix.core.server_settings import ServerSettings
from helix.servers.http_api import create_app
from helix.servers.workspace import Workspace

REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
HOST = {"Host": "127.0.0.1:8765"}


def _client(workspace: Any, **kwargs: Any) -> TestClient:
    """The HTTP app as a loopback server on port 8765 sees it (TestClient's own Host,
    `testserver`, is not one)."""
    client = TestClient(create_app(workspace, **kwargs), base_url="http://127.0.0.1:8765",
                        raise_server_exceptions=False)
    client.headers.update(HOST)
    return client


def _error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    return str(message)


@pytest.fixture
def two_repos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
              ) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """Repositories A and B, each asked once through the CLI's entry point, in this process
    (one $HELIX_HOME): the run ids by repository."""
    from helix.cli.main import main

    home = tmp_path / "home"
    monkeypatch.setenv("HELIX_HOME", str(home))
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_NO_SERVER", "1")
    runs: dict[str, str] = {}
    roots = []

    def helix(*args: str) -> str:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as exc:
                assert not exc.code, err.getvalue()
        return out.getvalue()

    for name, question in (("alpha", "where is the BM25 index built?"),
                           ("beta", "what does the search engine do? beta-only-question")):
        root = tmp_path / name
        shutil.copytree(REPO, root)
        helix("ask", question, "--repo", str(root), "--dry-run")
        runs[name] = json.loads(helix("log", "--json"))[0]["id"]
        roots.append(root.resolve())
    yield roots[0], roots[1], runs


def test_a_server_shows_only_the_runs_and_exports_of_its_repositories(
        two_repos: tuple[Path, Path, dict[str, str]]) -> None:
    alpha, _, runs = two_repos
    client = _client(Workspace([alpha]))
    listed = [run["id"] for run in client.get("/runs").json()["runs"]]
    assert listed == [runs["alpha"]]
    assert client.get(f"/runs/{runs['alpha']}").json()["repo_root"] == str(alpha)
    # the other repository's run: not found, worded as for an id that never existed
    assert _error(client.get(f"/runs/{runs['beta']}"), 404) == f"no such turn: {runs['beta']}"
    assert _error(client.get(f"/runs/{runs['beta'][:6]}"), 404).startswith("no such turn")
    assert _error(client.get("/runs/0000ffff0000"), 404) == "no such turn: 0000ffff0000"
    assert client.get("/runs/last").json()["id"] == runs["alpha"]
    exported = client.post("/export", json={"answer_modes": ["dry_run"],
                                            "include_diagnostic": True})
    assert exported.status_code == 200, exported.text
    text = json.dumps(exported.json())
    assert "beta-only-question" not in text and exported.json()["records"]
    assert exported.json()["report"]["considered"] == 1


def test_an_mcp_server_resolves_only_its_repositories_runs(
        two_repos: tuple[Path, Path, dict[str, str]]) -> None:
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    from helix.servers.mcp_server import build_server

    alpha, _, runs = two_repos

    async def read(turn: str) -> Any:
        async with Client(build_server(Workspace([alpha]))) as client:
            try:
                return await client.read_resource(f"helix://turn/{turn}")
            except MCPError as exc:
                return exc

    record = json.loads(asyncio.run(read(runs["alpha"])).contents[0].text)
    assert record["question"] == "where is the BM25 index built?"
    refused = asyncio.run(read(runs["beta"]))
    assert isinstance(refused, MCPError), refused
    assert str(refused) == f"no such turn: {runs['beta']}"


class NoWork:
    """Nothing behind the app: what is under test is in front of it."""

    def describe(self) -> list[dict[str, str]]:
        return [{"name": "repo", "path": "/repo"}]


@pytest.mark.parametrize("headers", [
    {"Host": "evil.example"},  # a rebinding page's name, resolved to 127.0.0.1
    {"Host": "evil.example:8765"},
    {"Host": "localhost:9999"},  # a loopback name, another port
    {"Host": "127.0.0.1:8765", "Origin": "http://evil.example"},
    {"Host": "127.0.0.1:8765", "Origin": "http://localhost:3000"},
    {"Host": "127.0.0.1:8765", "Origin": "null"},
])
def test_without_a_token_only_requests_addressed_to_this_server_are_answered(
        headers: dict[str, str]) -> None:
    client = _client(NoWork())
    message = _error(client.get("/repos", headers=headers), 403)
    named = "Origin" if "Origin" in headers else "Host"
    assert ("cross-origin" if named == "Origin" else "addressed to it") in message
    assert client.get("/health", headers=headers).status_code == 403


@pytest.mark.parametrize("headers", [
    {"Host": "127.0.0.1:8765"}, {"Host": "localhost:8765"}, {"Host": "[::1]:8765"},
    {"Host": "LOCALHOST:8765", "Origin": "http://localhost:8765"},
    {"Host": "127.0.0.1:8765", "Origin": "http://127.0.0.1:8765"},
])
def test_loopback_requests_are_answered(headers: dict[str, str]) -> None:
    assert _client(NoWork()).get("/repos", headers=headers).status_code == 200


def test_allowed_hosts_and_origins_come_from_the_config() -> None:
    settings = ServerSettings(allowed_hosts=("helix.lan",),
                              allowed_origins=("http://tools.lan:8080",))
    client = _client(NoWork(), settings=settings)
    assert client.get("/repos", headers={"Host": "helix.lan"}).status_code == 200
    assert client.get("/repos", headers={"Host": "helix.lan:8765"}).status_code == 200
    assert client.get("/repos", headers={"Host": "helix.lan:1"}).status_code == 403
    assert client.get("/repos", headers={"Origin": "http://tools.lan:8080"}).status_code == 200


def test_with_a_token_any_host_may_ask() -> None:
    """Beyond loopback a token is required; a browser cannot send it, so Host is free."""
    token = "t" * 20
    client = _client(NoWork(), token=token)
    assert client.get("/repos", headers={"Host": "helix.example"}).status_code == 401
    assert client.get("/repos", headers={"Host": "helix.example",
                                         "Authorization": f"Bearer {token}"}).status_code == 200


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    root = tmp_path / "repo"
    shutil.copytree(REPO, root)
    return root


BAD_TEXT = [("/open_span", {"path": "search/bm25.py\u0000"}, "path"),
            ("/open_span", {"path": "a" * 5000}, "File name too long"),
            ("/open_span", {"path": "search/bm25.py", "repo": "a\u0000b"}, "repository"),
            ("/ask", {"question": "where?", "scope": "search\u0000/"}, "scope"),
            ("/ask", {"question": "where?", "repo": "x\u0000"}, "repository"),
            ("/ask", {"question": "where?", "repo": ["x\u0000"]}, "repository"),
            ("/ask", {"question": "where?", "sense": "a\u0000"}, "sense"),
            ("/search", {"query": "bm25\u0000"}, "query"),
            ("/index", {"repo": "\u0000"}, "repository")]


def test_text_no_path_can_hold_is_a_one_line_400(repo: Path) -> None:
    client = _client(Workspace([repo]))
    for route, body, named in BAD_TEXT:
        assert named in _error(client.post(route, json=body), 400), (route, body)
    raw = b'{"path": "search/bm25.py", "repo": "\\ud800"}'  # a lone surrogate, JSON-escaped
    assert "not valid UTF-8" in _error(client.post(
        "/open_span", content=raw, headers={"Content-Type": "application/json"}), 400)
    for route in ("/find", "/callers", "/tests"):
        assert "NUL" in _error(client.get(route, params={"symbol": "a\u0000b"}), 400)
    assert "NUL" in _error(client.get("/status", params={"repo": "a\u0000b"}), 400)


def test_an_mcp_tool_given_a_nul_is_a_one_line_tool_error(repo: Path) -> None:
    from mcp.client import Client

    from helix.servers.mcp_server import build_server

    async def call() -> list[str]:
        async with Client(build_server(Workspace([repo]))) as client:
            out = []
            for tool, args in (("open_span", {"path": "search/bm25.py\u0000"}),
                               ("find", {"symbol": "a\u0000"}),
                               ("ask", {"question": "where?", "scope": "a\u0000"})):
                result = await client.call_tool(tool, args)
                assert result.is_error, (tool, result)
                out.append(result.content[0].text)
            return out

    for text in asyncio.run(call()):
        assert "NUL" in text and "\n" not in text and "internal error" not in text


def test_a_flood_of_first_questions_at_a_fresh_repository_is_answered_or_busy(
        repo: Path) -> None:
    """Twelve first questions at once, eight at a time at most, at a repository never
    indexed: each is answered or told to retry (503), none meets a half-built index (before:
    400 "it holds .helix-index.tmp" and 500 FileNotFoundError, in every burst)."""
    client = _client(Workspace([repo]), max_concurrent=8)

    def ask(n: int) -> tuple[int, str]:
        response = client.post("/ask", json={"question": f"where is the BM25 index built? {n}"})
        return response.status_code, response.text

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        answered = list(pool.map(ask, range(12)))
    codes = sorted(code for code, _ in answered)
    assert set(codes) <= {200, 503} and 200 in codes, answered


def test_a_span_of_a_file_larger_than_the_index_reads_is_refused(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a request cannot make the server read and mask a file of any size
    monkeypatch.setenv("HELIX_MAX_FILE_BYTES", "4096")
    (repo / "huge.log").write_bytes(b"line\n" * 2000)  # 10,000 bytes
    client = _client(Workspace([repo]))
    message = _error(client.post("/open_span", json={"path": "huge.log"}), 400)
    assert "more than index.max_file_bytes (4,096)" in message
    assert client.post("/open_span", json={"path": "search/bm25.py"}).status_code == 200
