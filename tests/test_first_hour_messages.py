"""What a new user sees in the first hour is true and useful (issue 29): a first question
says at once that it indexes, a first index is "built" (with its size), the servers say where
they listen, a model server's HTTP 500 is the provider's error (not "could not be reached"),
citations are listed in evidence order, `helix mcp --help` names every tool, and faiss's loader
lines stay off stderr."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from helix.core.envelope import Citation
from tests.cli_helpers import run
from tests.index_fixtures import write_repo
from tests.net_helpers import free_port

ROOT = Path(__file__).resolve().parents[1]
ANSWER_REPO = ROOT / "data" / "fixtures" / "answer_repo"
QUESTION = "where is the retry policy decided?"
START_TIMEOUT_S = 60.0

sys.path.insert(0, str(ROOT / "benchmarks"))
from model_stub import ModelStub  # noqa: E402


@pytest.fixture
def no_embed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_NO_SERVER", "1")


def test_a_first_question_says_at_once_that_it_indexes_then_that_it_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        no_embed: None) -> None:
    import indexers.build

    repo = write_repo(tmp_path / "repo")
    said_before: list[str] = []
    real = indexers.build.ensure_index

    def spy(*args: Any, **kwargs: Any) -> Any:
        said_before.append(capsys.readouterr().err)  # what was printed before any indexing
        return real(*args, **kwargs)

    monkeypatch.setattr(indexers.build, "ensure_index", spy)
    code, _, err = run(["ask", QUESTION, "--dry-run", "--repo", str(repo)], capsys)
    assert code == 0
    assert said_before[0].startswith(f"helix: no index of {repo.resolve()} yet: building it")
    assert err.splitlines()[0] == "helix: index built (5 files)"
    assert "refreshed" not in said_before[0] + err
    # later: no announcement, and a change is a refresh with its count
    (repo / "pkg" / "more.py").write_text("def more():\n    return 1\n", encoding="utf-8")
    code, _, err = run(["ask", QUESTION, "--dry-run", "--repo", str(repo)], capsys)
    assert code == 0 and said_before[1] == ""
    assert err.splitlines()[0] == "helix: index refreshed (1 changed file(s))"
    code, _, err = run(["ask", QUESTION, "--dry-run", "--repo", str(repo)], capsys)
    assert code == 0 and said_before[2] == "" and "index" not in err


def test_index_note_says_built_or_refreshed() -> None:
    from helix.cli.common import index_note

    assert index_note({"refreshed": False}) is None
    assert index_note({"refreshed": True, "built_whole": True, "files_indexed": 1392,
                       "changed_files": ["a"] * 1392}) == "index built (1,392 files)"
    assert index_note({"refreshed": True, "built_whole": False,
                       "changed_files": ["a", "b"]}) == "index refreshed (2 changed file(s))"


def _first_line_of(argv: list[str], home: Path, pattern: str,
                   seen: list[str] | None = None) -> str:
    """Start `helix ARGV`, wait (bounded) for a stderr line matching `pattern`, stop it, return
    the line (and check that the server really listens there); `seen` gets every stderr line
    up to it."""
    import queue
    import threading

    env = {**os.environ, "HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false",
           "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "helix.cli.main", *argv], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    stream = proc.stderr
    threading.Thread(target=lambda: [lines.put(line) for line in stream] and None,
                     daemon=True).start()
    seen = [] if seen is None else seen
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                break
            seen.append(line)
            if re.search(pattern, line):
                address = re.search(r"http://127\.0\.0\.1:(\d+)", line)
                assert address is not None, line
                with socket.create_connection(("127.0.0.1", int(address.group(1))), timeout=5):
                    pass  # it listens where it says
                return line.rstrip("\n")
        raise AssertionError(f"no line matching {pattern!r}: {''.join(seen)}")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_helix_serve_says_where_it_listens(tmp_path: Path) -> None:
    port = free_port()
    line = _first_line_of(["serve", "--repo", str(ANSWER_REPO), "--port", str(port)],
                          tmp_path / "home", r"listens?|on http")
    assert line == (f"helix: serving {ANSWER_REPO} over HTTP (OpenAPI at /openapi.json) on "
                    f"http://127.0.0.1:{port} (Ctrl-C stops it)")


def test_helix_mcp_http_says_where_it_listens_without_the_sdks_info_lines(
        tmp_path: Path) -> None:
    """One `helix mcp --http` run, two facets: its first line of Helix's own says where it
    listens, and nothing came before it: the MCP SDK set the root logger to INFO, and its
    session manager's "StreamableHTTP session manager started" (and any library's INFO line)
    reached stderr before Helix's own line."""
    port, seen = free_port(), []
    line = _first_line_of(["mcp", "--repo", str(ANSWER_REPO), "--http", f"127.0.0.1:{port}"],
                          tmp_path / "home", r"^helix: ", seen)
    assert line == (f"helix: serving MCP (streamable HTTP) on http://127.0.0.1:{port}/mcp "
                    "(Ctrl-C stops it)")
    assert [line for line in seen if not line.startswith("helix: ")] == [], seen


