"""Scoped evidence for the semantic lane: candidates, builders, filters, referent refs.

semantic-continuity-answer-lane.md, "Scoped evidence candidate contract", "Deterministic
candidate builders", "Deterministic filtering contract", "Canonical referentRef schema" and the
"Scoped evidence uniqueness predicate". Builders never emit cross-scope candidates; filters run
normalize -> TTL -> conflicts -> select; unique scoped evidence means exactly one referent in the
active scope AND exactly one eligible candidate after filtering.

In Helix a scoped snapshot is an excerpt the session can show again: the focused object's span
(`active_scoped_entity`), an item of the active numbered list (`active_widget_snapshot`), the
last answer's explanation (`last_assistant_explanation`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from controller.continuity.caps import ContinuityCaps
from controller.continuity.fingerprint import normalize_label
from helix.core.hashing import digest, short_id
from helix.core.schemas import Frozen

SourceType = Literal["active_scoped_entity", "active_widget_snapshot",
                     "last_assistant_explanation"]
# strict source priority for tie-breaks, highest first
SOURCE_PRIORITY: tuple[SourceType, ...] = ("active_scoped_entity", "active_widget_snapshot",
                                           "last_assistant_explanation")
ReferentKind = Literal["choice", "entity", "widget_item", "doc_selection", "action_target"]

_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/-]*")


def entity_key(text: str) -> str:
    return normalize_label(text).strip("`'\"")


def entity_keys_of(text: str) -> tuple[str, ...]:
    """Deterministic entity keys of a text: its normalised identifiers, sorted, unique."""
    keys = {entity_key(k) for k in _KEY.findall(text)}
    for k in list(keys):  # "indexers/bm25.py" also answers to "bm25.py" / "bm25"
        tail = k.rsplit("/", 1)[-1]
        keys |= {tail, tail.split(".", 1)[0]}
        keys |= set(re.split(r"[.:]+", k))
    return tuple(sorted(k for k in keys if k))


class ScopedSnapshot(Frozen):
    """Raw material handed in by the caller (the session knows the texts)."""

    source_type: SourceType
    source_id: str
    scope: str
    text: str
    entity_keys: tuple[str, ...] = ()  # empty: derived from the text
    option_set_id: str | None = None
    timestamp: int  # epoch ms
    excerpt_id: str | None = None


class ScopedEvidenceCandidate(Frozen):
    source_type: SourceType
    source_id: str
    scope: str
    excerpt_id: str
    excerpt_hash: str
    entity_keys: tuple[str, ...]
    option_set_id: str | None
    timestamp: int
    text: str = ""


class ReferentRef(Frozen):
    kind: ReferentKind
    id: str
    scope: str
    option_set_id: str | None = None


def _candidate(s: ScopedSnapshot) -> ScopedEvidenceCandidate:
    excerpt_hash = digest(" ".join(s.text.split()))
    keys = tuple(sorted({entity_key(k) for k in s.entity_keys} - {""})) or entity_keys_of(s.text)
    return ScopedEvidenceCandidate(
        source_type=s.source_type, source_id=s.source_id, scope=s.scope,
        excerpt_id=s.excerpt_id or short_id("excerpt", s.source_id, excerpt_hash),
        excerpt_hash=excerpt_hash, entity_keys=keys, option_set_id=s.option_set_id,
        timestamp=s.timestamp, text=s.text)


def _build(snapshots: Sequence[ScopedSnapshot], source: SourceType,
           active_scope: str) -> list[ScopedEvidenceCandidate]:
    return [_candidate(s) for s in snapshots
            if s.source_type == source and s.scope == active_scope]


def build_from_active_scoped_entity(snapshots: Sequence[ScopedSnapshot],
                                    active_scope: str) -> list[ScopedEvidenceCandidate]:
    return _build(snapshots, "active_scoped_entity", active_scope)


def build_from_active_widget_snapshot(snapshots: Sequence[ScopedSnapshot],
                                      active_scope: str) -> list[ScopedEvidenceCandidate]:
    return _build(snapshots, "active_widget_snapshot", active_scope)


def build_from_last_assistant_explanation(
        explanation: str, explanation_scope: str | None, timestamp: int,
        active_scope: str) -> list[ScopedEvidenceCandidate]:
    if not explanation.strip() or explanation_scope != active_scope:
        return []
    return [_candidate(ScopedSnapshot(source_type="last_assistant_explanation",
                                      source_id="last_assistant_explanation",
                                      scope=explanation_scope, text=explanation,
                                      timestamp=timestamp))]


def build_candidates(snapshots: Sequence[ScopedSnapshot], explanation: str,
                     explanation_scope: str | None, explanation_ms: int,
                     active_scope: str) -> list[ScopedEvidenceCandidate]:
    """The three builders, flat, before filtering. Nothing outside `active_scope`."""
    return (build_from_active_scoped_entity(snapshots, active_scope)
            + build_from_active_widget_snapshot(snapshots, active_scope)
            + build_from_last_assistant_explanation(explanation, explanation_scope,
                                                    explanation_ms, active_scope))


def normalize_candidates(candidates: Iterable[ScopedEvidenceCandidate]) -> list[
        ScopedEvidenceCandidate]:
    """Normalise keys; de-duplicate by (scope, excerpt id or hash), keeping the first in
    source-priority order."""
    seen: set[tuple[str, str]] = set()
    out = []
    ordered = sorted(candidates, key=lambda c: (SOURCE_PRIORITY.index(c.source_type),
                                                -c.timestamp, c.excerpt_id))
    for c in ordered:
        keys = (c.scope, c.excerpt_id), (c.scope, c.excerpt_hash)
        if keys[0] in seen or keys[1] in seen:
            continue
        seen.update(keys)
        out.append(c.model_copy(update={"entity_keys": tuple(sorted(
            {entity_key(k) for k in c.entity_keys} - {""}))}))
    return out


def apply_ttl(candidates: Sequence[ScopedEvidenceCandidate], now_ms: int,
              caps: ContinuityCaps) -> list[ScopedEvidenceCandidate]:
    return [c for c in candidates if 0 <= now_ms - c.timestamp <= caps.continuity_ttl_max_ms]


def matches_referent(c: ScopedEvidenceCandidate, referent: ReferentRef) -> bool:
    return c.scope == referent.scope and entity_key(referent.id) in c.entity_keys


def resolve_conflicts(candidates: Sequence[ScopedEvidenceCandidate],
                      referent: ReferentRef) -> tuple[list[ScopedEvidenceCandidate], bool]:
    """Keep the strict-priority winner's source type; non-unique when that source type holds
    more than one disagreeing excerpt (no strict-priority winner)."""
    matching = [c for c in candidates if matches_referent(c, referent)]
    if not matching:
        return [], False
    top = min(SOURCE_PRIORITY.index(c.source_type) for c in matching)
    best = [c for c in matching if SOURCE_PRIORITY.index(c.source_type) == top]
    return best, len({c.excerpt_hash for c in best}) > 1


def select_eligible_scoped_evidence(candidates: Sequence[ScopedEvidenceCandidate],
                                    referent: ReferentRef, now_ms: int,
                                    caps: ContinuityCaps) -> tuple[
                                        list[ScopedEvidenceCandidate], bool]:
    """normalize -> TTL -> conflicts -> the candidates matching the referent in its scope.
    Returns (eligible, conflict)."""
    normal = normalize_candidates(c for c in candidates if c.scope == referent.scope)
    return resolve_conflicts(apply_ttl(normal, now_ms, caps), referent)


def unique_scoped_evidence(referents: Sequence[ReferentRef], active_scope: str,
                           candidates: Sequence[ScopedEvidenceCandidate], now_ms: int,
                           caps: ContinuityCaps) -> ScopedEvidenceCandidate | None:
    """The predicate: exactly one referent in `active_scope` and exactly one eligible
    candidate after normalization / TTL / conflict filtering; else None (non-unique)."""
    in_scope = [r for r in referents if r.scope == active_scope]
    if len({(r.kind, entity_key(r.id)) for r in in_scope}) != 1:
        return None
    eligible, conflict = select_eligible_scoped_evidence(candidates, in_scope[0], now_ms, caps)
    if conflict or len(eligible) != 1:
        return None
    return eligible[0]
