"""The continuity runtime constants: one frozen table, every number from the umbrella contract,
part of the settings (`continuity.caps` in a config file; `HelixConfig.continuity_hash` names
the table a session turn ran under). `controller.continuity.caps` maps each to the documents'
names and keeps the default table as `CAPS`.

The few values below the "Helix choices" line are not in the documents (the advisory call's own
budget, the accepted/rejected choice windows); they live here so that no lane module holds a
number inline.
"""

from __future__ import annotations

from helix.core.schemas import FrozenSettings as Frozen


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
