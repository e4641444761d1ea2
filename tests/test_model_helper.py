"""The model helper (issue 29): `helix ask --model` does not import litellm itself; a background
process started on first use does, and later asks reuse it (a real `helix ask` through the
helper, and the next one reusing it: tests/test_model_helper_early.py); it serves only its own
environment, stops when idle, and is never required (the call is then made in process). The
envelope's `model_import` is the time the ask waited for litellm, in either place. Where the
ask imports litellm itself, it reads no `.env` file (litellm loads one on import in its default
mode, from its own package directory upward and from the working directory: a virtual
environment inside a repository would let that repository's `.env` redirect the model and the
user's key)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from helix.synthesis.model_helper import ModelHelper, helper_key, socket_path

ROOT = Path(__file__).resolve().parents[1]
REPO = ROOT / "data" / "fixtures" / "answer_repo"
QUESTION = "where is the retry policy decided?"
STOP_WAIT_S = 120.0

sys.path.insert(0, str(ROOT / "benchmarks"))
from model_stub import ModelStub  # noqa: E402

PLANTED = "HELIX_PLANTED_DOTENV"
# runs `helix ask` in this process, then says whether this process imported litellm, how often
# a `.env` file was to be loaded (python-dotenv's loader, recorded instead), and what the
# planted `.env` files would have set
_ASK = f"""
import json, os, sys
import dotenv, dotenv.main
calls = []
def record(*args, **kwargs):
    calls.append(1)
    return False
dotenv.load_dotenv = dotenv.main.load_dotenv = record
from helix.cli.main import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code or 0
print(json.dumps({{"litellm_here": "litellm" in sys.modules, "dotenv_calls": len(calls),
                  "planted": os.environ.get("{PLANTED}"),
                  "base": os.environ.get("OPENAI_API_BASE")}}), file=sys.stderr)
sys.exit(code)
"""


def _env(home: Path, mode: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELIX_")}
    env.update(HELIX_HOME=str(home), HELIX_NO_SERVER="1", HELIX_INDEX__EMBED_ENABLED="false",
               HELIX_SYNTHESIS__MODEL_HELPER=mode, HELIX_SYNTHESIS__HELPER_IDLE_S="60",
               OPENAI_API_KEY="sk-stub-test", PYTHONPATH=str(ROOT), **extra)
    return env


def _ask(env: dict[str, str], base: str, cwd: Path | None = None,
         seen: dict[str, Any] | None = None) -> tuple[dict[str, Any], bool]:
    done = subprocess.run([sys.executable, "-c", _ASK, "ask", "--json", "--repo", str(REPO),
                           "--model", "openai/stub", "--api-base", base, QUESTION],
                          env=env, capture_output=True, text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stderr.strip().splitlines()[-1])
    if seen is not None:
        seen.update(report)
    return json.loads(done.stdout), bool(report["litellm_here"])


def _litellm_dirs() -> list[Path]:
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.origin is not None
    here = Path(spec.origin).resolve().parent
    return [here, *here.parents]


@pytest.fixture
def home() -> Any:
    """A short $HELIX_HOME: a Unix socket's path has at most 107 bytes (pytest's temporary
    directories under xdist come close; a longer home gets no helper, by design)."""
    import shutil
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="hx-"))
    yield home
    for sock in (home / "run").glob("model-*.sock"):  # no helper outlives the test
        helper = ModelHelper(home, idle_s=1, start_s=1)
        helper.path = sock
        helper.stop()
    shutil.rmtree(home, ignore_errors=True)


@pytest.mark.slow
def test_in_process_the_envelope_says_what_the_import_cost_and_no_dotenv_is_read(
        home: Path, tmp_path: Path) -> None:
    """Off: the ask imports litellm itself, and `model_import` says so (it read 0.0). That
    import reads no `.env`: one is planted in the working directory (a repository) and in
    every writable directory from litellm's package up, and the user set litellm's default
    mode (`LITELLM_MODE=DEV`, which loads one); none is loaded and nothing they set is seen."""
    repo = tmp_path / "repo"
    repo.mkdir()
    body = f"{PLANTED}=yes\nOPENAI_API_BASE=http://127.0.0.1:9/steal\n"
    planted: list[Path] = []
    env = {k: v for k, v in _env(home, "off").items() if k not in ("OPENAI_API_BASE", PLANTED)}
    env["LITELLM_MODE"] = "DEV"  # even a user who set the default mode gets no .env
    seen: dict[str, Any] = {}
    try:
        for directory in [repo, *_litellm_dirs()]:
            target = directory / ".env"
            if target.exists() or not os.access(directory, os.W_OK):
                continue
            target.write_text(body, encoding="utf-8")
            planted.append(target)
        assert len(planted) >= 3  # the repository and the package's own directories
        with ModelStub() as stub:
            envelope, here = _ask(env, stub.base, cwd=repo, seen=seen)
    finally:
        for target in planted:  # only the files this test wrote
            target.unlink()
    assert here and envelope["answer_mode"] == "llm"
    timings = envelope["timings_ms"]
    assert timings["model_import"] > 0
    assert timings["model_import"] + timings["model_call"] <= timings["synthesis"]
    assert not (home / "run").exists()  # no helper was started
    assert seen["dotenv_calls"] == 0 and seen["planted"] is None and seen["base"] is None


def test_a_helper_serves_only_its_own_environment(tmp_path: Path) -> None:
    assert not ModelHelper(tmp_path / ("x" * 120), idle_s=1, start_s=1).usable()
    env = {"PATH": "/bin", "OPENAI_API_KEY": "sk-one"}
    assert helper_key(env) == helper_key({**env, "PWD": "/elsewhere", "SHLVL": "3"})
    assert helper_key(env) != helper_key({**env, "OPENAI_API_KEY": "sk-two"})
    assert helper_key(env) != helper_key({**env, "OPENAI_API_BASE": "http://127.0.0.1:1"})
    assert socket_path(tmp_path, env).parent == tmp_path / "run"


def test_a_helper_that_cannot_start_is_not_required(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper process that dies at once: the call is made in this process, same answer."""
    from helix.synthesis.llm import LiteLLMClient

    helper = ModelHelper(home, idle_s=5, start_s=30)
    helper._process = subprocess.Popen([sys.executable, "-c", "pass"])
    helper._process.wait()
    client = LiteLLMClient(helper=helper, extra={"api_key": "sk-stub"})
    with ModelStub() as stub:
        done = client.complete([{"role": "user", "content": "see [E1]"}], model="openai/stub",
                               timeout_s=30, max_tokens=50, temperature=0, api_base=stub.base)
    assert "[E1]" in done.text and client.helper is None and client.calls == 1


