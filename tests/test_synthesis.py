"""synthesize(): one completion, the contract, bounded retries, fallback reasons, no secrets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from helpers_synthesis import clarify_envelope, envelope, item

from helix.core.config import SynthesisSettings
from helix.core.errors import (
    LLMError,
    LLMRateLimitError,
    LLMTimeoutError,
    UnknownModelError,
)
from helix.core.ports import Completion, FakeClock
from helix.synthesis.answer import DETERMINISTIC_HEADER, synthesize
from helix.synthesis.llm import LiteLLMClient, _import_litellm
from helix.synthesis.prompt import TOOL_RESULTS_OPEN

SETTINGS = SynthesisSettings(model="gpt-4o-mini", max_retries=2)
GOOD = "Retries are decided by `decide_retry` [E1], documented in docs/retries.md:1-3."


class Counting:
    """Wraps a real client; counts complete() calls and keeps the messages."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0
        self.messages: list[Sequence[dict[str, str]]] = []

    def complete(self, messages: Sequence[dict[str, str]], **kwargs: Any) -> Completion:
        self.calls += 1
        self.messages.append(messages)
        result: Completion = self.inner.complete(messages, **kwargs)
        return result


class Scripted:
    """Raises the scripted errors in order, then answers."""

    def __init__(self, *errors: LLMError, text: str = GOOD) -> None:
        self.errors = list(errors)
        self.text = text
        self.calls = 0

    def complete(self, messages: Sequence[dict[str, str]], **kwargs: Any) -> Completion:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return Completion(text=self.text, model=kwargs["model"], prompt_tokens=7,
                          completion_tokens=3)


def run(env: Any = None, llm: Any = None, settings: SynthesisSettings = SETTINGS,
        **kwargs: Any) -> Any:
    sleeps: list[float] = []
    result = synthesize(env if env is not None else envelope(), llm=llm, settings=settings,
                        clock=FakeClock(), sleep=sleeps.append, **kwargs)
    return result, sleeps


def test_exactly_one_completion_call_and_llm_answer() -> None:
    llm = Counting(LiteLLMClient(mock_response=GOOD))
    result, _ = run(llm=llm)
    env = result.envelope
    assert llm.calls == 1 and llm.inner.calls == 1
    assert env.llm_steps == 1 and result.attempts == 1
    assert env.answer_mode == "llm" and env.answer == GOOD and env.fallback_reason is None
    assert [(c.ref, c.path, c.start_line, c.end_line) for c in env.citations] == [
        ("E1", "src/retry.py", 10, 12), ("E2", "docs/retries.md", 1, 3)]
    assert env.model == "gpt-4o-mini"
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert TOOL_RESULTS_OPEN in llm.messages[0][1]["content"]
    assert result.prompt_messages == tuple(llm.messages[0])


def test_no_model_gives_the_labelled_deterministic_answer() -> None:
    llm = Scripted()
    result, _ = run(llm=llm, settings=SynthesisSettings())
    env = result.envelope
    assert llm.calls == 0 and env.llm_steps == 0
    assert env.answer_mode == "deterministic"
    assert env.answer.startswith(DETERMINISTIC_HEADER)
    assert "src/retry.py:10-12" in env.answer
    assert [c.ref for c in env.citations] == ["E1", "E2"]
    result_none, _ = run(llm=None)
    assert result_none.envelope.answer_mode == "deterministic"


def test_empty_controller_answer_is_rebuilt_from_evidence() -> None:
    env = envelope().model_copy(update={"answer": ""})
    result, _ = run(env=env, settings=SynthesisSettings())
    assert "[E1] src/retry.py:10-12 (decide_retry)" in result.envelope.answer


def test_clarify_envelope_makes_no_call() -> None:
    llm = Scripted()
    result, _ = run(env=clarify_envelope(), llm=llm)
    assert llm.calls == 0
    assert result.envelope.answer_mode == "clarify" and result.envelope.llm_steps == 0
    assert result.envelope.answer.startswith("Which cavity")


def test_no_evidence_claim_falls_back_with_reason() -> None:
    llm = Counting(LiteLLMClient(mock_response="I couldn't find anything about retries."))
    result, _ = run(llm=llm)
    env = result.envelope
    assert llm.calls == 1 and env.llm_steps == 1
    assert env.answer_mode == "fallback"
    assert env.fallback_reason == "contract_no_evidence_claim"
    assert "couldn't find" not in env.answer
    assert "contract_no_evidence_claim" in env.answer.splitlines()[0]
    assert {c.ref for c in env.citations} == {"E1", "E2"}


