"""`LiteLLMClient`: the `helix.core.ports.LLM` port over litellm, with its errors mapped.

litellm is imported inside `complete` only (it costs seconds), after pointing it at its bundled
price map so the import never reaches the network. litellm's own retries are off
(`num_retries=0`): the bounded retry policy lives in `helix.synthesis.answer`.

Mapping (order matters: litellm's Timeout is a subclass of APIConnectionError):
    Timeout                                         -> LLMTimeoutError     (timeout)
    RateLimitError                                  -> LLMRateLimitError   (rate_limited)
    AuthenticationError, PermissionDeniedError,
      a "missing credentials" error                 -> LLMAuthError        (auth_error)
    NotFoundError, BadRequestError naming an
      unknown model or provider                     -> UnknownModelError   (user error, exit 2)
    APIConnectionError, ServiceUnavailableError,
      InternalServerError, BadGatewayError, other   -> LLMTransportError   (transport_error)
    empty content                                   -> LLMEmptyError       (abstain)

`mock_response` is litellm's own test seam, passed through: tests (and `HELIX_MOCK_RESPONSE`,
see `helix.service`) run the real litellm call path with no network.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from helix.core.errors import (
    HelixError,
    LLMAuthError,
    LLMEmptyError,
    LLMError,
    LLMRateLimitError,
    LLMTimeoutError,
    LLMTransportError,
    UnknownModelError,
)
from helix.core.ports import Completion

MAX_ERROR_CHARS = 200
_UNKNOWN_MODEL_HINTS = ("llm provider not provided", "unknown model", "model not found",
                        "does not exist", "invalid model", "no such model", "unknownprovider")
_AUTH_HINTS = ("missing credentials", "api key", "api_key", "unauthorized", "invalid x-api-key")


def _import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback" banners on our stdout
    return litellm


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:MAX_ERROR_CHARS]


def map_litellm_error(exc: BaseException, model: str, litellm: Any) -> HelixError:
    """The Helix error for a litellm exception (pure given the litellm module)."""
    message = f"{model}: {_short(exc)}"
    lowered = str(exc).lower()
    if isinstance(exc, litellm.Timeout):
        return LLMTimeoutError(message)
    if isinstance(exc, litellm.RateLimitError):
        return LLMRateLimitError(message)
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)):
        return LLMAuthError(message)
    if isinstance(exc, litellm.NotFoundError) or (
        isinstance(exc, litellm.BadRequestError)
        and any(hint in lowered for hint in _UNKNOWN_MODEL_HINTS)
    ):
        return UnknownModelError(f"unknown model '{model}': {_short(exc)}")
    if any(hint in lowered for hint in _AUTH_HINTS) and not isinstance(exc, litellm.Timeout):
        return LLMAuthError(message)
    return LLMTransportError(message)


def _empty_response(model: str) -> dict[str, Any]:
    # litellm treats mock_response="" as "no mock"; an explicit empty message keeps the seam.
    return {"model": model, "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": ""}}]}


class LiteLLMClient:
    """One chat completion through litellm. `calls` counts requests made (for tests)."""

    def __init__(self, *, mock_response: Any = None, extra: dict[str, Any] | None = None) -> None:
        self.mock_response = mock_response
        self.extra = dict(extra or {})
        self.calls = 0

    def complete(self, messages: Sequence[dict[str, str]], *, model: str,
                 timeout_s: float, max_tokens: int, temperature: float,
                 api_base: str | None = None) -> Completion:
        litellm = _import_litellm()
        kwargs: dict[str, Any] = {
            "model": model, "messages": [dict(m) for m in messages], "timeout": timeout_s,
            "max_tokens": max_tokens, "temperature": temperature, "num_retries": 0,
            # a model that rejects e.g. temperature gets the call without it, not an error
            "drop_params": True, **self.extra,
        }
        if api_base:
            kwargs["api_base"] = api_base
        if self.mock_response is not None:
            kwargs["mock_response"] = (_empty_response(model) if self.mock_response == ""
                                       else self.mock_response)
        self.calls += 1
        try:
            response = litellm.completion(**kwargs)
        except HelixError:
            raise
        except Exception as exc:
            raise map_litellm_error(exc, model, litellm) from exc
        return _to_completion(response, model)


def _to_completion(response: Any, model: str) -> Completion:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        content = None
    if not isinstance(content, str) or not content.strip():
        raise LLMEmptyError(f"{model}: the model returned no text")
    usage = getattr(response, "usage", None)
    return Completion(
        text=content,
        model=str(getattr(response, "model", None) or model),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


__all__ = ["LLMError", "LiteLLMClient", "map_litellm_error"]
