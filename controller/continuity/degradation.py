"""The degradation matrix of the umbrella contract: every failure ends in a clarifier, never an act.

    condition                    selection lane (active ctx) semantic lane     reason
    timeout                      safe clarifier              packed clarifier  timeout
    429 rate limit               safe clarifier              packed clarifier  rate_limited
    transport / server error     safe clarifier              packed clarifier  transport_error
    abstain / no actionable      safe clarifier              packed clarifier  abstain
    low confidence               safe clarifier              packed clarifier  low_confidence
    fingerprint unchanged        no retry, safe clarifier    no retry, packed  no_new_evidence
    enrichment budget exhausted  no retry, safe clarifier    no retry, packed  budget_exhausted

`helix.core.errors.LLMAuthError` (reason `auth_error`) is not a canonical reason; the call
failed before reaching a model, so it degrades like a transport error.
"""

from __future__ import annotations

from typing import Literal

from helix.core.errors import LLMError
from helix.core.schemas import Frozen

FallbackReason = Literal["timeout", "rate_limited", "transport_error", "abstain",
                         "low_confidence", "no_new_evidence", "budget_exhausted"]
FALLBACK_REASONS: tuple[FallbackReason, ...] = (
    "timeout", "rate_limited", "transport_error", "abstain", "low_confidence",
    "no_new_evidence", "budget_exhausted")

Condition = Literal["timeout", "rate_limited", "transport_error", "abstain", "low_confidence",
                    "fingerprint_unchanged", "budget_exhausted"]
Lane = Literal["selection", "semantic"]
ClarifierKind = Literal["safe_clarifier", "packed_grounded_clarifier"]


class Degradation(Frozen):
    """What a lane does when its ladder cannot resolve: one clarifier, a reason, no action."""

    lane: Lane
    condition: Condition
    reason: FallbackReason
    clarifier: ClarifierKind
    # Selection lane: the clarifier stays in the active option set / scope.
    in_active_context: bool
    retry_allowed: Literal[False] = False
    executes: Literal[False] = False
    note: str


_REASON: dict[Condition, FallbackReason] = {
    "timeout": "timeout",
    "rate_limited": "rate_limited",
    "transport_error": "transport_error",
    "abstain": "abstain",
    "low_confidence": "low_confidence",
    "fingerprint_unchanged": "no_new_evidence",
    "budget_exhausted": "budget_exhausted",
}

_NOTE: dict[Condition, str] = {
    "timeout": "the model did not answer in time",
    "rate_limited": "the model is rate-limited right now",
    "transport_error": "the model could not be reached",
    "abstain": "the model gave no usable answer",
    "low_confidence": "the model was not confident enough",
    "fingerprint_unchanged": "looking again found nothing new",
    "budget_exhausted": "the look-up budget for this turn is used up",
}

# The matrix as data: (condition, lane) -> Degradation.
MATRIX: dict[tuple[Condition, Lane], Degradation] = {
    (condition, lane): Degradation(
        lane=lane, condition=condition, reason=_REASON[condition],
        clarifier="safe_clarifier" if lane == "selection" else "packed_grounded_clarifier",
        in_active_context=lane == "selection", note=_NOTE[condition])
    for condition in _REASON for lane in ("selection", "semantic")
}


def degrade(condition: Condition, lane: Lane) -> Degradation:
    return MATRIX[(condition, lane)]


def condition_for_llm_error(exc: LLMError) -> Condition:
    """Map an LLMError subclass (by its `.reason`) onto a matrix condition."""
    reason = getattr(exc, "reason", "transport_error")
    if reason in ("timeout", "rate_limited", "transport_error", "abstain"):
        return reason  # type: ignore[return-value]
    return "transport_error"