def test_a_model_servers_500_is_the_providers_error_not_the_networks(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        no_embed: None) -> None:
    monkeypatch.setenv("HELIX_SYNTHESIS__RETRY_BACKOFF_S", "0")
    monkeypatch.setenv("HELIX_SYNTHESIS__MAX_RETRIES", "0")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-not-a-secret")
    reason = "The server had an error; api_key=sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
    with ModelStub(status=500, reason=reason) as stub:
        code, out, err = run(["ask", "--repo", str(ANSWER_REPO), "--model", "openai/stub",
                              "--api-base", stub.base, QUESTION], capsys)
        assert stub.requests  # the server was reached
    lines = [line for line in err.splitlines() if line.startswith("helix: the model call")]
    assert code == 3 and len(lines) == 1, err
    assert "answered HTTP 500: The server had an error" in lines[0]
    assert "could not be reached" not in lines[0] and "check the network" not in lines[0]
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in err + out  # the echoed secret is masked
    assert out.startswith("Deterministic answer (the model's answer was not used: "
                          "transport_error)")
    # a server that is not there at all is still the network's problem
    code, _, err = run(["ask", "--repo", str(ANSWER_REPO), "--model", "openai/stub",
                        "--api-base", f"http://127.0.0.1:{free_port()}/v1", QUESTION], capsys)
    lines = [line for line in err.splitlines() if line.startswith("helix: the model call")]
    assert code == 3 and "could not be reached: check the network and --api-base" in lines[0]


def _citation(ref: str) -> Citation:
    return Citation(ref=ref, evidence_id=ref.lower(), path=f"{ref}.py", start_line=1,
                    end_line=2)


def test_citations_are_listed_in_evidence_order(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        no_embed: None) -> None:
    from helix.cli.common import citations_in_order

    mentioned = [_citation("E3"), _citation("E1"), _citation("E10"), _citation("E2")]
    assert [c.ref for c in citations_in_order(mentioned)] == ["E1", "E2", "E3", "E10"]
    # the real answer path: the deterministic answer mentions its lead first
    code, out, _ = run(["ask", "--repo", str(ANSWER_REPO), QUESTION], capsys)
    listed = re.findall(r"^  \[(E\d+)\]", out.split("\ncitations\n", 1)[1], re.MULTILINE)
    assert code == 0 and len(listed) >= 2
    assert listed == sorted(listed, key=lambda ref: int(ref[1:]))


def test_mcp_help_names_every_tool(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from helix.cli.main import cli
    from helix.servers.mcp_server import build_server
    from helix.servers.workspace import Workspace

    (tmp_path / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    workspace = Workspace([tmp_path])
    try:
        tools = [t.name for t in asyncio.run(build_server(workspace).list_tools())]
    finally:
        workspace.close()
    assert "repos" in tools
    shown = " ".join(CliRunner().invoke(cli, ["mcp", "--help"]).output.split())
    listed = re.search(r"Serve Helix's tools \(([^)]*)\)", shown)
    assert listed is not None
    assert sorted(listed.group(1).split(", ")) == sorted(tools)


def test_faiss_loader_lines_stay_off_stderr_under_an_info_logger() -> None:
    """A server configures logging at INFO (the MCP SDK does); faiss then announced which CPU
    build it loads (AVX512, AVX2...) on every start."""
    code = ("import logging; logging.basicConfig(level=logging.INFO)\n"
            "import numpy as np\n"
            "from indexers.dense import DenseIndex\n"
            "index = DenseIndex.build(['a'], np.ones((1, 4), dtype=np.float32))\n"
            "print(index.search(np.ones(4, dtype=np.float32), 1))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "[('a'," in done.stdout
    assert "faiss" not in done.stderr, done.stderr
