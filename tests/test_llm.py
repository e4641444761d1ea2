"""LiteLLMClient over the real litellm call path (mock_response), and its error mapping."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helix.core.errors import (
    LLMAuthError,
    LLMEmptyError,
    LLMError,
    LLMRateLimitError,
    LLMTimeoutError,
    LLMTransportError,
    UnknownModelError,
)
from helix.core.ports import LLM
from helix.synthesis.llm import LiteLLMClient, map_litellm_error

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
ARGS: dict[str, Any] = {"model": "gpt-4o-mini", "timeout_s": 5.0, "max_tokens": 50,
                        "temperature": 0.0}


def _litellm() -> Any:
    from helix.synthesis.llm import _import_litellm

    return _import_litellm()


def _errors() -> list[tuple[Any, type[LLMError], str]]:
    litellm = _litellm()
    kw = {"model": "gpt-4o-mini", "llm_provider": "openai"}
    forbidden = httpx.Response(403, request=httpx.Request("POST", "http://x"))
    return [
        (litellm.Timeout(message="slow", **kw), LLMTimeoutError, "timeout"),
        (litellm.RateLimitError(message="429", **kw), LLMRateLimitError, "rate_limited"),
        (litellm.APIConnectionError(message="refused", **kw), LLMTransportError,
         "transport_error"),
        (litellm.ServiceUnavailableError(message="503", **kw), LLMTransportError,
         "transport_error"),
        (litellm.InternalServerError(message="500", **kw), LLMTransportError, "transport_error"),
        (litellm.BadGatewayError(message="502", **kw), LLMTransportError, "transport_error"),
        (litellm.AuthenticationError(message="bad key", **kw), LLMAuthError, "auth_error"),
        (litellm.PermissionDeniedError(message="no", response=forbidden, **kw), LLMAuthError,
         "auth_error"),
    ]


def test_client_satisfies_the_port_and_returns_text_and_tokens() -> None:
    client = LiteLLMClient(mock_response="The policy is in [E1].")
    assert isinstance(client, LLM)
    completion = client.complete(MESSAGES, **ARGS)
    assert completion.text == "The policy is in [E1]."
    assert completion.model == "gpt-4o-mini"
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert client.calls == 1


def test_each_litellm_failure_maps_to_its_reason() -> None:
    for exc, expected, reason in _errors():
        client = LiteLLMClient(mock_response=exc)
        with pytest.raises(expected) as info:
            client.complete(MESSAGES, **ARGS)
        assert info.value.reason == reason, type(exc).__name__


def test_empty_output_is_abstain() -> None:
    with pytest.raises(LLMEmptyError) as info:
        LiteLLMClient(mock_response="").complete(MESSAGES, **ARGS)
    assert info.value.reason == "abstain"
    with pytest.raises(LLMEmptyError):
        LiteLLMClient(mock_response="   \n").complete(MESSAGES, **ARGS)


def test_unknown_model_is_a_user_error() -> None:
    litellm = _litellm()
    with pytest.raises(UnknownModelError) as info:
        LiteLLMClient().complete(MESSAGES, **{**ARGS, "model": "no-such-provider-model-xyz"})
    assert info.value.exit_code == 2
    not_found = litellm.NotFoundError(message="model gpt-9 does not exist", model="gpt-9",
                                      llm_provider="openai")
    assert isinstance(map_litellm_error(not_found, "gpt-9", litellm), UnknownModelError)


def test_missing_credentials_is_an_auth_error() -> None:
    litellm = _litellm()
    exc = litellm.InternalServerError(message="OpenAIException - Missing credentials. Please "
                                      "pass an `api_key`", model="m", llm_provider="openai")
    assert isinstance(map_litellm_error(exc, "m", litellm), LLMAuthError)


def test_transient_flags() -> None:
    assert LLMTimeoutError.transient and LLMRateLimitError.transient
    assert LLMTransportError.transient
    assert not LLMAuthError.transient and not LLMEmptyError.transient


def test_a_streamed_call_hands_on_the_text_as_it_comes_and_returns_it_whole() -> None:
    """`on_text`: litellm's stream (its own mock here), piece by piece, then the Completion."""
    client = LiteLLMClient(mock_response="It is decided in decide_retry [E1].")
    pieces: list[str] = []
    done = client.complete([{"role": "user", "content": "q"}], model="gpt-4o-mini",
                           timeout_s=10, max_tokens=50, temperature=0.0, on_text=pieces.append)
    assert len(pieces) > 1 and "".join(pieces) == done.text == "It is decided in decide_retry [E1]."
    echo: list[str] = []
    fake = client.complete([{"role": "user", "content": "q"}], model="fake/say:two words",
                           timeout_s=10, max_tokens=50, temperature=0.0, on_text=echo.append)
    # a piece is shown once its line reads a few more words (masked as the line reads): a
    # two-word answer is shown whole at its end
    assert echo == ["two words"] and fake.text == "two words"
