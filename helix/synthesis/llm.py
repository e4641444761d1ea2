"""`LiteLLMClient`: the `helix.core.ports.LLM` port over litellm, with its errors mapped.

litellm is imported inside `complete` only (it costs seconds), after pointing it at its bundled
price map so the import never reaches the network, and in its production mode, so that it
never reads a `.env` file. litellm's own retries are off
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

`complete` is the one choke point every model call goes through (the synthesis and the session
lanes' advisory calls alike): right before the request it redacts every message's content
(`helix.synthesis.redact.redact_messages`), so no call site can send a secret by forgetting to.
Before the first request it also asks litellm which environment variables the model needs
(`litellm.validate_environment`): a missing API key is an `LLMAuthError` naming it, and no
request is made.

A registered test model (`fake/echo`, `fake/say:TEXT`, ...: `helix.synthesis.fake_llm`) is
answered after the same redaction without importing litellm. `mock_response` is litellm's own
test seam, passed through by the tests of the litellm call path itself.
"""

from __future__ import annotations

import difflib
import os
import re
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
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
from helix.synthesis.fake_llm import fake_reply, is_fake, stream_pieces
from helix.synthesis.redact import ReplyGuard, known_secrets, mask_values, redact_messages

MAX_ERROR_CHARS = 200
_UNKNOWN_MODEL_HINTS = ("llm provider not provided", "unknown model", "model not found",
                        "does not exist", "invalid model", "no such model", "unknownprovider")
_AUTH_HINTS = ("missing credentials", "api key", "api_key", "unauthorized", "invalid x-api-key")


IMPORT_SECONDS: list[float] = []  # how long this process took to import litellm (once)


def _import_litellm() -> Any:
    import sys

    if "litellm" not in sys.modules:
        started = time.perf_counter()
        module = _load_litellm()
        IMPORT_SECONDS.append(time.perf_counter() - started)
        return module
    return _load_litellm()


def _load_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # litellm loads a `.env` on import ("DEV" mode), searching upward from its own package
    # directory: with a virtual environment inside a repository, the repository's `.env`
    # could set OPENAI_API_BASE and send the user's key to its server. Never any `.env`.
    os.environ["LITELLM_MODE"] = "PRODUCTION"
    # litellm's response models finish building on first use and warn about their own typing
    # then (ReadOnly TypedDict items): litellm's business, not the user's. Build them once here
    # with warnings off, so no later call depends on the caller's warning filters.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import litellm

        if not getattr(litellm, "_helix_models_built", False):
            litellm.ModelResponse()
            litellm.ModelResponse(stream=True)  # the streamed answer's chunk models
            litellm.ModelResponseStream()
            litellm._helix_models_built = True

    litellm.suppress_debug_info = True  # no "Give Feedback" banners on our stdout
    return litellm


_LITELLM_PREFIX = re.compile(r"^(?:litellm\.)?(?:\w+Error|\w+Exception):\s*(?:\w+Error:\s*)?")


def _short(exc: BaseException, known: Sequence[str] = ()) -> str:
    """The provider's message on one line, litellm's class prefixes dropped, secrets masked
    (a 401 body may echo the key: `known` are the keys this process holds), cut at a word
    boundary (never mid-word) with an ellipsis when long."""
    text = _LITELLM_PREFIX.sub("", " ".join(str(exc).split()))
    text = mask_values(text, known)[0]
    if len(text) <= MAX_ERROR_CHARS:
        return text
    cut = text[:MAX_ERROR_CHARS].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " ..."


def known_models_like(model: str, litellm: Any, limit: int = 3) -> list[str]:
    """The known model names closest to a mistyped one (litellm's own list)."""
    names = sorted({str(m) for m in getattr(litellm, "model_list", ()) if isinstance(m, str)})
    bare = model.split("/", 1)[-1]
    return difflib.get_close_matches(bare, names, n=limit, cutoff=0.6)


def map_litellm_error(exc: BaseException, model: str, litellm: Any,
                      known: Sequence[str] = ()) -> HelixError:
    """The Helix error for a litellm exception (pure given the litellm module), its message
    masked (`_short`)."""
    message = f"{model}: {_short(exc, known)}"
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
        near = known_models_like(model, litellm)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        return UnknownModelError(f"unknown model '{model}'{hint} ({_short(exc, known)})")
    if any(hint in lowered for hint in _AUTH_HINTS) and not isinstance(exc, litellm.Timeout):
        return LLMAuthError(message)
    return LLMTransportError(message)


def missing_keys(model: str, litellm: Any) -> list[str]:
    """The environment variables litellm says `model` needs and are not set ([] when unsure)."""
    try:
        report = litellm.validate_environment(model=model)
    except Exception:  # an unknown provider: the call itself says so
        return []
    missing = report.get("missing_keys") if isinstance(report, dict) else None
    return [str(k) for k in missing or [] if isinstance(k, str)]


