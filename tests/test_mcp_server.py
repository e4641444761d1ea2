"""`helix mcp` through the MCP SDK's own client over stdio: the tools are listed with their
schemas and each one answers; a bad argument, a repository not served and a missing file come
back as tool errors with one line (the server goes on); two sessions interleave; a run is a
resource."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
TOOLS = {"ask", "search", "find", "open_span", "callers", "tests", "status", "index", "repos",
         "drift", "stale_docs"}


def _params(repo: Path, home: Path) -> Any:
    from mcp.client.stdio import StdioServerParameters

    env = {"HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false",
           "PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", "import sys; from helix.cli.main import main; sys.exit(main())", "mcp",
              "--repo", str(repo)], env=env)


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content  # type: ignore[no-any-return]
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


def _error(result: Any) -> str:
    assert result.is_error
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text
    return text  # type: ignore[no-any-return]


async def _session(repo: Path, home: Path) -> None:
    from mcp.client import Client

    async with Client(_params(repo, home)) as client:
        listed = await client.list_tools()
        names = {tool.name for tool in listed.tools}
        assert names == TOOLS
        ask_tool = next(t for t in listed.tools if t.name == "ask")
        schema = ask_tool.input_schema
        assert schema["required"] == ["question"]
        assert "description" in schema["properties"]["dry_run"]

        answer = _data(await client.call_tool("ask", {"question": "where is the BM25 index "
                                                                  "built?"}))
        assert answer["answer_mode"] == "dry_run" and answer["citations"]
        assert answer["envelope"]["llm_steps"] == 0 and answer["item_hashes"]
        cited = answer["citations"][0]["path"]

        hits = _data(await client.call_tool("search", {"query": "BM25 index", "k": 3}))
        assert hits["hits"] and hits["hits"][0]["path"]
        found = _data(await client.call_tool("find", {"symbol": "build_bm25_index"}))
        assert found["definitions"][0]["path"] == "search/bm25.py"
        span = _data(await client.call_tool("open_span", {"path": cited, "start": 1, "end": 3}))
        assert span["path"] == cited and span["text"]
        calls = _data(await client.call_tool("callers", {"symbol": "build_bm25_index"}))
        assert calls["calls"] == sum(len(c["sites"]) for c in calls["callers"])
        tested = _data(await client.call_tool("tests", {"symbol": "build_bm25_index"}))
        assert isinstance(tested["tests"], list)
        assert "fresh" in _data(await client.call_tool("status", {}))
        assert _data(await client.call_tool("repos", {}))["repos"][0]["name"] == repo.name
        assert "files_indexed" in _data(await client.call_tool("index", {}))

        # errors: one line each, and the server answers the next call
        assert "k" in _error(await client.call_tool("search", {"query": "x", "k": 0}))
        assert "not served" in _error(await client.call_tool(
            "ask", {"question": "where?", "repo": "/etc"}))
        assert "not a file inside" in _error(await client.call_tool(
            "open_span", {"path": "../../etc/passwd"}))
        assert "no definition matches" in _error(await client.call_tool(
            "find", {"symbol": "zzz_no_such_symbol_qq"}))
        # a session name another repository holds: one line, no path of that repository
        theirs = _error(await client.call_tool("ask", {"question": "where?", "session": "theirs"}))
        assert "belongs to another repository" in theirs and "elsewhere-private" not in theirs

        # two sessions interleaved: each follow-up binds to its own session's list
        first = _data(await client.call_tool("ask", {"question": "where is the BM25 index "
                                                                 "built?", "session": "a"}))
        second = _data(await client.call_tool("ask", {"question": "what is the search "
                                                                  "engine?", "session": "b"}))
        opened_a = _data(await client.call_tool("ask", {"question": "open the first one",
                                                        "session": "a"}))
        opened_b = _data(await client.call_tool("ask", {"question": "open the first one",
                                                        "session": "b"}))
        assert opened_a["opened"]["target"]["id"] == first["shown"]["items"][0]["target_id"]
        assert opened_b["opened"]["target"]["id"] == second["shown"]["items"][0]["target_id"]

        run = await client.read_resource(f"helix://turn/{answer['run_id']}")
        record = json.loads(run.contents[0].text)
        assert record["question"] == "where is the BM25 index built?"
        assert "prompt" not in record


@pytest.mark.slow
def test_the_sdk_client_over_stdio_calls_every_tool(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    other = tmp_path / "elsewhere-private"
    shutil.copytree(REPO, other)
    env = {**os.environ, "HELIX_HOME": str(tmp_path / "home"),
           "HELIX_INDEX__EMBED_ENABLED": "false"}
    held = subprocess.run([sys.executable, "-m", "helix.cli.main", "ask", "where?", "--repo",
                           str(other), "--session", "theirs", "--dry-run"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert held.returncode == 0, held.stderr
    asyncio.run(_session(repo, tmp_path / "home"))
