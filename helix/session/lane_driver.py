"""The lanes' driver: the one place a continuity lane's requests reach the outside world.

A lane step (`controller.continuity.requests`) yields requests; `LanePorts.perform` answers
them through the session's ports:

    Retrieve     the controller through `helix.service.ask` (logged in the run log)
    LoadGraph    the index graph (never waits for a background dense worker)
    OpenSpan     `controller.continuity.recall.open_span`: read-only, inside the repository only
    CheckDrift   `helix.drift.run.question_drift`: the turn's question re-run as a dry run
                 (nothing logged), compared with its recorded evidence
    ModelCall    the lane model configured for the call's purpose (`LaneLLM`):

    selection_advisory   synthesis.model          the selection lane's bounded advisory pick
    semantic_answer      synthesis.model          the semantic lane's answer-mode phrasing
    small_talk           continuity.chat_model    a small-talk reply (unset: deterministic)

Every model call goes through the same LLM port instance the runner holds: with a model
configured (and no --dry-run) that is `helix.synthesis.llm.LiteLLMClient`, which redacts every
message right before the request. A lane never builds a client, never sees litellm, and never
retries on its own (its budgets say how many calls it may make).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.continuity.caps import ContinuityCaps
from controller.continuity.requests import (
    CheckDrift,
    LoadGraph,
    ModelCall,
    OpenSpan,
    Purpose,
    Request,
    Retrieve,
    Steps,
    drive,
)
from controller.continuity.state import TargetRef
from controller.continuity.turn import OpenedSpan
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope
from helix.core.errors import BadPathError, HelixError, LLMError
from helix.core.ports import LLM
from helix.core.secrets import redact_text


class LaneLLM:
    """A model, reachable for one purpose, through the LLM port. `calls` counts the requests."""

    def __init__(self, llm: LLM, model: str, *, purpose: Purpose, api_base: str | None = None,
                 caps: ContinuityCaps) -> None:
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


def lane_llm(llm: LLM | None, model: str | None, purpose: Purpose, api_base: str | None,
             caps: ContinuityCaps) -> LaneLLM | None:
    """A LaneLLM when both a client and a model are given, else None (deterministic only)."""
    if llm is None or not model:
        return None
    return LaneLLM(llm, model, purpose=purpose, api_base=api_base, caps=caps)


@dataclass(frozen=True)
class LaneModels:
    selection: LaneLLM | None = None
    semantic: LaneLLM | None = None
    small_talk: LaneLLM | None = None

    @property
    def calls(self) -> int:
        return sum(m.calls for m in (self.selection, self.semantic, self.small_talk) if m)

    def of(self, purpose: Purpose) -> LaneLLM | None:
        return {"selection_advisory": self.selection, "semantic_answer": self.semantic,
                "small_talk": self.small_talk}[purpose]

    def names(self) -> dict[Purpose, str]:
        """The model configured for each purpose that has one (what a lane step may ask)."""
        purposes: tuple[Purpose, ...] = ("selection_advisory", "semantic_answer", "small_talk")
        return {p: m.model for p in purposes if (m := self.of(p)) is not None}


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

    return LiteLLMClient(max_chars=config.synthesis.max_answer_chars)


def open_span(root: Path, target: TargetRef, max_lines: int, max_bytes: int) -> OpenedSpan:
    """Read `target`'s lines from the repository (read-only, inside the root only, a file of
    at most `max_bytes`: `helix.lookups.span_text`)."""
    from helix.lookups import span_text

    if not target.path:
        raise BadPathError(f"{target.label or target.id} has no file to open")
    _, text = span_text(root.resolve(), target.path, max_bytes)
    lines = redact_text(text)[0].splitlines()
    start = max(1, target.start_line or 1)
    end = min(len(lines), target.end_line or len(lines))
    shown_end = min(end, start + max_lines - 1)
    text = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(start, shown_end + 1))
    return OpenedSpan(path=target.path, start_line=start, end_line=shown_end, text=text,
                      truncated=shown_end < end, target=target)



class Asker(Protocol):
    def __call__(self, question: str, *, scope: str | None, sense: str | None) -> Envelope: ...


GraphProvider = Callable[[], Any]
DriftCheck = Callable[[Envelope], Any]  # an earlier answer -> its `QuestionDrift` now


@dataclass(frozen=True)
class LanePorts:
    """What the lanes' requests are answered with. A port left out fails its request the way
    the real one fails (the step degrades or says so), never silently."""

    root: Path | None = None
    models: LaneModels = NO_MODELS
    asker: Asker | None = None
    graph: GraphProvider | None = None
    drift: DriftCheck | None = None
    # a span's file is read only up to this size (`index.max_file_bytes`)
    max_file_bytes: int = field(kw_only=True)

    def perform(self, request: Request) -> Any:
        if isinstance(request, ModelCall):
            model = self.models.of(request.purpose)
            if model is None:
                raise LLMError(f"no model is configured for {request.purpose}")
            return model.complete([dict(m) for m in request.messages])
        if isinstance(request, OpenSpan):
            if self.root is None:
                raise BadPathError("no repository to open spans in")
            return open_span(self.root, request.target, request.max_lines,
                             self.max_file_bytes)
        if isinstance(request, Retrieve):
            if self.asker is None:
                raise HelixError("no controller to ask")  # pragma: no cover - the runner sets it
            return self.asker(request.question, scope=request.scope, sense=request.sense)
        if isinstance(request, CheckDrift):
            if self.drift is None:
                raise HelixError("no drift check here")
            return self.drift(request.envelope)
        if isinstance(request, LoadGraph):
            if self.graph is None:
                raise HelixError("no index graph")  # pragma: no cover - the runner sets it
            return self.graph()
        raise TypeError(f"unknown lane request {request!r}")

    def run(self, steps: Steps[Any]) -> Any:
        return drive(steps, self.perform)
