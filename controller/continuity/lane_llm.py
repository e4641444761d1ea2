"""The one path from a continuity lane to a language model.

Every lane call (the selection lane's advisory pick, the semantic lane's answer-mode phrasing,
a small-talk reply) goes through `LaneLLM.complete`: the LLM port of `helix.core.ports` with the
bounded budget of the constants table (timeout, temperature, max tokens per purpose). The session
driver builds one per purpose from the settings (`helix.session.lane_driver`) with the same
client as synthesis, `helix.synthesis.llm.LiteLLMClient`, which redacts every message right
before the request. A lane never builds a client, never sees litellm, and never retries on its
own (its budgets say how many calls it may make).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from controller.continuity.caps import CAPS, ContinuityCaps
from helix.core.ports import LLM

Purpose = Literal["selection_advisory", "semantic_answer", "small_talk"]


class LaneLLM:
    """A model, reachable for one purpose, through the LLM port. `calls` counts the requests."""

    def __init__(self, llm: LLM, model: str, *, purpose: Purpose, api_base: str | None = None,
                 caps: ContinuityCaps = CAPS) -> None:
        self.llm, self.model, self.purpose, self.api_base = llm, model, purpose, api_base
        self.caps = caps
        self.calls = 0

    def max_tokens(self) -> int:
        return {"selection_advisory": self.caps.advisory_llm_max_tokens,
                "semantic_answer": self.caps.semantic_llm_max_tokens,
                "small_talk": self.caps.small_talk_llm_max_tokens}[self.purpose]

    def complete(self, messages: Sequence[dict[str, str]]) -> str:
        """The model's text; raises `helix.core.errors.LLMError` (the caller degrades)."""
        self.calls += 1
        out = self.llm.complete(list(messages), model=self.model, api_base=self.api_base,
                                timeout_s=self.caps.advisory_llm_timeout_s,
                                max_tokens=self.max_tokens(),
                                temperature=self.caps.advisory_llm_temperature)
        return out.text


def lane_llm(llm: LLM | None, model: str | None, purpose: Purpose, api_base: str | None = None,
             caps: ContinuityCaps = CAPS) -> LaneLLM | None:
    """A LaneLLM when both a client and a model are given, else None (deterministic only)."""
    if llm is None or not model:
        return None
    return LaneLLM(llm, model, purpose=purpose, api_base=api_base, caps=caps)
