"""Models that answer without a network: the registered `fake/` models and `FakeLLM`.

Two ways to run the synthesis and the session lanes with no provider, both behind the LLM port:

- The registered test models, chosen like any model (`--model`, `HELIX_MODEL`,
  `synthesis.model`) and served by `LiteLLMClient` after its redaction, without importing
  litellm:
      fake/echo            quotes the first line of the first evidence item, citing [E1]
      fake/say:TEXT        answers TEXT, word for word
      fake/empty           answers nothing (the synthesis falls back: "abstain")
      fake/error:REASON    fails as a provider would: timeout, rate_limited, transport_error,
                           auth_error
  A fresh `helix ask --model fake/echo` goes through the whole answer path (prompt, one call,
  contract, run log) offline; the tests use the same models in fresh processes.
- `FakeLLM`: the port itself, scripted reply by reply (text or an LLMError), recording every
  call's messages; for tests that drive the synthesis or a lane in process.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from helix.core.english import count_tokens
from helix.core.errors import (
    LLMAuthError,
    LLMEmptyError,
    LLMError,
    LLMRateLimitError,
    LLMTimeoutError,
    LLMTransportError,
    UnknownModelError,
)
from helix.core.ports import Completion

PREFIX = "fake/"
ERRORS: dict[str, type[LLMError]] = {
    "timeout": LLMTimeoutError, "rate_limited": LLMRateLimitError,
    "transport_error": LLMTransportError, "auth_error": LLMAuthError,
}
MODES = ("echo", "say:TEXT", "empty", *(f"error:{name}" for name in ERRORS))
# the first item of the prompt's TOOL_RESULTS block: its header line, then its text
_FIRST_ITEM = re.compile(r"\[E1\][^\n]*\n(?:`{3,}[^\n]*\n)?(?P<line>[^\n`][^\n]*)")


def is_fake(model: str) -> bool:
    return model.startswith(PREFIX)


def _echo(messages: Sequence[dict[str, str]]) -> str:
    text = "\n".join(m.get("content", "") for m in messages if m.get("role") == "user")
    match = _FIRST_ITEM.search(text)
    if match is None:
        return ""
    return f"The evidence says: {match.group('line').strip()} [E1]"


def fake_reply(model: str, messages: Sequence[dict[str, str]]) -> Completion:
    """The answer of the registered test model `model` (see the module docstring)."""
    mode = model[len(PREFIX):]
    if mode == "echo":
        text = _echo(messages)
    elif mode.startswith("say:"):
        text = mode[len("say:"):]
    elif mode == "empty":
        text = ""
    elif mode.startswith("error:") and mode[len("error:"):] in ERRORS:
        reason = mode[len("error:"):]
        raise ERRORS[reason](f"{model}: failed as asked ({reason})")
    else:
        close = difflib.get_close_matches(mode, MODES, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(PREFIX + c for c in close)}?" if close else ""
        raise UnknownModelError(f"unknown test model {model!r}: the fake models are "
                                f"{', '.join(PREFIX + m for m in MODES)}{hint}")
    if not text.strip():
        raise LLMEmptyError(f"{model}: the model returned no text")
    # reported as a provider would: the model (its mode, not the scripted text) and the usage
    return Completion(text=text, model=PREFIX + mode.split(":", 1)[0],
                      prompt_tokens=sum(count_tokens(m.get("content", "")) for m in messages),
                      completion_tokens=count_tokens(text))


def stream_pieces(text: str, on_text: Callable[[str], None] | None) -> None:
    """A test model's answer handed on as a streaming model would: word by word."""
    if on_text is not None:
        for piece in re.findall(r"\S+\s*|\s+", text):
            on_text(piece)


class FakeLLM:
    """The LLM port, scripted: each call takes the next reply (text, or an LLMError to raise),
    or, with `respond`, asks it for every reply (`respond(model, messages) -> text`). `calls`
    keeps every call's messages and `models` the model each was for. A call past the script
    is a test failure."""

    def __init__(self, *replies: str | LLMError,
                 respond: Callable[[str, Sequence[dict[str, str]]], str] | None = None) -> None:
        self.replies = list(replies)
        self.respond = respond
        self.calls: list[list[dict[str, str]]] = []
        self.models: list[str] = []

    def complete(self, messages: Sequence[dict[str, str]], *, model: str, timeout_s: float,
                 max_tokens: int, temperature: float, api_base: str | None = None,
                 on_text: Callable[[str], None] | None = None) -> Completion:
        self.calls.append([dict(m) for m in messages])
        self.models.append(model)
        if self.respond is not None and not self.replies:
            text = self.respond(model, messages)
        else:
            if not self.replies:
                raise AssertionError("FakeLLM: a call past the scripted replies")
            reply = self.replies.pop(0)
            if isinstance(reply, LLMError):
                raise reply
            text = reply
        stream_pieces(text, on_text)
        return Completion(text=text, model=model)
