"""A slow model endpoint: one notice that the model is being waited for, one total deadline
for the whole synthesis (retries included), then the deterministic answer (reason timeout)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from helpers_synthesis import envelope

from helix.core.config import SynthesisSettings
from helix.core.errors import LLMTransportError
from helix.core.ports import Completion, FakeClock
from helix.synthesis.answer import synthesize


class Slow:
    """Answers after `delay` seconds (or never, until released); counts requests."""

    def __init__(self, delay: float, text: str = "It is decided in [E1].") -> None:
        self.delay, self.text = delay, text
        self.calls = 0
        self.release = threading.Event()

    def complete(self, messages: Sequence[dict[str, str]], **kwargs: Any) -> Completion:
        self.calls += 1
        self.release.wait(self.delay)
        return Completion(text=self.text, model=kwargs["model"])


class FailingThenSlow(Slow):
    def complete(self, messages: Sequence[dict[str, str]], **kwargs: Any) -> Completion:
        if self.calls == 0:
            self.calls += 1
            raise LLMTransportError("connection reset")
        return super().complete(messages, **kwargs)


@pytest.fixture
def notices() -> list[str]:
    return []


def test_slow_model_falls_back_at_the_deadline_with_one_notice(notices: list[str]) -> None:
    llm = Slow(delay=30.0)
    settings = SynthesisSettings(model="slow-model", deadline_s=0.4, max_retries=3)
    started = time.monotonic()
    result = synthesize(envelope(), llm=llm, settings=settings, clock=FakeClock(),
                        notify=notices.append, notice_s=0.1)
    took = time.monotonic() - started
    llm.release.set()
    env = result.envelope
    assert took < 2.0
    assert env.answer_mode == "fallback" and env.fallback_reason == "timeout"
    assert env.answer.startswith("Deterministic answer (the model's answer was not used: timeout)")
    assert llm.calls == 1  # a request that outlived the deadline is not retried
    assert notices[0] == "waiting for slow-model (up to 0.4 s)..."
    assert sum("waiting for" in n for n in notices) == 1
    assert any("deadline" in n and "synthesis.deadline_s" in n for n in notices)


def test_retries_and_backoff_count_against_the_same_deadline(notices: list[str]) -> None:
    llm = FailingThenSlow(delay=30.0)
    settings = SynthesisSettings(model="m", deadline_s=0.5, max_retries=5, retry_backoff_s=0.0)
    started = time.monotonic()
    result = synthesize(envelope(), llm=llm, settings=settings, clock=FakeClock(),
                        notify=notices.append, notice_s=0.1)
    llm.release.set()
    assert time.monotonic() - started < 2.0
    assert result.envelope.fallback_reason == "timeout" and llm.calls == 2
    assert result.attempts == 2


def test_a_backoff_longer_than_the_time_left_ends_at_once() -> None:
    llm = FailingThenSlow(delay=0.0)
    settings = SynthesisSettings(model="m", deadline_s=1.0, max_retries=5, retry_backoff_s=5.0)
    slept: list[float] = []
    result = synthesize(envelope(), llm=llm, settings=settings, clock=FakeClock(),
                        sleep=slept.append)
    assert slept == [] and llm.calls == 1
    assert result.envelope.fallback_reason == "timeout"


def test_a_fast_model_prints_no_notice(notices: list[str]) -> None:
    result = synthesize(envelope(), llm=Slow(delay=0.0), settings=SynthesisSettings(model="m"),
                        clock=FakeClock(), notify=notices.append, notice_s=5.0)
    assert result.envelope.answer_mode == "llm" and notices == []


def test_the_per_request_timeout_never_exceeds_the_time_left() -> None:
    seen: list[float] = []

    class Recording(Slow):
        def complete(self, messages: Sequence[dict[str, str]], **kwargs: Any) -> Completion:
            seen.append(kwargs["timeout_s"])
            return super().complete(messages, **kwargs)

    synthesize(envelope(), llm=Recording(delay=0.0),
               settings=SynthesisSettings(model="m", timeout_s=60.0, deadline_s=5.0),
               clock=FakeClock())
    assert 0 < seen[0] <= 5.0


def test_cli_waits_quietly_off_a_terminal_then_falls_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import helix.service as service
    import helix.synthesis.answer as answer

    llm = Slow(delay=30.0)
    monkeypatch.setattr(service, "default_llm", lambda config: llm)
    monkeypatch.setattr(answer, "WAIT_NOTICE_S", 0.05)
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_SYNTHESIS__DEADLINE_S", "0.3")
    (tmp_path / "retry.py").write_text("def decide_retry(attempt):\n    return attempt < 5\n",
                                       encoding="utf-8")
    code, out, err = run(["ask", "--repo", str(tmp_path), "--model", "slow-model",
                          "where is decide_retry?"], capsys)
    llm.release.set()
    assert code == 3  # answered without the model
    # standard error is not a terminal here: no timer, no waiting line (the terminal's live
    # timer is tested in test_wait_timer.py); the failure itself is still said in one line
    assert "waiting for" not in err
    assert "timeout" in err and "mode fallback (timeout)" in out


def test_deadline_setting_is_range_checked() -> None:
    from pydantic import ValidationError

    for bad in (0, -1, float("nan"), float("inf"), 10_000):
        with pytest.raises(ValidationError):
            SynthesisSettings(deadline_s=bad)