def test_unsent_citations_are_removed_or_fall_back() -> None:
    partly = Counting(LiteLLMClient(mock_response="In decide_retry [E1] and lib/x.py:4 [E5]."))
    env = run(llm=partly)[0].envelope
    assert env.answer_mode == "llm"
    assert "[E5]" not in env.answer and "lib/x.py" not in env.answer
    assert [c.ref for c in env.citations] == ["E1"]
    only_bad = Counting(LiteLLMClient(mock_response="See src/retry.py:40-50 [E9]."))
    result = run(llm=only_bad)[0]
    assert result.envelope.answer_mode == "fallback"
    assert result.envelope.fallback_reason == "contract_no_valid_citation"
    assert result.removed_citations == ("[E9]", "src/retry.py:40-50")


@pytest.mark.parametrize(("kind", "reason", "transient"), [
    ("Timeout", "timeout", True),
    ("RateLimitError", "rate_limited", True),
    ("APIConnectionError", "transport_error", True),
    ("ServiceUnavailableError", "transport_error", True),
    ("InternalServerError", "transport_error", True),
    ("AuthenticationError", "auth_error", False),
])
def test_each_failure_retries_if_transient_then_falls_back(kind: str, reason: str,
                                                           transient: bool) -> None:
    litellm = _import_litellm()
    exc = getattr(litellm, kind)(message=f"mock {kind}", model="gpt-4o-mini",
                                 llm_provider="openai")
    llm = Counting(LiteLLMClient(mock_response=exc))
    result, sleeps = run(llm=llm)
    expected_attempts = SETTINGS.max_retries + 1 if transient else 1
    assert llm.calls == expected_attempts == result.attempts
    assert len(sleeps) == expected_attempts - 1
    env = result.envelope
    assert env.answer_mode == "fallback" and env.fallback_reason == reason
    assert env.llm_steps == 0
    assert reason in env.answer.splitlines()[0]
    assert "src/retry.py:10-12" in env.answer


def test_empty_output_falls_back_as_abstain_without_retry() -> None:
    llm = Counting(LiteLLMClient(mock_response=""))
    result, sleeps = run(llm=llm)
    assert llm.calls == 1 and sleeps == []
    assert result.envelope.fallback_reason == "abstain"


def test_abstaining_text_falls_back() -> None:
    result, _ = run(llm=Counting(LiteLLMClient(mock_response="I don't know.")))
    assert result.envelope.fallback_reason == "abstain" and result.envelope.llm_steps == 1


def test_transient_error_then_success_is_one_llm_step() -> None:
    llm = Scripted(LLMTimeoutError("t"), LLMRateLimitError("r"))
    result, sleeps = run(llm=llm)
    assert llm.calls == 3 and result.attempts == 3
    assert result.envelope.llm_steps == 1 and result.envelope.answer_mode == "llm"
    assert sleeps == [1.0, 2.0]


def test_retries_are_bounded_by_settings() -> None:
    llm = Scripted(*[LLMTimeoutError("t")] * 10)
    result, _ = run(llm=llm, settings=SETTINGS.model_copy(update={"max_retries": 0}))
    assert llm.calls == 1 and result.envelope.fallback_reason == "timeout"


def test_unknown_model_propagates_as_user_error() -> None:
    with pytest.raises(UnknownModelError):
        run(llm=LiteLLMClient(), settings=SynthesisSettings(model="no-such-provider-xyz"))


def test_before_call_sees_the_prompt_first() -> None:
    seen: list[str] = []

    class Crashing:
        def complete(self, messages: Any, **kwargs: Any) -> Completion:
            seen.append("call")
            raise RuntimeError("process died")

    with pytest.raises(RuntimeError):
        run(llm=Crashing(), before_call=lambda prompt: seen.append(prompt.hash))
    assert seen[0].startswith("sha256:") and seen[1] == "call"


def test_planted_key_never_reaches_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    litellm = _import_litellm()
    key = "sk-proj-" + "Pl4nt3dK3yD0N0tS3nd1234567890abcd"
    aws = "AKIA" + "ZZZZ1111YYYY2222"
    captured: list[Any] = []
    original = litellm.completion

    def spy(*args: Any, **kwargs: Any) -> Any:
        captured.append(kwargs["messages"])
        return original(*args, **kwargs)

    monkeypatch.setattr(litellm, "completion", spy)
    planted = item("config/settings.py", 1, 3,
                   f"OPENAI_API_KEY = '{key}'\nAWS_KEY = '{aws}'\nTIMEOUT = 5\n")
    env = envelope(evidence=(planted, *envelope().evidence),
                   question=f"why does {key} not work?")
    result, _ = run(env=env, llm=LiteLLMClient(mock_response="Set in [E1]."))
    assert len(captured) == 1
    sent = repr(captured[0])
    assert key not in sent and aws not in sent
    assert "[REDACTED:openai_key]" in sent and "TIMEOUT = 5" in sent
    assert result.redactions.counts == {"aws_access_key": 1, "openai_key": 2}
    assert key not in repr(result.prompt_messages)
