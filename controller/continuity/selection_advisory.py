"""The selection lane's bounded advisory call: its request, its verdict, its enrichment.

The request is structured and bounded (umbrella Step 2: a `continuityContext` block, the
candidate ids, never a transcript); the verdict is advisory (the lane's deterministic gates
keep execution authority); enrichment is orchestrator-driven, for the current candidates only,
from the canonical allowlist; retries need a changed `evidenceFingerprint`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal, Protocol

from controller.continuity.caps import ContinuityCaps
from controller.continuity.fingerprint import (
    CandidateSignature,
    FingerprintInput,
    ScopeBinding,
    evidence_fingerprint,
    normalize_label,
)
from controller.continuity.requests import Steps
from controller.continuity.state import ContinuityState, OptionItem, OptionSet
from helix.core.hashing import canonical_json
from helix.core.schemas import Frozen

EnrichmentType = Literal["chat_active_options", "chat_recoverable_options",
                         "active_widget_items", "active_dashboard_items",
                         "active_workspace_items", "scope_disambiguation_hint"]
ENRICHMENT_ALLOWLIST: tuple[EnrichmentType, ...] = (
    "chat_active_options", "chat_recoverable_options", "active_widget_items",
    "active_dashboard_items", "active_workspace_items", "scope_disambiguation_hint")
# What Helix can refresh for the selection lane: the active list, recoverable lists in the same
# scope, the focused object's snapshot, a scope hint. Dashboards / workspaces do not exist here.
SELECTION_ENRICHMENT_TYPES: tuple[EnrichmentType, ...] = (
    "chat_active_options", "chat_recoverable_options", "active_widget_items",
    "scope_disambiguation_hint")
DEFAULT_ENRICHMENT: tuple[EnrichmentType, ...] = ("chat_active_options",)


class SelectionEnrichment(Frozen):
    """What the orchestrator returns: refreshed metadata for current candidates only."""

    items: tuple[OptionItem, ...] = ()
    excerpt_hashes: tuple[str, ...] = ()


class SelectionEnricher(Protocol):
    """A lane step (`controller.continuity.requests`): it may yield span reads."""

    def enrich(self, types: tuple[EnrichmentType, ...], option_set: OptionSet,
               pool: tuple[OptionItem, ...]) -> Steps[SelectionEnrichment]: ...


class Verdict(Frozen):
    decision: Literal["select", "need_more_info", "abstain"]
    choice_id: str | None = None
    confidence: float = 0.0
    needed_evidence_types: tuple[str, ...] = ()


def parse_verdict(text: str) -> Verdict:
    """The advisory call's JSON verdict; anything unparseable is an abstain."""
    start, end = text.find("{"), text.rfind("}")
    try:
        raw = json.loads(text[start:end + 1]) if 0 <= start < end else None
    except ValueError:
        raw = None
    if not isinstance(raw, dict):
        return Verdict(decision="abstain")
    decision = str(raw.get("decision", "abstain"))
    if decision == "request_context":  # structured need_more_info variant, no own path
        decision = "need_more_info"
    if decision not in ("select", "need_more_info", "abstain"):
        decision = "abstain"
    try:
        confidence = min(1.0, max(0.0, float(raw.get("confidence", 0.0))))
    except (TypeError, ValueError):
        confidence = 0.0
    choice = raw.get("choice_id", raw.get("choiceId"))
    needed = raw.get("needed_evidence_types", raw.get("neededEvidenceTypes")) or []
    return Verdict(decision=decision,  # type: ignore[arg-type]
                   choice_id=str(choice) if choice is not None else None,
                   confidence=confidence,
                   needed_evidence_types=tuple(str(n) for n in needed if isinstance(n, str)))


def validate_needed_types(requested: Sequence[str],
                          caps: ContinuityCaps) -> tuple[EnrichmentType, ...]:
    """Allowlist + lane scope + cap; duplicates dropped, order kept."""
    out: list[EnrichmentType] = []
    for name in requested:
        if name in SELECTION_ENRICHMENT_TYPES and name not in out:
            out.append(name)
    return tuple(out[: caps.needed_evidence_types_max]) or DEFAULT_ENRICHMENT


def pool_fingerprint(option_set: OptionSet, scope: str, pool: tuple[OptionItem, ...],
                     excerpt_hashes: tuple[str, ...] = ()) -> str:
    sigs = tuple(CandidateSignature(id=i.id, label_normalized=normalize_label(i.label),
                                    path=i.target.path, kind=i.target.kind,
                                    owner=i.target.symbol, sublabel=i.sublabel or None)
                 for i in pool)
    return evidence_fingerprint(FingerprintInput(
        scope_binding=ScopeBinding(active_scope=scope, scope_instance_id=option_set.id),
        active_option_set_id=option_set.id, candidate_signatures=sigs,
        excerpt_hashes=excerpt_hashes))


_SYSTEM = (
    "You decide which numbered candidate a follow-up refers to. Reply with one JSON object "
    'only: {"decision": "select" | "need_more_info" | "abstain", "choice_id": "<candidate '
    'id>", "confidence": <0..1>, "needed_evidence_types": [...]}. Use only ids listed in '
    "candidates; never an id in recentRejectedChoiceIds; if unsure, say need_more_info or "
    "abstain.")


def advisory_messages(text: str, pool: tuple[OptionItem, ...], state: ContinuityState,
                      option_set: OptionSet, scope: str,
                      caps: ContinuityCaps) -> list[dict[str, str]]:
    last = state.last_resolved_action
    context = {  # structured and bounded, never a transcript
        "activeOptionSetId": option_set.id, "activeScope": scope,
        "lastAcceptedChoiceId": state.last_accepted_choice_id,
        "recentAcceptedChoiceIds": list(state.recent_accepted_choice_ids),
        "recentRejectedChoiceIds": list(state.recent_rejected_choice_ids),
        "lastResolvedAction": None if last is None else {
            "type": last.type, "target": last.target_ref.label[: caps.label_max_chars],
            "optionSetId": last.option_set_id},
    }
    payload = {"input": text, "continuityContext": context, "candidates": [
        {"id": i.id, "index": i.index, "label": i.label[: caps.label_max_chars],
         "sublabel": i.sublabel[: caps.label_max_chars]} for i in pool]}
    return [{"role": "system", "content": _SYSTEM},
            {"role": "user", "content": canonical_json(payload)}]
