"""The LLM port (`LiteLLMClient.complete`) as the one choke point: every message is redacted
right before the request, and a missing API key is named before any request is made."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import run

from helix.core.errors import LLMAuthError
from helix.synthesis.llm import (
    LiteLLMClient,
    _import_litellm,
    missing_key_error,
    missing_keys,
)

STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
ARGS: dict[str, Any] = {"model": "gpt-4o-mini", "timeout_s": 5.0, "max_tokens": 50,
                        "temperature": 0.0}


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    litellm = _import_litellm()
    calls: list[dict[str, Any]] = []

    def completion(**kwargs: Any) -> Any:
        calls.append(kwargs)
        message = SimpleNamespace(content="It is in [E1].")
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], model=kwargs["model"],
                               usage=None)

    monkeypatch.setattr(litellm, "completion", completion)
    return calls


def test_every_message_is_redacted_at_the_port(spy: list[dict[str, Any]],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    client = LiteLLMClient()
    messages = [{"role": "system", "content": f"You know the key {STRIPE}."},
                {"role": "user", "content": '{"recentTurns":["turn 1: mysql -pS3cr3tPass!"]}'}]
    client.complete(messages, **ARGS)
    sent = repr(spy[0]["messages"])
    assert STRIPE not in sent and "S3cr3tPass!" not in sent
    assert "[REDACTED:stripe_key]" in sent and "[REDACTED:command_password]" in sent
    assert client.redacted == {"stripe_key": 1, "command_password": 1}
    assert STRIPE in messages[0]["content"]  # the caller's list is left alone


def test_missing_key_is_named_and_no_request_is_made(spy: list[dict[str, Any]],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMAuthError, match="OPENAI_API_KEY") as caught:
        LiteLLMClient().complete([{"role": "user", "content": "q"}], **ARGS)
    assert caught.value.reason == "auth_error" and spy == []


def test_a_base_url_or_an_explicit_key_skips_the_key_check(
        spy: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    LiteLLMClient().complete([{"role": "user", "content": "q"}], **ARGS,
                             api_base="http://localhost:8000/v1")
    LiteLLMClient(extra={"api_key": "k"}).complete([{"role": "user", "content": "q"}], **ARGS)
    assert len(spy) == 2


def test_only_api_keys_are_checked_before_the_call() -> None:
    litellm = _import_litellm()
    assert missing_key_error("m", ["ANTHROPIC_API_KEY"]) is not None
    assert missing_key_error("m", []) is None
    # credentials files or a server address may stand in for these: left to the call
    assert missing_key_error("m", ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]) is None
    assert missing_key_error("m", ["OLLAMA_API_BASE"]) is None
    assert missing_keys("no-such-provider-model-xyz", litellm) == []


def test_cli_says_which_key_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch,
                                       spy: list[dict[str, Any]]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    (tmp_path / "retry.py").write_text("def decide_retry(attempt):\n    return attempt < 5\n",
                                       encoding="utf-8")
    code, out, err = run(["ask", "--repo", str(tmp_path), "--model", "gpt-4o-mini",
                          "where is decide_retry?"], capsys)
    assert code == 3 and spy == []  # answered without the model
    assert "OPENAI_API_KEY" in err and "gpt-4o-mini" in err
    assert "mode fallback (auth_error)" in out
