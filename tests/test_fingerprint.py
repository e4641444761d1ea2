"""The evidenceFingerprint (umbrella contract) and the runtime constants table."""

from __future__ import annotations

import re

from controller.continuity import state as st
from controller.continuity.caps import CAPS, DOC_NAMES, truncate_tokens
from controller.continuity.fingerprint import (
    CONTINUITY_SCHEMA_VERSION,
    CandidateSignature,
    FingerprintInput,
    ScopeBinding,
    evidence_fingerprint,
    fingerprint_payload,
    fingerprint_unchanged,
    normalize_label,
    signatures_of,
)
from helix.core.english import count_tokens


def _fp(sigs: tuple[CandidateSignature, ...], excerpts: tuple[str, ...] = (),
        option_set: str = "os1", scope: str = "evidence") -> FingerprintInput:
    return FingerprintInput(scope_binding=ScopeBinding(active_scope=scope,
                                                       scope_instance_id=option_set),
                            active_option_set_id=option_set, candidate_signatures=sigs,
                            excerpt_hashes=excerpts)


SIGS = signatures_of([("e2", "  Tests  ONE ", "tests/t.py", "test"),
                      ("e1", "bm25.py: build", "indexers/bm25.py", "code")])


def test_payload_has_exactly_the_documented_fields_sorted() -> None:
    payload = fingerprint_payload(_fp(SIGS, ("sha256:b", "sha256:a")))
    assert set(payload) == {"scopeBinding", "activeOptionSetId", "candidateIds",
                            "candidateSignatures", "excerptHashes", "continuitySchemaVersion"}
    assert payload["candidateIds"] == ["e1", "e2"]
    assert [s["id"] for s in payload["candidateSignatures"]] == ["e1", "e2"]
    assert payload["candidateSignatures"][1]["labelNormalized"] == "tests one"
    assert payload["excerptHashes"] == ["sha256:a", "sha256:b"]
    assert payload["continuitySchemaVersion"] == CONTINUITY_SCHEMA_VERSION
    assert payload["scopeBinding"] == {"activeScope": "evidence", "scopeInstanceId": "os1"}


def test_fingerprint_is_order_independent_and_stable() -> None:
    a = evidence_fingerprint(_fp(SIGS, ("x", "y")))
    b = evidence_fingerprint(_fp(tuple(reversed(SIGS)), ("y", "x")))
    assert a == b
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", a)


def test_fingerprint_pinned_literal() -> None:
    """An accidental change of payload shape or hash function must be caught."""
    assert evidence_fingerprint(_fp(SIGS, ("sha256:a",))) == PINNED


PINNED = "sha256:739cebb8ac0e80e5ea1a9a1464eccc11b8a3a9053f3a24de9d5910972cd4e799"


def test_fingerprint_changes_with_each_input() -> None:
    base = evidence_fingerprint(_fp(SIGS))
    assert evidence_fingerprint(_fp(SIGS, ("sha256:new",))) != base
    assert evidence_fingerprint(_fp(SIGS, option_set="os2")) != base
    assert evidence_fingerprint(_fp(SIGS, scope="path:tests/")) != base
    assert evidence_fingerprint(_fp(SIGS[:1])) != base
    relabelled = (SIGS[0], SIGS[1].model_copy(update={"sublabel": "indexers/bm25.py:10-20"}))
    assert evidence_fingerprint(_fp(relabelled)) != base


def test_unchanged_fingerprint_detection() -> None:
    a = evidence_fingerprint(_fp(SIGS))
    assert fingerprint_unchanged(a, evidence_fingerprint(_fp(tuple(reversed(SIGS)))))
    assert not fingerprint_unchanged(a, evidence_fingerprint(_fp(SIGS, ("sha256:z",))))


def test_normalize_label() -> None:
    assert normalize_label("  The  Tests One! ") == "the tests one"


def test_runtime_constants_match_the_umbrella_table() -> None:
    """Runtime Constants Table (Canonical): every documented value, mapped 1:1."""
    documented = {
        "SELECTION_MAX_ENRICHMENT_STEPS": 1, "SELECTION_MAX_LLM_CALLS": 2,
        "SEMANTIC_MAX_ENRICHMENT_STEPS": 2, "SEMANTIC_MAX_LLM_CALLS_PER_STEP": 1,
        "CHAT_HISTORY_MAX_TURNS": 8, "CHAT_HISTORY_MAX_TOKENS": 1200,
        "SNAPSHOT_EXCERPT_MAX_TOKENS": 400, "BLENDED_CONTEXT_MAX_TOKENS": 1800,
        "CONTINUITY_TTL_MAX_TURNS": 3, "CONTINUITY_TTL_MAX_MINUTES": 10,
        "RECENT_ACTION_TRACE_MAX_ENTRIES": 5, "NEEDED_EVIDENCE_TYPES_MAX": 2,
    }
    assert set(DOC_NAMES) == set(documented)
    for name, value in documented.items():
        assert getattr(CAPS, DOC_NAMES[name]) == value, name
    assert CAPS.semantic_max_enrichment_steps_extended == 3
    assert CAPS.structured_fields_max_keys == 12
    assert CAPS.phase_c_min_confidence == 0.85
    assert CAPS.continuity_ttl_max_ms == 600_000
    # the state holds no copy of a window: the transitions are given the caps
    assert not hasattr(st, "RECENT_ACTION_TRACE_MAX_ENTRIES")
    assert not hasattr(st, "RECENT_CHOICE_WINDOW")


def test_token_estimate_and_truncation() -> None:
    assert count_tokens("open the second one, please") == 6
    text = " ".join(f"w{i}" for i in range(500))
    cut = truncate_tokens(text, CAPS.snapshot_excerpt_max_tokens)
    assert count_tokens(cut) == CAPS.snapshot_excerpt_max_tokens
    assert text.startswith(cut)
    assert truncate_tokens("a b", 10) == "a b"
    assert truncate_tokens("a b", 0) == ""
