"""The continuity runtime constants: one frozen table, every number from the umbrella contract.

`continuity-umbrella-contract.md` ("Runtime Constants Table (Canonical)") says all plans reference
these constants and never duplicate the literals; code names may differ but must map 1:1, which
`DOC_NAMES` records (and a test checks). The few values below the "Helix choices" line are not in
the documents (the advisory call's own budget, the accepted/rejected choice windows); they live
here so that no lane module holds a number inline.
"""

from __future__ import annotations

from helix.core.english import token_spans
from helix.core.schemas import Frozen


class ContinuityCaps(Frozen):
    # -- the umbrella contract's table ------------------------------------------------------
    selection_max_enrichment_steps: int = 1
    # A retry (the second call) requires a changed evidence fingerprint.
    selection_max_llm_calls: int = 2
    semantic_max_enrichment_steps: int = 2
    # "optional 3 behind flag"
    semantic_max_enrichment_steps_extended: int = 3
    semantic_max_llm_calls_per_step: int = 1
    chat_history_max_turns: int = 8
    chat_history_max_tokens: int = 1200
    snapshot_excerpt_max_tokens: int = 400
    blended_context_max_tokens: int = 1800
    continuity_ttl_max_turns: int = 3
    continuity_ttl_max_minutes: int = 10
    recent_action_trace_max_entries: int = 5
    needed_evidence_types_max: int = 2
    # -- the semantic lane's hard caps (semantic-continuity-answer-lane.md) -----------------
    structured_fields_max_keys: int = 12
    # -- the Phase C gate (README translation table / ladder) -------------------------------
    phase_c_min_confidence: float = 0.85
    # -- loop guard (selection lane: "suppress a same-cycle re-call") -----------------------
    # LLM calls allowed per loop-guard key within one unresolved option-set cycle.
    loop_guard_max_calls_per_key: int = 1
    # -- Helix choices (not numbers of the documents) ---------------------------------------
    # "small fixed window" of accepted / rejected choice ids.
    recent_choice_window: int = 5
    # The advisory selection call: a short JSON verdict, deterministic sampling.
    advisory_llm_timeout_s: float = 20.0
    advisory_llm_max_tokens: int = 120
    advisory_llm_temperature: float = 0.0
    # Characters of a candidate label shown to the advisory LLM / in a clarifier line.
    label_max_chars: int = 120
    # The semantic lane's answer-mode call: below this self-reported confidence it clarifies.
    semantic_min_answer_confidence: float = 0.5
    semantic_llm_max_tokens: int = 400
    # A small-talk reply written by continuity.chat_model: one or two sentences.
    small_talk_llm_max_tokens: int = 80

    @property
    def continuity_ttl_max_ms(self) -> int:
        return self.continuity_ttl_max_minutes * 60 * 1000

    def semantic_enrichment_budget(self, extended: bool) -> int:
        return (self.semantic_max_enrichment_steps_extended if extended
                else self.semantic_max_enrichment_steps)


CAPS = ContinuityCaps()

# The documents' constant names -> the field that holds each value (1:1).
DOC_NAMES: dict[str, str] = {
    "SELECTION_MAX_ENRICHMENT_STEPS": "selection_max_enrichment_steps",
    "SELECTION_MAX_LLM_CALLS": "selection_max_llm_calls",
    "SEMANTIC_MAX_ENRICHMENT_STEPS": "semantic_max_enrichment_steps",
    "SEMANTIC_MAX_LLM_CALLS_PER_STEP": "semantic_max_llm_calls_per_step",
    "CHAT_HISTORY_MAX_TURNS": "chat_history_max_turns",
    "CHAT_HISTORY_MAX_TOKENS": "chat_history_max_tokens",
    "SNAPSHOT_EXCERPT_MAX_TOKENS": "snapshot_excerpt_max_tokens",
    "BLENDED_CONTEXT_MAX_TOKENS": "blended_context_max_tokens",
    "CONTINUITY_TTL_MAX_TURNS": "continuity_ttl_max_turns",
    "CONTINUITY_TTL_MAX_MINUTES": "continuity_ttl_max_minutes",
    "RECENT_ACTION_TRACE_MAX_ENTRIES": "recent_action_trace_max_entries",
    "NEEDED_EVIDENCE_TYPES_MAX": "needed_evidence_types_max",
}



def truncate_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` holding at most `max_tokens` tokens (whole tokens only)."""
    if max_tokens <= 0:
        return ""
    matches = token_spans(text)
    if len(matches) <= max_tokens:
        return text
    return text[: matches[max_tokens - 1].end()]
