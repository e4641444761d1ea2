"""`drift` and `stale_docs` over MCP (the SDK's client, stdio) and HTTP, scoped to the served
repositories (issue 34)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from helix.core.config import load_config
from helix.servers.http_api import create_app
from helix.servers.workspace import Workspace
from helix.service import ask
from tests import change_fixtures as cf

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py

HOST = {"Host": "127.0.0.1:8765"}


def _changed_repo(tmp_path: Path, name: str = "one") -> Path:
    place = tmp_path / name
    place.mkdir()
    repo, shas = cf.build(place)
    config = load_config(repo)
    for question in (cf.QUESTIONS["default"], cf.QUESTIONS["headers"]):
        ask(question, root=repo, config=config, dry_run=True)
    cf.change(repo, shas)
    return repo


def _one_line(text: str) -> str:
    assert "\n" not in text and "Traceback" not in text
    return text


async def _mcp(repo: Path, home: Path) -> None:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "import sys; from helix.cli.main import main; sys.exit(main())", "mcp",
              "--repo", str(repo)],
        env={"HELIX_HOME": str(home), "PATH": os.environ.get("PATH", ""),
             "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"drift", "stale_docs"} <= set(tools)
        assert "description" in tools["drift"].input_schema["properties"]["questions"]
        result = await client.call_tool("drift", {})
        assert not result.is_error, result.content
        report = result.structured_content or json.loads(result.content[0].text)
        assert report["counts"]["changed"] == 1 and report["counts"]["moved"] == 1
        assert not report["failed"]  # the run log's questions never fail a run
        pinned = await client.call_tool("drift", {"questions": [cf.QUESTIONS["headers"]]})
        data = pinned.structured_content or json.loads(pinned.content[0].text)
        assert data["pinned"] and data["failed"]
        stale = await client.call_tool("stale_docs", {"paths": ["docs"]})
        data = stale.structured_content or json.loads(stale.content[0].text)
        assert [s["heading"][-1] for s in data["stale"]] == ["Timeouts", "Backoff"]
        bad = await client.call_tool("stale_docs", {"paths": ["../../etc"]})
        assert bad.is_error and "outside the repository" in _one_line(bad.content[0].text)
        gone = await client.call_tool("drift", {"repo": "/etc"})
        assert gone.is_error and "not served" in _one_line(gone.content[0].text)


@pytest.mark.slow
def test_drift_and_stale_docs_over_mcp(tmp_path: Path, helix_home: Path) -> None:
    repo = _changed_repo(tmp_path)
    asyncio.run(_mcp(repo, helix_home))


def test_drift_and_stale_docs_over_http_see_only_the_served_repository(
        tmp_path: Path) -> None:
    served, other = _changed_repo(tmp_path, "one"), _changed_repo(tmp_path, "two")
    client = TestClient(create_app(Workspace([served])), base_url="http://127.0.0.1:8765",
                        raise_server_exceptions=False)
    client.headers.update(HOST)
    report = client.post("/drift", json={}).json()
    assert len(report["questions"]) == 2 and report["repo_root"] == str(served)
    assert report["counts"]["changed"] == 1  # the other repository's runs are not here
    since = client.post("/drift", json={"since": "2999-01-01"}).json()
    assert since["questions"] == []
    stale = client.post("/stale_docs", json={"baseline": []}).json()
    assert len(stale["stale"]) == 2
    keys = [s["key"] for s in stale["stale"]]
    quiet = client.post("/stale_docs", json={"baseline": keys}).json()
    assert quiet["stale"] == [] and quiet["acknowledged"] == 2
    for route, body, says in (("/stale_docs", {"paths": [str(other)]}, "outside"),
                              ("/drift", {"repo": str(other)}, "not served"),
                              ("/drift", {"since": "yesterday-ish"}, "neither a date")):
        response = client.post(route, json=body)
        assert response.status_code in (400, 404), response.text
        assert says in _one_line(response.json()["error"])
