"""`helix serve` as a user runs it: a real uvicorn on a loopback port, a real HTTP client. The
token is checked, the API answers with the CLI's item hashes, bad requests and repositories not
served are one-line errors, a burst past the concurrency bound gets 503 with Retry-After (never
a 500), and SIGTERM stops the server cleanly."""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.net_helpers import free_port

REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
TOKEN = "test-token-0123456789abcdef"
QUESTION = "where is the BM25 index built?"


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false",
            "HELIX_SERVE_TOKEN": TOKEN}


def _helix(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "import sys; from helix.cli.main import main;"
                           " sys.exit(main())", *args], env=_env(home), capture_output=True,
                          text=True, timeout=300)


def _index(repo: Path, home: Path) -> None:
    """The served index, built in this process (the server and the CLI processes below are
    what is tested; a `helix index` process here only cost an interpreter and its imports)."""
    from helix.cli.main import main

    with pytest.MonkeyPatch.context() as env:
        env.setenv("HELIX_HOME", str(home))
        env.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
        try:
            main(["index", str(repo)])
        except SystemExit as exc:
            assert not exc.code, exc.code


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path, Path, subprocess.Popen[str]]]:
    yield from _served(tmp_path)


@pytest.fixture
def model_server(tmp_path: Path) -> Iterator[tuple[str, Path, Path, subprocess.Popen[str]]]:
    """A server whose repository configures a model (the registered test model)."""
    yield from _served(tmp_path, {"HELIX_SYNTHESIS__MODEL": "fake/echo"})


def _served(tmp_path: Path, extra: dict[str, str] | None = None
            ) -> Iterator[tuple[str, Path, Path, subprocess.Popen[str]]]:
    repo, home = tmp_path / "repo", tmp_path / "home"
    shutil.copytree(REPO, repo)
    _index(repo, home)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from helix.cli.main import main; sys.exit(main())",
         "serve", "--repo", str(repo), "--port", str(port), "--max-concurrent", "1"],
        env={**_env(home), **(extra or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail(f"the server did not start: {process.communicate()[1][-2000:]}")
    yield base, repo, home, process
    if process.poll() is None:
        process.kill()
        process.communicate()


def _error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    return str(message)


@pytest.mark.slow
def test_the_http_api_end_to_end(server: tuple[str, Path, Path, subprocess.Popen[str]]
                                 ) -> None:
    base, repo, home, process = server
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert "bearer token" in _error(httpx.get(f"{base}/repos"), 401)
    assert "bearer token" in _error(httpx.get(f"{base}/repos", headers={
        "Authorization": "Bearer wrong-token-0123456789"}), 401)
    assert httpx.get(f"{base}/repos", headers=auth).json()["repos"][0]["path"] == str(repo)
    assert "/ask" in httpx.get(f"{base}/openapi.json", headers=auth).json()["paths"]

    answered = httpx.post(f"{base}/ask", json={"question": QUESTION}, headers=auth,
                          timeout=120).json()
    assert answered["answer_mode"] == "dry_run" and answered["citations"]
    cli = json.loads(_helix("ask", QUESTION, "--repo", str(repo), "--dry-run", "--json",
                            home=home).stdout)
    assert answered["item_hashes"] == cli["item_hashes"]  # the server answers as the CLI does

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
    assert _helix("ask", QUESTION, "--repo", str(other), "--session", "theirs", "--dry-run",
                  home=home).returncode == 0
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
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in process.communicate()[1]
    assert not (home / "server.json").exists()
    listed = _helix("log", "--json", home=home)  # the run log is whole afterwards
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) >= 2


@pytest.mark.slow
def test_the_cli_answers_through_a_warm_server_with_the_same_hashes(
        server: tuple[str, Path, Path, subprocess.Popen[str]]) -> None:
    base, repo, home, process = server
    warm = _helix("ask", QUESTION, "--repo", str(repo), "--dry-run", "--json", "--verbose",
                  home=home)
    assert warm.returncode == 0, warm.stderr
    assert f"answered by the helix server at {base}" in warm.stderr
    cold = subprocess.run([sys.executable, "-c", "import sys; from helix.cli.main import main;"
                           " sys.exit(main())", "ask", QUESTION, "--repo", str(repo),
                           "--dry-run", "--json", "--verbose"],
                          env={**_env(home), "HELIX_NO_SERVER": "1"}, capture_output=True,
                          text=True, timeout=300)
    assert cold.returncode == 0 and "answered by" not in cold.stderr
    assert json.loads(warm.stdout)["item_hashes"] == json.loads(cold.stdout)["item_hashes"]
    status = json.loads(_helix("status", str(repo), "--json", home=home).stdout)
    assert status["server"]["serves_this_repository"] and status["server"]["url"] == base
    stopped = _helix("serve", "--stop", home=home)
    assert stopped.returncode == 0 and "stopped the helix server" in stopped.stdout
    assert process.wait(timeout=60) == 0
    assert not (home / "server.json").exists()
    again = _helix("serve", "--stop", home=home)
    assert again.returncode == 2 and "no helix server runs" in again.stderr


@pytest.mark.slow
def test_session_turns_go_through_the_warm_server(
        server: tuple[str, Path, Path, subprocess.Popen[str]],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`helix ask --session` and `helix chat` send their turns to the server: here the
    in-process runner is broken, and the turns still run."""
    from cli_helpers import run

    import helix.session.runner as runner

    _, repo, home, _ = server
    monkeypatch.setenv("HELIX_HOME", str(home))
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")

    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("the turn ran in process")

    monkeypatch.setattr(runner, "run_turn", not_here)
    code, out, err = run(["ask", QUESTION, "--repo", str(repo), "--session", "warm",
                          "--json"], capsys)
    assert code == 0, err
    first = json.loads(out)
    assert first["transition"] == "T1" and first["shown"]["items"]
    code, out, err = run(["ask", "open the second one", "--repo", str(repo), "--session",
                          "warm", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["opened"]["target"]["id"] == first["shown"]["items"][1]["target_id"]


def test_a_model_answer_streams_through_the_warm_server(
        model_server: tuple[str, Path, Path, subprocess.Popen[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`helix ask` and a session turn (`helix chat`) through the warm server get the model's
    text as it is written (server-sent `token` events), then the same answer as without."""
    from helix.cli.ask_cmd import _ask_server
    from helix.cli.turn_view import served_turn

    _, repo, home, _ = model_server
    monkeypatch.setenv("HELIX_HOME", str(home))
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
