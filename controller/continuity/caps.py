"""The continuity runtime constants: one frozen table, every number from the umbrella contract.

`continuity-umbrella-contract.md` ("Runtime Constants Table (Canonical)") says all plans reference
these constants and never duplicate the literals; code names may differ but must map 1:1, which
`DOC_NAMES` records (and a test checks). The few values below the "Helix choices" line are not in
the documents (the advisory call's own budget, the accepted/rejected choice windows); they live
here so that no lane module holds a number inline.
"""

from __future__ import annotations

from helix.core.continuity_caps import ContinuityCaps
from helix.core.english import token_spans

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
