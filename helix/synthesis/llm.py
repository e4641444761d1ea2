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
    the server answered an error status (HTTP 500,
      502, 503...: InternalServerError and others)  -> LLMServerError      (transport_error,
                                                       the status and the server's reason)
    APIConnectionError (litellm raises it as an InternalServerError too: told apart by the
      exceptions it was raised from), other         -> LLMTransportError   (transport_error)
    empty content                                   -> LLMEmptyError       (abstain)

Every answer is read up to a character cap (`max_chars`, `synthesis.max_answer_chars`): a
streamed answer stops being read there (the stream is closed), a whole one is cut; the
Completion says so (`cut`, `read_chars`). `max_tokens` asks the provider for the same, but a
provider or a server at `--api-base` may ignore it.

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

import contextlib
import difflib
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from helix.core.config import SynthesisSettings
from helix.core.errors import (
    HelixError,
    LLMAuthError,
    LLMEmptyError,
    LLMError,
    LLMRateLimitError,
    LLMServerError,
    LLMTimeoutError,
    LLMTransportError,
    UnknownModelError,
)
from helix.core.notices import notify
from helix.core.ports import Completion
from helix.synthesis.fake_llm import fake_reply, is_fake, stream_pieces
from helix.synthesis.model_helper import HelperUnavailable, ModelHelper
from helix.synthesis.redact import ReplyGuard, known_secrets, mask_values, redact_messages

MAX_ERROR_CHARS = 200
SERVER_ERRORS = 500  # an HTTP status from here up is the server's own failure
_UNKNOWN_MODEL_HINTS = ("llm provider not provided", "unknown model", "model not found",
                        "does not exist", "invalid model", "no such model", "unknownprovider")
_AUTH_HINTS = ("missing credentials", "api key", "api_key", "unauthorized", "invalid x-api-key")


_UNHELPED = object()  # no helper answered: the call is made in this process


def _import_litellm() -> Any:
    return _load_litellm()


def import_timed() -> tuple[Any, float]:
    """litellm and the seconds this call waited for it (the import: once per process)."""
    started = time.perf_counter()
    module = _import_litellm()
    return module, time.perf_counter() - started


def _load_litellm() -> Any:
    from helix.synthesis.litellm_import import import_litellm

    return import_litellm()


def warm_litellm() -> Any:
    """litellm imported and its first call's own imports done (the OpenAI-compatible client,
    its HTTP stack, the cost tables: seconds the first real call would pay): what the model
    helper runs before it listens. A mocked completion, plain and streamed: no request."""
    litellm = _import_litellm()
    import openai.resources  # noqa: F401  # imported lazily by the first OpenAI-style call

    messages = [{"role": "user", "content": "warm up"}]
    for stream in (False, True):
        response = litellm.completion(model="openai/helix-warm-up", messages=messages,
                                      mock_response="ok", stream=stream)
        if stream:
            for _ in response:
                pass
    return litellm


_LITELLM_PREFIX = re.compile(r"^(?:litellm\.)?(?:\w+Error|\w+Exception):\s*(?:\w+Error:\s*)?"
                             r"(?:\w+Exception - )?")
_CONNECTION_FAILURES = ("APIConnectionError", "ConnectError", "ConnectTimeout")


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


def answered_status(exc: BaseException) -> int | None:
    """The HTTP status the model's server answered with, or None when no server answered (a
    refused or failed connection, which litellm also raises as an InternalServerError, status
    500): read from the exceptions `exc` was raised from (openai's and httpx's own, never
    litellm's)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    status: int | None = None
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) or type(current).__name__ in _CONNECTION_FAILURES:
            return None
        names = {kind.__name__ for kind in type(current).__mro__}
        # litellm's own exceptions carry a status even when no server answered (a missing
        # key, a refused connection): only the HTTP client's own word counts
        client_side = not type(current).__module__.startswith("litellm")
        if status is None and client_side and names & {"APIStatusError", "HTTPStatusError"}:
            code = getattr(getattr(current, "response", None), "status_code", None)
            status = code if isinstance(code, int) and code >= 400 else None
        current = current.__cause__ or current.__context__
    return status


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
    status = answered_status(exc)
    server_error = None if status is None else LLMServerError(
        f"{model}: its server answered HTTP {status}: {_short(exc, known)}", status)
    if server_error is not None and status is not None and status >= SERVER_ERRORS:
        return server_error  # whatever its text says (an echoed "api_key=..." masked)
    if any(hint in lowered for hint in _AUTH_HINTS) and not isinstance(exc, litellm.Timeout):
        return LLMAuthError(message)
    return server_error or LLMTransportError(message)


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

    def __init__(self, *, mock_response: Any = None, extra: dict[str, Any] | None = None,
                 max_chars: int | None = None, helper: ModelHelper | None = None) -> None:
        self.mock_response = mock_response
        # characters of an answer read at most (the rest is never read)
        self.max_chars = (SynthesisSettings().max_answer_chars if max_chars is None
                          else max_chars)
        # a warm process with litellm imported (`helix.synthesis.model_helper`); None, or
        # once it could not be reached: the call is made here
        self.helper = helper
        self.extra = dict(extra or {})
        self.calls = 0
        self.redacted: Counter[str] = Counter()  # spans redacted at this choke point, by kind
        # the time spent importing litellm here (in this client's calls: once per process),
        # waiting for the model helper to be ready (its own import, elsewhere) and in the
        # calls themselves, reported apart in the envelope (`timings_ms`: model_import,
        # model_wait, model_call)
        self.import_s = 0.0
        self.wait_s = 0.0
        self.call_s = 0.0

    def preflight(self, model: str, *, api_base: str | None = None) -> None:
        """Import litellm and check the model's API key, before any request and before the
        synthesis starts its clock: a missing key is an LLMAuthError naming it."""
        if is_fake(model):
            return
        if self._helped(lambda helper: helper.request(
                {"op": "preflight", "model": model, "api_base": api_base,
                 "extra": self.extra})) is not _UNHELPED:
            return
        litellm, waited = import_timed()
        self.import_s += waited
        if self.mock_response is None and not api_base and "api_key" not in self.extra:
            missing = missing_key_error(model, missing_keys(model, litellm))
            if missing is not None:
                raise missing

    def _helped(self, ask: Callable[[ModelHelper], Any], *, call: bool = False) -> Any:
        """`ask(helper)`'s answer, or `_UNHELPED` when there is no helper (or a mocked call,
        or it cannot be reached, is dead or hangs: it is dropped, the user told in one line,
        and this call and the next run here). The wait for a starting helper is `wait_s`, the
        rest the call's."""
        helper = self.helper
        if helper is None or self.mock_response is not None:
            return _UNHELPED
        waited, started = helper.waited_s, time.perf_counter()
        try:
            answer = ask(helper)
        except HelperUnavailable as exc:
            self.helper = None
            notify(f"the model helper {exc}; calling the model from this process")
            return _UNHELPED
        except HelixError:
            self.calls += int(call)  # the request was made (and failed)
            raise
        finally:
            wait = helper.waited_s - waited
            self.wait_s += wait
            if call:
                self.call_s += time.perf_counter() - started - wait
        self.calls += int(call)
        return answer

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
                reply = fake_reply(model, clean).capped(self.max_chars)
                stream_pieces(reply.text, stream)
                guard.close()
                return guard.completion(reply)
            finally:
                self.call_s += time.perf_counter() - started
        clean, found = redact_messages(messages)
        self.redacted.update(found)
        helped = self._helped(lambda helper: helper.complete(
            clean, model=model, timeout_s=timeout_s, max_tokens=max_tokens,
            temperature=temperature, api_base=api_base, extra=self.extra, on_text=stream,
            max_chars=self.max_chars),
            call=True)
        if isinstance(helped, Completion):
            guard.close()
            return guard.completion(helped)
        litellm, waited = import_timed()
        self.import_s += waited
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
        kwargs["messages"] = [dict(m) for m in clean]
        self.calls += 1
        started = time.perf_counter()
        try:
            response = litellm.completion(**kwargs)
            if stream is not None:
                streamed = _streamed(response, model, stream, self.max_chars)
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
        return guard.completion(_to_completion(response, model).capped(self.max_chars))


