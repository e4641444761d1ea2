"""Replicas: two real `helix serve` processes, each with its own HELIX_HOME (as two machines
would have), sharing one real PostgreSQL (HELIX_DATABASE_URL). A conversation whose turns
alternate between them goes as it goes on one; turns of one session sent to both at once run
one after the other (none refused, none lost, none interleaved); a replica killed in the
middle of a turn loses nothing it had acknowledged, its pending run reads as interrupted on
the other, and the conversation goes on there."""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.net_helpers import free_port
from tests.talk_fixtures import FIXTURE, Q

TOKEN = "replica-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TALK = [Q, "open the second one", "who calls it?", "open the first one"]
ROOT = "how does the search engine rank documents?"  # a root question: it calls the model


class Replica:
    def __init__(self, repo: Path, home: Path, url: str, extra: dict[str, str]) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "HELIX_HOME": str(home), "HELIX_DATABASE_URL": url,
               "HELIX_INDEX__EMBED_ENABLED": "false", "HELIX_SERVE_TOKEN": TOKEN, **extra}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "helix.cli.main", "serve", "--repo", str(repo), "--port",
             str(self.port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        self.process.kill()
        pytest.fail(f"a replica did not start: {self.process.communicate()[1][-2000:]}")

    def turn(self, session: str, text: str, *, dry_run: bool = True) -> httpx.Response:
        return httpx.post(f"{self.base}/ask", headers=AUTH, timeout=300, json={
            "question": text, "session": session, "dry_run": dry_run})

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()


@pytest.fixture
def replicas(tmp_path: Path, database_url: str) -> Iterator[tuple[Replica, Replica, Any]]:
    silent = socket.socket()  # replica A's model: accepts and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    a = Replica(repo, tmp_path / "home-a", database_url, {
        "HELIX_MODEL": "openai/gpt-4o-mini", "OPENAI_API_KEY": "sk-test-not-a-key",
        "HELIX_API_BASE": f"http://127.0.0.1:{silent.getsockname()[1]}/v1"})
    b = Replica(repo, tmp_path / "home-b", database_url, {})
    try:
        a.wait_ready()
        b.wait_ready()
        yield a, b, database_url
    finally:
        a.stop()
        b.stop()
        silent.close()


_VARIES = {"session", "session_id", "created_at", "events", "timings_ms", "run_id"}


def _same(value: Any) -> Any:
    """A turn without what names its session or its moment (at any depth)."""
    if isinstance(value, dict):
        return {k: _same(v) for k, v in value.items()
                if k not in _VARIES and not k.endswith("_hash")}
    if isinstance(value, list):
        return [_same(v) for v in value]
    return value


@pytest.mark.slow
def test_replicas_share_conversations_serialize_turns_and_survive_a_kill(
        replicas: tuple[Replica, Replica, Any]) -> None:
    import psycopg

    a, b, url = replicas
    # one conversation on one replica, the same one alternating between the two
    alone = [b.turn("alone", text).json() for text in TALK]
    mixed = [(a if n % 2 == 0 else b).turn("mixed", text).json()
             for n, text in enumerate(TALK)]
    assert [t["turn_id"] for t in mixed] == [1, 2, 3, 4]
    assert [_same(t) for t in mixed] == [_same(t) for t in alone]

    # turns of one session sent to both replicas at once: serialized, none refused or lost
    texts = [f"where is the BM25 index built? ({n})" for n in range(6)]
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda nt: (a if nt[0] % 2 else b).turn("busy", nt[1]),
                                enumerate(texts)))
    assert [r.status_code for r in answers] == [200] * 6, [r.text for r in answers]
    assert sorted(r.json()["turn_id"] for r in answers) == [1, 2, 3, 4, 5, 6]
    with psycopg.connect(url) as conn:
        stored = conn.execute(
            "SELECT t.turn_id, t.user_text FROM turns t JOIN sessions s ON s.id = t.session_id"
            " WHERE s.name = 'busy' ORDER BY t.turn_id").fetchall()
        count = conn.execute("SELECT turn_count FROM sessions WHERE name = 'busy'").fetchone()
    assert [n for n, _ in stored] == [1, 2, 3, 4, 5, 6] and count == (6,)
    assert sorted(text for _, text in stored) == sorted(texts)
    by_turn = {r.json()["turn_id"]: r.json()["text"] for r in answers}
    assert {n: text for n, text in stored} == by_turn  # each reply is the turn it stored

    # replica A is killed while its turn waits for the model: what was acknowledged stays
    assert a.turn("kill", Q).status_code == 200
    assert b.turn("kill", "open the second one").status_code == 200
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        stalled = pool.submit(a.turn, "kill", ROOT, dry_run=False)
        deadline, pending = time.monotonic() + 120, None
        while pending is None and time.monotonic() < deadline and not stalled.done():
            time.sleep(0.2)
            with psycopg.connect(url) as conn:
                pending = conn.execute("SELECT id FROM runs WHERE status = 'pending' AND"
                                       " prompt_json IS NOT NULL").fetchone()
        assert pending is not None, "replica A never reached the model call"
        a.process.send_signal(signal.SIGKILL)
        a.process.wait(30)
        with pytest.raises(httpx.TransportError):
            stalled.result(timeout=60)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        runs = {r["id"]: r["status"] for r in httpx.get(
            f"{b.base}/runs", params={"limit": 100}, headers=AUTH).json()["runs"]}
        if runs[pending[0]] == "interrupted":
            break
        time.sleep(0.2)
    assert runs[pending[0]] == "interrupted"
    went_on = b.turn("kill", ROOT).json()
    assert went_on["turn_id"] == 3 and went_on["transition"] == "T1"
    with psycopg.connect(url) as conn:
        kept = conn.execute(
            "SELECT t.turn_id, t.user_text FROM turns t JOIN sessions s ON s.id = t.session_id"
            " WHERE s.name = 'kill' ORDER BY t.turn_id").fetchall()
    assert kept == [(1, Q), (2, "open the second one"), (3, ROOT)]
