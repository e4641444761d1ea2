"""The session's models for the continuity lanes: one `LaneLLM` per purpose, or none.

    selection_advisory   synthesis.model          the selection lane's bounded advisory pick
    semantic_answer      synthesis.model          the semantic lane's answer-mode phrasing
    small_talk           continuity.chat_model    a small-talk reply (unset: deterministic)

Every one of them reaches the model through the same LLM port instance the runner holds: with a
model configured (and no --dry-run) that is `helix.synthesis.llm.LiteLLMClient`, which redacts
every message right before the request. Nothing here reads the repository.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.continuity.lane_llm import LaneLLM, lane_llm
from helix.core.config import HelixConfig
from helix.core.ports import LLM


@dataclass(frozen=True)
class LaneModels:
    selection: LaneLLM | None = None
    semantic: LaneLLM | None = None
    small_talk: LaneLLM | None = None

    @property
    def calls(self) -> int:
        return sum(m.calls for m in (self.selection, self.semantic, self.small_talk) if m)


NO_MODELS = LaneModels()


def needs_client(config: HelixConfig) -> bool:
    """Does any lane (or synthesis) have a model configured?"""
    return bool(config.synthesis.model or config.continuity.chat_model)


def lane_models(config: HelixConfig, llm: LLM | None) -> LaneModels:
    """The lanes' models over the one client `llm` (None: every lane is deterministic)."""
    base, caps = config.synthesis.api_base, config.continuity.caps
    return LaneModels(
        selection=lane_llm(llm, config.synthesis.model, "selection_advisory", base, caps),
        semantic=lane_llm(llm, config.synthesis.model, "semantic_answer", base, caps),
        small_talk=lane_llm(llm, config.continuity.chat_model, "small_talk", base, caps))


def client(config: HelixConfig) -> LLM | None:
    """The LLM port for a session: LiteLLMClient when any model is configured (a registered
    `fake/` model answers without a request, as in synthesis), else None."""
    if not needs_client(config):
        return None
    from helix.synthesis.llm import LiteLLMClient

    return LiteLLMClient()
