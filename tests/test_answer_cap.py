"""A model's answer is read up to a character cap, and the envelope says it was cut (issue 28:
a 14.8 MB answer was accepted: 166 s, 840 MB, 30 MB into the run log).

`synthesis.max_tokens` goes to litellm as `max_tokens`; `synthesis.max_answer_chars` bounds
what is read (a stream is closed there), kept, checked, shown and stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from cli_helpers import run

from helix.core.config import SynthesisSettings
from helix.core.ports import FakeClock
from helix.synthesis.answer import synthesize
from helix.synthesis.fake_llm import FakeLLM
from helix.synthesis.llm import LiteLLMClient, _streamed
from tests.helpers_synthesis import envelope
from tests.index_fixtures import write_repo

CITED = "It is decided in decide_retry [E1]. "


def test_synthesis_keeps_the_first_part_and_says_so() -> None:
    told: list[str] = []
    settings = SynthesisSettings(model="m", max_answer_chars=1000)
    done = synthesize(envelope(), llm=FakeLLM(CITED * 20_000), settings=settings,
                      clock=FakeClock(), notify=told.append)
    out = done.envelope
    assert out.answer_mode == "llm" and len(out.answer) <= 1000
    assert out.answer_cut is not None
    assert out.answer_cut.kept_chars == 1000 and out.answer_cut.read_chars == len(CITED) * 20_000
    assert told == ["the model's answer was cut at 1,000 characters "
                    "(synthesis.max_answer_chars); reading stopped after 720,000"]
    assert "answer_cut" in json.loads(out.model_dump_json())
    short = synthesize(envelope(), llm=FakeLLM(CITED), settings=settings, clock=FakeClock())
    assert short.envelope.answer_cut is None
    assert "answer_cut" not in json.loads(short.envelope.model_dump_json())


class _Chunk:
    def __init__(self, text: str) -> None:
        delta = type("Delta", (), {"content": text})()
        self.choices = [type("Choice", (), {"delta": delta})()]
        self.model = "m"
        self.usage = None


class _Stream:
    """A provider stream that never ends, counting what was read and whether it was closed."""

    def __init__(self) -> None:
        self.read = 0
        self.closed = False

    def __iter__(self) -> Iterator[_Chunk]:
        while not self.closed:
            self.read += 1
            yield _Chunk("word " * 20)

    def close(self) -> None:
        self.closed = True


def test_a_stream_is_read_up_to_the_cap_then_closed() -> None:
    stream = _Stream()
    shown: list[str] = []
    done = _streamed(stream, "m", shown.append, 1000)
    assert stream.closed and stream.read == 11  # 100 characters a chunk
    assert len(done.text) == 1000 and "".join(shown) == done.text
    assert done.cut and done.read_chars == 1100


def test_litellm_gets_max_tokens_and_a_whole_answer_is_cut(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    from helix.synthesis.llm import _import_litellm

    litellm = _import_litellm()
    sent: list[dict[str, Any]] = []
    real = litellm.completion

    def spy(**kwargs: Any) -> Any:
        sent.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(litellm, "completion", spy)
    client = LiteLLMClient(mock_response="x" * 200_000, max_chars=5000)
    done = client.complete([{"role": "user", "content": "q"}], model="gpt-4o-mini",
                           timeout_s=5, max_tokens=321, temperature=0.0)
    assert sent[0]["max_tokens"] == 321
    assert done.text == "x" * 5000 and done.cut and done.read_chars == 200_000
    assert LiteLLMClient().max_chars == SynthesisSettings().max_answer_chars


def test_the_cli_shows_stores_and_reports_the_cut(tmp_path: Any,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_repo(tmp_path / "repo")
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_SYNTHESIS__MAX_ANSWER_CHARS", "300")
    answer = "The retry policy is decided in retry_policy [E1]. " * 2000  # 100,000 characters
    code, out, err = run(["ask", "where is the retry policy decided?", "--repo", str(repo),
                          "--model", f"fake/say:{answer}", "--json"], capsys)
    assert code == 0, err
    env = json.loads(out)
    assert env["answer_mode"] == "llm" and len(env["answer"]) <= 300
    assert env["answer_cut"] == {"kept_chars": 300, "read_chars": 100_000}
    assert ("helix: the model's answer was cut at 300 characters (synthesis.max_answer_chars); "
            "reading stopped after 100,000") in err.splitlines()
    code, shown, err = run(["show", "last", "--json"], capsys)
    assert code == 0, err
    stored = json.loads(shown)
    stored = stored.get("envelope", stored)
    assert stored["answer_cut"] == {"kept_chars": 300, "read_chars": 100_000}
    assert "retry_policy [E1]. " * 10 not in shown  # the rest was never kept