def test_a_helper_answers_the_providers_errors_then_stops_when_idle(home: Path) -> None:
    """One helper process: a provider's error comes back as Helix's (class, status, message),
    and one idle second after its last answer the helper is gone with its socket."""
    from helix.core.errors import LLMServerError
    from helix.synthesis.llm import LiteLLMClient

    helper = ModelHelper(home, idle_s=1, start_s=STOP_WAIT_S)
    with ModelStub(status=500, reason="boom") as stub:
        helper.start()
        process = helper._process
        assert process is not None
        client = LiteLLMClient(helper=helper, extra={"api_key": "sk-stub"})
        started = time.perf_counter()
        with pytest.raises(LLMServerError) as info:  # waits for it to be ready: it answers
            client.complete([{"role": "user", "content": "see [E1]"}], model="openai/stub",
                            timeout_s=30, max_tokens=50, temperature=0, api_base=stub.base)
        assert info.value.status == 500 and "HTTP 500: boom" in str(info.value)
        assert client.helper is helper and client.calls == 1
        assert client.import_s + client.call_s <= time.perf_counter() - started
        assert helper.path.exists()
    process.wait(timeout=STOP_WAIT_S)  # one idle second later it is gone
    assert not helper.path.exists()


def test_the_helper_starts_before_the_question_is_retrieved(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """Through litellm, the helper (litellm's import) is started as soon as the ask knows a
    model is configured: before indexing and retrieval, so the import overlaps them."""
    import helix.service
    from tests.cli_helpers import run

    events: list[str] = []
    real_ask = helix.service.ask

    def ask(*args: Any, **kwargs: Any) -> Any:
        events.append("retrieval")
        return real_ask(*args, **kwargs)

    monkeypatch.setattr(ModelHelper, "start", lambda self: events.append("helper"))
    monkeypatch.setattr(helix.service, "ask", ask)
    for key, value in _env(tmp_path, "process").items():
        if key.startswith(("HELIX_", "OPENAI_")):
            monkeypatch.setenv(key, value)
    with ModelStub() as stub:
        code, out, err = run(["ask", "--json", "--repo", str(REPO), "--model", "openai/stub",
                              "--api-base", stub.base, QUESTION], capsys)
    assert code == 0, err
    assert events == ["helper", "retrieval"]
    assert json.loads(out)["answer_mode"] == "llm"
