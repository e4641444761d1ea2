"""Shared builders for the continuity lane tests: option sets, states, a scriptable fake LLM."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.continuity.requests import Purpose
from controller.continuity.selection import SelectionDecision, selection_steps
from controller.continuity.semantic import (
    MixedOutcome,
    SemanticDecision,
    mixed_intent_steps,
    semantic_steps,
)
from controller.continuity.state import (
    ActionTraceEntry,
    ContinuityState,
    FocusState,
    OptionItem,
    OptionSet,
    ResolvedAction,
    TargetRef,
)
from helix.core.config import ContinuitySettings, IndexSettings
from helix.core.ports import LLM
from helix.session.lane_driver import LaneModels, LanePorts, lane_llm
from helix.synthesis.fake_llm import FakeLLM  # noqa: F401  (the tests' one fake model)

NOW_MS = 1_700_000_000_000
MINUTE_MS = 60_000


def item(index: int, cid: str, label: str, path: str | None = None, symbol: str | None = None,
         kind: str = "span", sublabel: str = "", sense: str | None = None) -> OptionItem:
    target = TargetRef(kind=kind, id=f"node:{cid}", label=label, path=path, start_line=1,  # type: ignore[arg-type]
                       end_line=9, symbol=symbol)
    return OptionItem(id=cid, index=index, label=label, target=target, sublabel=sublabel,
                      sense=sense)


EVIDENCE_ITEMS = (
    item(1, "e1", "indexers/bm25.py: BM25Index.build", "indexers/bm25.py", "BM25Index.build",
         sublabel="indexers/bm25.py:10-40"),
    item(2, "e2", "indexers/tokenize.py: tokenize", "indexers/tokenize.py", "tokenize",
         sublabel="indexers/tokenize.py:1-20"),
    item(3, "e3", "tests/test_bm25.py: test_build", "tests/test_bm25.py", "test_build",
         sublabel="tests/test_bm25.py:5-30"),
    item(4, "e4", "README.md: The BM25 index", "README.md", None, kind="section",
         sublabel="README.md:12-30"),
)

SAMPLE_ITEMS = (
    item(1, "s1", "sample1", "docs/sample1.md"),
    item(2, "s2", "sample2", "docs/sample2.md"),
    item(3, "s3", "summary155", "docs/summary155.md"),
)


def option_set(osid: str, items: Sequence[OptionItem], kind: str = "evidence",
               scope: str | None = None, turn: int = 1) -> OptionSet:
    return OptionSet(id=osid, kind=kind, scope=scope or kind, origin_turn_id=turn,  # type: ignore[arg-type]
                     items=tuple(items))


def state_with(*sets: OptionSet, active: str | None = None, turn_count: int = 1,
               **extra: object) -> ContinuityState:
    active_set = next((s for s in sets if s.id == active), sets[-1] if sets else None)
    return ContinuityState(
        session_id="s", turn_count=turn_count, option_sets=tuple(sets),
        active_option_set_id=active_set.id if active_set else None,
        active_scope=active_set.scope if active_set else None, **extra)  # type: ignore[arg-type]


def resolved(target: OptionItem, option_set_id: str, ts: int = NOW_MS - MINUTE_MS,
             turn_id: int = 2, text: str = "open the second one") -> ResolvedAction:
    return ResolvedAction(type="open_span", target_ref=target.target, source_scope="evidence",
                          option_set_id=option_set_id, timestamp=ts, outcome="executed",
                          turn_id=turn_id, user_text=text,
                          reason="ordinal -> item 2 in the evidence list of turn 1")


def trace_entry(target: OptionItem, ts: int, action: str = "open_span",
                option_set_id: str | None = "os1") -> ActionTraceEntry:
    return ActionTraceEntry(type=action, target_ref=target.target, source_scope="evidence",  # type: ignore[arg-type]
                            option_set_id=option_set_id, timestamp=ts, outcome="executed")


def focus_on(target: OptionItem, turn: int = 2) -> FocusState:
    return FocusState(anchor_turn_id=turn, anchor_source="lane_recency", snippet=target.label,
                      object_ref=target.target)


# A lane run alone, through the session's own driver (`LanePorts`): `llm` + `model` (or neither)
# is the lane's model, `root` the repository its span reads open.

def _ports(settings: ContinuitySettings, kwargs: dict[str, Any], purpose: Purpose,
           llm: LLM | None, model: str | None, root: Path | None) -> tuple[LanePorts, bool]:
    lane = lane_llm(llm, model, purpose, None, kwargs.get("caps") or settings.caps)
    models = (LaneModels(semantic=lane) if purpose == "semantic_answer"
              else LaneModels(selection=lane))
    return (LanePorts(root=root, models=models, max_file_bytes=IndexSettings().max_file_bytes),
            lane is not None)


def run_selection_lane(text: str, state: ContinuityState, settings: ContinuitySettings, *,
                       now_ms: int, llm: LLM | None = None, model: str | None = None,
                       root: Path | None = None, **kwargs: Any) -> SelectionDecision:
    ports, ready = _ports(settings, kwargs, "selection_advisory", llm, model, root)
    return ports.run(selection_steps(text, state, settings, now_ms=now_ms, model_ready=ready,
                                     **kwargs))


def run_semantic_lane(text: str, state: ContinuityState, settings: ContinuitySettings, *,
                      now_ms: int, llm: LLM | None = None, model: str | None = None,
                      root: Path | None = None, **kwargs: Any) -> SemanticDecision:
    ports, ready = _ports(settings, kwargs, "semantic_answer", llm, model, root)
    return ports.run(semantic_steps(text, state, settings, now_ms=now_ms, model_ready=ready,
                                    **kwargs))


def run_mixed_intent(text: str, state: ContinuityState, settings: ContinuitySettings, *,
                     now_ms: int, llm: LLM | None = None, model: str | None = None,
                     root: Path | None = None, **kwargs: Any) -> MixedOutcome:
    ports, ready = _ports(settings, kwargs, "selection_advisory", llm, model, root)
    return ports.run(mixed_intent_steps(text, state, settings, now_ms=now_ms,
                                        model_ready=ready, **kwargs))
