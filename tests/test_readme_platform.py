"""The README's commands for a platform team (its "For an organisation" section), run as
written on the real engines (a local Ray cluster and a PostgreSQL from `tests.engines`): the
index command registers the repositories where the replicas and the engineers' `helix ask`
read them, a replica answers across a group, and `helix ask --repos GROUP` does too.

Only the placeholders are replaced: the Ray head's address by `local` (the session's cluster),
the database URL by the test's database, the shared store root by a temporary directory, the
token by a test token, `--host 0.0.0.0` by loopback with a free port; embeddings are off (no
model in the tests). Environment a line sets (`export`, `VAR=value command`) is what the
command gets: the test's own HELIX_DATABASE_URL is removed first."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cli_helpers import run

from tests.net_helpers import free_port

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FIXTURES = ROOT / "data" / "fixtures"
TOKEN = "platform-token-0123456789abcdef"
PLACEHOLDER_URL = "postgresql://helix@db/helix"


def platform_commands() -> list[str]:
    """The first code block of the README's organisation section, continuation lines joined."""
    section = README.read_text(encoding="utf-8").split("## For an organisation", 1)[1]
    block = section.split("```", 2)[1].split("\n", 1)[1]
    return [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def _words(line: str, store: Path, url: str, port: int) -> list[str]:
    out: list[str] = []
    for word in shlex.split(line, comments=True):
        word = word.replace("HELIX_SERVE_TOKEN=...", f"HELIX_SERVE_TOKEN={TOKEN}")
        word = word.replace(PLACEHOLDER_URL, url).replace("/shared/helix", str(store))
        out += {"HEAD:6379": ["local"], "0.0.0.0": ["127.0.0.1", "--port", str(port)]
                }.get(word, [word])
    return out


@pytest.mark.slow
def test_the_readme_platform_commands_work_together(
        ray_session: object, database_url: str, tmp_path: Path, helix_home: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("HELIX_DATABASE_URL")  # only what the README's lines set
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    src = tmp_path / "src"
    for name in ("continuity_repo", "answer_repo"):
        shutil.copytree(FIXTURES / name, src / name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repos.toml").write_text(
        f'[[repo]]\nname = "search"\npath = "{src / "continuity_repo"}"\ngroup = "payments"\n'
        f'[[repo]]\nname = "fetchy"\npath = "{src / "answer_repo"}"\ngroup = "payments"\n',
        encoding="utf-8")
    store, port = tmp_path / "shared", free_port()
    lines = platform_commands()
    commands = [line for line in lines if not line.startswith("export ")]
    assert [shlex.split(c)[[w.startswith("helix") for w in shlex.split(c)].index(True) + 1]
            for c in commands] == ["index", "serve", "ask"]
    server = None
    try:
        for line in lines:
            words = _words(line, store, database_url, port)
            env = {}
            if words[0] == "export":
                for pair in words[1:]:
                    name, value = pair.split("=", 1)
                    monkeypatch.setenv(name, value)
                continue
            while "=" in words[0]:
                name, value = words.pop(0).split("=", 1)
                env[name] = value
            assert words[0] == "helix", line
            if words[1] == "serve":
                server = subprocess.Popen(
                    [sys.executable, "-m", "helix.cli.main", *words[1:]],
                    env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                _ready(server, port)
                asked = httpx.post(f"http://127.0.0.1:{port}/ask", timeout=300, headers={
                    "Authorization": f"Bearer {TOKEN}"}, json={
                    "question": "where is the BM25 index built?", "repos": "payments",
                    "dry_run": True})
                assert asked.status_code == 200, asked.text
                routing = asked.json()["envelope"]["repo_routing"]
                assert routing["searched"][0]["name"] == "search"
                continue
            with monkeypatch.context() as scoped:
                for name, value in env.items():
                    scoped.setenv(name, value)
                code, out, err = run([*words[1:], "--json"] if words[1] == "ask" else
                                     words[1:], capsys)
            assert code == 0, f"{line}: {err}"
            if words[1] == "index":
                assert "2 indexed, 0 failed (ray)" in out
            if words[1] == "ask":
                routing = json.loads(out)["repo_routing"]
                assert routing["group"] == "payments" and routing["considered"] == 2
    finally:
        if server is not None:
            server.kill()
            server.communicate()
    assert server is not None
    assert not (helix_home / "helix.sqlite").exists()  # every state went to PostgreSQL


def _ready(server: subprocess.Popen[str], port: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and server.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.2)
    server.kill()
    pytest.fail(f"the replica did not start: {server.communicate()[1][-2000:]}")