def _streamed(chunks: Any, model: str, on_text: Callable[[str], None],
              max_chars: int) -> Completion:
    """The streamed answer handed on piece by piece, then whole (an error mid-stream is
    raised from here, inside the caller's mapping). Past `max_chars` characters the stream
    is closed: nothing more is read, handed on or kept."""
    parts: list[str] = []
    usage: Any = None
    name = model
    read = 0
    for chunk in chunks:
        name = str(getattr(chunk, "model", None) or name)
        usage = getattr(chunk, "usage", None) or usage
        choices = getattr(chunk, "choices", None) or ()
        delta = getattr(choices[0], "delta", None) if choices else None
        text = getattr(delta, "content", None) if delta is not None else None
        if isinstance(text, str) and text:
            kept = text[:max(0, max_chars - read)]
            read += len(text)
            if kept:
                parts.append(kept)
                on_text(kept)
            if read > max_chars:
                _close(chunks)
                break
    content = "".join(parts)
    if not content.strip():
        raise LLMEmptyError(f"{model}: the model returned no text")
    return Completion(text=content, model=name, cut=read > max_chars,
                      read_chars=read if read > max_chars else 0,
                      prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                      completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0))


def _close(stream: Any) -> None:
    """Stop a stream the answer was cut in: the provider's stream under litellm's wrapper
    (`completion_stream`) is closed, so its connection is released, not read on."""
    for target in (getattr(stream, "completion_stream", None), stream):
        closer = getattr(target, "close", None)
        if callable(closer):
            with contextlib.suppress(Exception):
                closer()


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