def missing_key_error(model: str, missing: Sequence[str]) -> LLMAuthError | None:
    """An error naming the missing API key(s), when every variable missing is one: a provider
    reached through credentials files or a base URL (AWS_*, *_API_BASE) is left to the call."""
    if not missing or not all(k.endswith(("_API_KEY", "_TOKEN")) for k in missing):
        return None
    names = " or ".join(missing)
    return LLMAuthError(f"{model} needs {names} in the environment and it is not set "
                        "(no request was made)")


def _empty_response(model: str) -> dict[str, Any]:
    # litellm treats mock_response="" as "no mock"; an explicit empty message keeps the seam.
    return {"model": model, "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": ""}}]}


class LiteLLMClient:
    """One chat completion through litellm, its messages redacted first. `calls` counts
    requests made (for tests)."""

    def __init__(self, *, mock_response: Any = None, extra: dict[str, Any] | None = None) -> None:
        self.mock_response = mock_response
        self.extra = dict(extra or {})
        self.calls = 0
        self.redacted: Counter[str] = Counter()  # spans redacted at this choke point, by kind
        # the time spent importing litellm (in this client's calls: once per process) and in
        # the calls themselves, reported apart in the run log (`timings_ms`)
        self.import_s = 0.0
        self.call_s = 0.0

    def preflight(self, model: str, *, api_base: str | None = None) -> None:
        """Import litellm and check the model's API key, before any request and before the
        synthesis starts its clock: a missing key is an LLMAuthError naming it."""
        if is_fake(model):
            return
        litellm = _import_litellm()
        if self.mock_response is None and not api_base and "api_key" not in self.extra:
            missing = missing_key_error(model, missing_keys(model, litellm))
            if missing is not None:
                raise missing

    def complete(self, messages: Sequence[dict[str, str]], *, model: str,
                 timeout_s: float, max_tokens: int, temperature: float,
                 api_base: str | None = None,
                 on_text: Callable[[str], None] | None = None) -> Completion:
        # what comes back is masked too: the reply (streamed line by line) and an error body
        guard = ReplyGuard(known_secrets(os.environ), on_text)
        stream = guard.piece if on_text is not None else None
        if is_fake(model):  # a registered test model: redacted like any call, no litellm
            clean, found = redact_messages(messages)
            self.redacted.update(found)
            self.calls += 1
            started = time.perf_counter()
            try:
                reply = fake_reply(model, clean)
                stream_pieces(reply.text, stream)
                guard.close()
                return guard.completion(reply)
            finally:
                self.call_s += time.perf_counter() - started
        before = len(IMPORT_SECONDS)
        litellm = _import_litellm()
        self.import_s += sum(IMPORT_SECONDS[before:])
        kwargs: dict[str, Any] = {
            "model": model, "messages": [dict(m) for m in messages], "timeout": timeout_s,
            "max_tokens": max_tokens, "temperature": temperature, "num_retries": 0,
            # a model that rejects e.g. temperature gets the call without it, not an error
            "drop_params": True, **self.extra,
        }
        if api_base:
            kwargs["api_base"] = api_base
        if on_text is not None:  # the answer as it is written; usage in the last chunk
            kwargs.update(stream=True, stream_options={"include_usage": True})
        if self.mock_response is not None:
            kwargs["mock_response"] = (_empty_response(model) if self.mock_response == ""
                                       else self.mock_response)
        else:
            self.preflight(model, api_base=api_base)
        clean, found = redact_messages(messages)
        kwargs["messages"] = [dict(m) for m in clean]
        self.redacted.update(found)
        self.calls += 1
        started = time.perf_counter()
        try:
            response = litellm.completion(**kwargs)
            if stream is not None:
                streamed = _streamed(response, model, stream)
                guard.close()
                return guard.completion(streamed)
        except HelixError:
            raise
        except Exception as exc:
            error = map_litellm_error(exc, model, litellm, guard.known)
            if isinstance(error, LLMAuthError):
                keys = missing_keys(model, litellm)
                if keys:
                    error = LLMAuthError(f"{error} (litellm expects {', '.join(keys)} in the "
                                         "environment)")
            # not `from exc`: the provider's raw body (it may hold the key) stays out of any
            # traceback a user is shown
            raise error from None
        finally:
            self.call_s += time.perf_counter() - started
        return guard.completion(_to_completion(response, model))


def _streamed(chunks: Any, model: str, on_text: Callable[[str], None]) -> Completion:
    """The streamed answer handed on piece by piece, then whole (an error mid-stream is
    raised from here, inside the caller's mapping)."""
    parts: list[str] = []
    usage: Any = None
    name = model
    for chunk in chunks:
        name = str(getattr(chunk, "model", None) or name)
        usage = getattr(chunk, "usage", None) or usage
        choices = getattr(chunk, "choices", None) or ()
        delta = getattr(choices[0], "delta", None) if choices else None
        text = getattr(delta, "content", None) if delta is not None else None
        if isinstance(text, str) and text:
            parts.append(text)
            on_text(text)
    content = "".join(parts)
    if not content.strip():
        raise LLMEmptyError(f"{model}: the model returned no text")
    return Completion(text=content, model=name,
                      prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                      completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0))


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
