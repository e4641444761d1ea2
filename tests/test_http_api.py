"""`helix serve` as a user runs it: a real uvicorn on a loopback port, a real HTTP client. The
token is checked, the API answers with the CLI's item hashes, bad requests and repositories not
served are one-line errors, a burst past the concurrency bound gets 503 with Retry-After (never
a 500), and SIGTERM stops the server cleanly.

Two server processes for the module (module fixtures, each test on the same running server):
the plain one answers the API checks and the session turns, then `helix serve --stop` stops
it; the one whose configuration names the test model streams, then SIGTERM stops it. The
`helix` commands the checks run are the real entry point in this process (`cli_helpers.run`):
the server is the process under test."""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.cli_helpers import run
from tests.net_helpers import free_port

REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
TOKEN = "test-token-0123456789abcdef"
QUESTION = "where is the BM25 index built?"


ENV = {"HELIX_INDEX__EMBED_ENABLED": "false", "HELIX_SERVE_TOKEN": TOKEN}
START_S = 120.0


@dataclass
class Server:
    base: str
    repo: Path
    home: Path
    process: subprocess.Popen[str]
    stderr: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None  # collects `stderr`; done when the process exits

    def reap_when_it_exits(self) -> None:
        """Wait for the process in a thread: a stopped child of this process stays a zombie
        (which `helix serve --stop` would take for a live server) until it is waited for."""
        threading.Thread(target=self.process.wait, daemon=True).start()

    def stderr_after_exit(self) -> str:
        assert self.process.poll() is not None and self.reader is not None
        self.reader.join(timeout=30)
        return "".join(self.stderr)


def _helix(argv: list[str], server: Server, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str], **extra: str) -> tuple[int, str, str]:
    """The real `helix` entry point, in this process, in the server's home."""
    with monkeypatch.context() as env:
        for key, value in {**ENV, "HELIX_HOME": str(server.home), **extra}.items():
            env.setenv(key, value)
        return run(argv, capsys)


def _index(repo: Path, home: Path) -> None:
    """The served index, built in this process (the server is what is tested)."""
    from helix.cli.main import main

    with pytest.MonkeyPatch.context() as env:
        env.setenv("HELIX_HOME", str(home))
        env.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
        try:
            main(["index", str(repo)])
        except SystemExit as exc:
            assert not exc.code, exc.code


