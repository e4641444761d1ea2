"""The registered test models (`fake/...`) and `FakeLLM`: the answer path with no provider and
no network, behind the same LLM port and the same redaction as a real model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from controller_helpers import ask, fixture_index

from helix.core.errors import LLMEmptyError, LLMRateLimitError, LLMTimeoutError, UnknownModelError
from helix.synthesis.fake_llm import FakeLLM, fake_reply
from helix.synthesis.prompt import build_prompt


def test_echo_quotes_the_first_evidence_item_of_the_real_prompt() -> None:
    envelope = ask(fixture_index("answer_repo"), "where is the retry policy decided?")
    prompt = build_prompt(envelope)
    reply = fake_reply("fake/echo", prompt.messages)
    first = envelope.evidence[0].text.strip().splitlines()[0].strip()
    assert reply.text == f"The evidence says: {first} [E1]"
    assert reply.model == "fake/echo" and reply.prompt_tokens > 0 and reply.completion_tokens > 0


def test_say_empty_and_errors() -> None:
    messages = [{"role": "user", "content": "hi"}]
    said = fake_reply("fake/say:It is in x.py [E1].", messages)
    assert said.text == "It is in x.py [E1]." and said.model == "fake/say"
    with pytest.raises(LLMEmptyError):
        fake_reply("fake/empty", messages)
    with pytest.raises(LLMRateLimitError):
        fake_reply("fake/error:rate_limited", messages)
    with pytest.raises(LLMTimeoutError):
        fake_reply("fake/error:timeout", messages)
    with pytest.raises(UnknownModelError, match="did you mean fake/echo"):
        fake_reply("fake/ecko", messages)


def test_the_client_redacts_before_a_fake_model_and_never_imports_litellm() -> None:
    code = (
        "import sys\n"
        "from helix.synthesis.llm import LiteLLMClient\n"
        "client = LiteLLMClient()\n"
        "secret = 'password = \"hunter2-very-secret-value\"'\n"
        "reply = client.complete([{'role': 'user', 'content': '[E1] a.py\\n```\\n' + secret"
        " + '\\n```'}], model='fake/echo', timeout_s=1, max_tokens=10, temperature=0)\n"
        "assert 'hunter2' not in reply.text, reply.text\n"
        "assert client.calls == 1 and sum(client.redacted.values()) >= 1\n"
        "assert 'litellm' not in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


def test_fake_llm_is_scripted_and_records() -> None:
    llm = FakeLLM("one", LLMTimeoutError("slow"))
    assert llm.complete([{"role": "user", "content": "q"}], model="m", timeout_s=1,
                        max_tokens=5, temperature=0).text == "one"
    with pytest.raises(LLMTimeoutError):
        llm.complete([], model="m2", timeout_s=1, max_tokens=5, temperature=0)
    with pytest.raises(AssertionError):
        llm.complete([], model="m3", timeout_s=1, max_tokens=5, temperature=0)
    assert llm.models == ["m", "m2", "m3"] and llm.calls[0] == [{"role": "user",
                                                                "content": "q"}]
    echo = FakeLLM(respond=lambda model, messages: f"{model}:{len(messages)}")
    assert echo.complete([{}], model="x", timeout_s=1, max_tokens=1,
                         temperature=0).text == "x:1"


def test_the_run_log_times_the_model_apart_from_the_synthesis(tmp_path, capsys, monkeypatch):
    import json

    from cli_helpers import run

    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    repo = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "answer_repo"
    code, out, err = run(["ask", "where is the retry policy decided?", "--repo", str(repo),
                          "--model", "fake/echo", "--json"], capsys)
    assert code == 0, err
    timings = json.loads(out)["timings_ms"]
    assert {"synthesis", "model_call", "model_import"} <= set(timings)
    assert timings["model_import"] == 0.0  # a fake model imports nothing
    assert 0.0 <= timings["model_call"] <= timings["synthesis"]
    code, shown, _ = run(["show", "last", "--json"], capsys)
    assert code == 0 and "model_call" in json.loads(shown)["envelope"]["timings_ms"]
