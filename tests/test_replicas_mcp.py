"""Replicas of `helix mcp --http` (the MCP SDK's streamable HTTP), as `tests/test_replicas.py`
does for `helix serve`: two real processes, each with its own HELIX_HOME, on one real
PostgreSQL. A conversation whose turns alternate between them goes as on one, turns of one
session sent to both at once run one after the other (none refused, lost or interleaved), and a
question across the registered group (`repos`) is routed alike by either."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from tests.net_helpers import free_port
from tests.talk_fixtures import FIXTURE
from tests.test_replicas import TALK, _same


def _start(repo: Path, home: Path, url: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    env = {**os.environ, "HELIX_HOME": str(home), "HELIX_DATABASE_URL": url,
           "HELIX_INDEX__EMBED_ENABLED": "false"}
    process = subprocess.Popen(
        [sys.executable, "-m", "helix.cli.main", "mcp", "--repo", str(repo), "--repos", "all",
         "--http", f"127.0.0.1:{port}"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.2)
    process.kill()
    pytest.fail(f"helix mcp --http did not start: {process.communicate()[1][-2000:]}")


@pytest.fixture
def mcp_replicas(tmp_path: Path, database_url: str) -> Iterator[tuple[str, str]]:
    from helix.cluster.fleet import index_fleet
    from helix.cluster.repos_file import RepoSource

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    shutil.copytree(ANSWER_REPO, tmp_path / "fetchy")
    index_fleet([RepoSource(name="search", path=str(repo), group="g"),
                 RepoSource(name="fetchy", path=str(tmp_path / "fetchy"), group="g")],
                cluster=None, store_root=tmp_path / "store",
                flags={"index.embed_enabled": False})  # registered in the shared database
    started = [_start(repo, tmp_path / f"home-{n}", database_url) for n in ("a", "b")]
    try:
        yield started[0][1], started[1][1]
    finally:
        for process, _ in started:
            process.kill()
            process.communicate()


ANSWER_REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "answer_repo"


async def _turn(url: str, session: str | None, text: str, **more: str) -> dict[str, Any]:
    from mcp.client import Client

    asked = {"question": text, "dry_run": True, **more}
    async with Client(url) as client:
        result = await client.call_tool("ask", {**asked, **({"session": session}
                                                            if session else {})})
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


@pytest.mark.slow
def test_mcp_replicas_share_a_conversation_and_serialize_its_turns(
        mcp_replicas: tuple[str, str], database_url: str) -> None:
    a, b = mcp_replicas

    async def talk() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        alone = [await _turn(b, "alone", text) for text in TALK]
        mixed = [await _turn(a if n % 2 == 0 else b, "mixed", text)
                 for n, text in enumerate(TALK)]
        return alone, mixed

    alone, mixed = anyio.run(talk)
    assert [t["turn_id"] for t in mixed] == [1, 2, 3, 4]
    assert [_same(t) for t in mixed] == [_same(t) for t in alone]

    texts = [f"where is the BM25 index built? ({n})" for n in range(6)]
    replies: list[dict[str, Any]] = []

    async def at_once() -> None:
        async def one(n: int, text: str) -> None:
            replies.append(await _turn(a if n % 2 else b, "busy", text))

        async with anyio.create_task_group() as group:
            for n, text in enumerate(texts):
                group.start_soon(one, n, text)

    anyio.run(at_once)
    assert sorted(r["turn_id"] for r in replies) == [1, 2, 3, 4, 5, 6]
    with psycopg.connect(database_url) as conn:
        stored = conn.execute(
            "SELECT t.turn_id, t.user_text FROM turns t JOIN sessions s ON s.id = t.session_id"
            " WHERE s.name = 'busy' ORDER BY t.turn_id").fetchall()
    assert [n for n, _ in stored] == [1, 2, 3, 4, 5, 6]
    assert {n: text for n, text in stored} == {r["turn_id"]: r["text"] for r in replies}

    async def across() -> list[dict[str, Any]]:
        return [await _turn(url, None, "where is the retry policy decided?", repos="g")
                for url in (a, b)]

    for answer in anyio.run(across):
        routing = answer["envelope"]["repo_routing"]
        assert routing["group"] == "g" and routing["considered"] == 2
        assert routing["searched"][0]["name"] == "fetchy"
        assert answer["envelope"]["evidence"][0]["path"].startswith("fetchy:")