def _served(directory: Path, extra: dict[str, str] | None = None) -> Iterator[Server]:
    repo, home = directory / "repo", directory / "home"
    shutil.copytree(REPO, repo)
    _index(repo, home)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELIX_")}
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from helix.cli.main import main; sys.exit(main())",
         "serve", "--repo", str(repo), "--port", str(port), "--max-concurrent", "1"],
        env={**env, **ENV, "HELIX_HOME": str(home), "HELIX_SYNTHESIS__MODEL_HELPER": "off",
             **(extra or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    server = Server(f"http://127.0.0.1:{port}", repo, home, process)
    listening = threading.Event()

    def read_stderr() -> None:  # its "listening" line is the readiness signal; kept whole
        assert process.stderr is not None
        for line in process.stderr:
            server.stderr.append(line)
            if line.startswith("helix: serving ") and server.base in line:
                listening.set()
        listening.set()  # it exited: the wait below ends at once

    server.reader = reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    if not listening.wait(START_S) or process.poll() is not None:
        process.kill()
        pytest.fail(f"the server did not start: {''.join(server.stderr)[-2000:]}")
    assert httpx.get(f"{server.base}/health", timeout=5).status_code == 200
    yield server
    if process.poll() is None:
        process.kill()
    process.wait()
    reader.join(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _served(tmp_path_factory.mktemp("served"))


@pytest.fixture(scope="module")
def model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose configuration names a model (the registered test model)."""
    yield from _served(tmp_path_factory.mktemp("model-served"),
                       {"HELIX_SYNTHESIS__MODEL": "fake/echo"})


def _error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    return str(message)


@pytest.mark.slow
def test_the_http_api_end_to_end(server: Server, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    base, repo, home = server.base, server.repo, server.home
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert "bearer token" in _error(httpx.get(f"{base}/repos"), 401)
    assert "bearer token" in _error(httpx.get(f"{base}/repos", headers={
        "Authorization": "Bearer wrong-token-0123456789"}), 401)
    assert httpx.get(f"{base}/repos", headers=auth).json()["repos"][0]["path"] == str(repo)
    assert "/ask" in httpx.get(f"{base}/openapi.json", headers=auth).json()["paths"]

    answered = httpx.post(f"{base}/ask", json={"question": QUESTION}, headers=auth,
                          timeout=120).json()
    assert answered["answer_mode"] == "dry_run" and answered["citations"]
    code, out, err = _helix(["ask", QUESTION, "--repo", str(repo), "--dry-run", "--json"],
                            server, monkeypatch, capsys)
    assert code == 0, err
    assert answered["item_hashes"] == json.loads(out)["item_hashes"]  # as the CLI answers

    # streamed: the controller's steps as they happen, then the answer
    with httpx.stream("POST", f"{base}/ask", headers=auth, timeout=120,
                      json={"question": QUESTION, "stream": True}) as streamed:
        assert streamed.headers["content-type"].startswith("text/event-stream")
        kinds = [line.split(": ", 1)[1] for line in streamed.iter_lines()
                 if line.startswith("event: ")]
    assert kinds[-1] == "answer" and "trace" in kinds[:-1]
    # a stream closed after its first event: the server goes on answering
    with httpx.stream("POST", f"{base}/ask", headers=auth, timeout=120,
                      json={"question": "what does the search engine do?",
                            "stream": True}) as cut:
        next(cut.iter_lines())
    assert httpx.get(f"{base}/repos", headers=auth).status_code == 200

    found = httpx.get(f"{base}/find", params={"symbol": "build_bm25_index"}, headers=auth)
    assert found.json()["definitions"][0]["path"] == "search/bm25.py"
    assert httpx.get(f"{base}/runs", headers=auth).json()["runs"]
    exported = httpx.post(f"{base}/export", headers=auth, json={"answer_modes": ["dry_run"],
                                                                "include_diagnostic": True})
    assert exported.status_code == 200, exported.text
    assert exported.json()["report"]["considered"] >= 1 and exported.json()["records"]
    assert "invalid request" in _error(httpx.post(f"{base}/search", headers=auth,
                                                  json={"query": "x", "k": 0}), 400)
    assert "not served" in _error(httpx.post(f"{base}/ask", headers=auth, json={
        "question": QUESTION, "repo": "/etc"}), 404)
    assert "not a file inside" in _error(httpx.post(f"{base}/open_span", headers=auth, json={
        "path": "../../../etc/passwd"}), 400)
    assert "over" in _error(httpx.post(f"{base}/ask", headers=auth,
                                       content=b"x" * 1_000_001), 413)
    # a session another repository holds: refused without naming that repository
    other = home.parent / "elsewhere-private"
    shutil.copytree(REPO, other)
    code, _, err = _helix(["ask", QUESTION, "--repo", str(other), "--session", "theirs",
                           "--dry-run"], server, monkeypatch, capsys)
    assert code == 0, err
    refused = httpx.post(f"{base}/ask", headers=auth, timeout=120,
                         json={"question": QUESTION, "session": "theirs"})
    assert refused.status_code in (400, 409), refused.text
    assert "another repository" in refused.text and "elsewhere-private" not in refused.text

    # a burst past --max-concurrent 1: answers or 503 with Retry-After, never a 500
    def one(n: int) -> httpx.Response:
        return httpx.post(f"{base}/ask", headers=auth, timeout=120,
                          json={"question": f"what does the search engine do? {n}"})

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        responses = list(pool.map(one, range(6)))
    codes = sorted(r.status_code for r in responses)
    assert set(codes) <= {200, 503} and 200 in codes, codes
    assert all(r.headers.get("retry-after") == "1" for r in responses if r.status_code == 503)
    assert (home / "server.json").stat().st_mode & 0o777 == 0o600  # it holds the token


@pytest.mark.slow
def test_session_turns_go_through_the_warm_server(
        server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`helix ask --session` and `helix chat` send their turns to the server: here the
    in-process runner is broken, and the turns still run."""
    import helix.session.runner as runner

    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("the turn ran in process")

    monkeypatch.setattr(runner, "run_turn", not_here)
    code, out, err = _helix(["ask", QUESTION, "--repo", str(server.repo), "--session", "warm",
                             "--json"], server, monkeypatch, capsys)
    assert code == 0, err
    first = json.loads(out)
    assert first["transition"] == "T1" and first["shown"]["items"]
    code, out, err = _helix(["ask", "open the second one", "--repo", str(server.repo),
                             "--session", "warm", "--json"], server, monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out)["opened"]["target"]["id"] == first["shown"]["items"][1]["target_id"]


@pytest.mark.slow
def test_the_cli_answers_through_a_warm_server_with_the_same_hashes(
        server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Last on this server: `helix serve --stop` stops it."""
    base, repo, home, process = server.base, server.repo, server.home, server.process
    ask = ["ask", QUESTION, "--repo", str(repo), "--dry-run", "--json", "--verbose"]
    code, warm, err = _helix(ask, server, monkeypatch, capsys)
    assert code == 0, err
    assert f"answered by the helix server at {base}" in err
    code, cold, err = _helix(ask, server, monkeypatch, capsys, HELIX_NO_SERVER="1")
    assert code == 0 and "answered by" not in err
    assert json.loads(warm)["item_hashes"] == json.loads(cold)["item_hashes"]
    code, out, err = _helix(["status", str(repo), "--json"], server, monkeypatch, capsys)
    status = json.loads(out)
    assert status["server"]["serves_this_repository"] and status["server"]["url"] == base
    server.reap_when_it_exits()
    code, out, err = _helix(["serve", "--stop"], server, monkeypatch, capsys)
    assert code == 0 and "stopped the helix server" in out, err
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in server.stderr_after_exit()
    assert not (home / "server.json").exists()
    code, _, err = _helix(["serve", "--stop"], server, monkeypatch, capsys)
    assert code == 2 and "no helix server runs" in err


def test_a_model_answer_streams_through_the_warm_server(
        model_server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """`helix ask` and a session turn (`helix chat`) through the warm server get the model's
    text as it is written (server-sent `token` events), then the same answer as without."""
    from helix.cli.ask_cmd import _ask_server
    from helix.cli.turn_view import served_turn

    repo = model_server.repo
    monkeypatch.setenv("HELIX_HOME", str(model_server.home))
    pieces: list[str] = []
    served = _ask_server(QUESTION, repo.resolve(), dry_run=False, scope=None,
                         on_text=pieces.append)
    assert served is not None
    envelope = served[0]
    assert envelope.answer_mode == "llm" and len(pieces) > 1
    assert "".join(pieces).strip() == envelope.answer.strip()
    plain = _ask_server(QUESTION, repo.resolve(), dry_run=False, scope=None)
    assert plain is not None and plain[0].answer == envelope.answer
    turn_pieces: list[str] = []
    turn = served_turn("streamed", QUESTION, repo.resolve(), reply_to=None, dry_run=False,
                       on_text=turn_pieces.append)
    assert turn is not None and turn.envelope is not None and turn.transition == "T1"
    assert "".join(turn_pieces).strip() == turn.envelope.answer.strip() != ""


def test_sigterm_stops_the_server_cleanly(model_server: Server, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Last on this server: it finishes, removes its server file (it held the token) and
    leaves a whole run log."""
    home, process = model_server.home, model_server.process
    assert (home / "server.json").stat().st_mode & 0o777 == 0o600
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in model_server.stderr_after_exit()
    assert not (home / "server.json").exists()
    code, out, err = _helix(["log", "--json"], model_server, monkeypatch, capsys)
    assert code == 0 and len(json.loads(out)) >= 2, err
