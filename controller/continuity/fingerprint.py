"""The `evidenceFingerprint` of the umbrella contract, and "unchanged fingerprint" detection.

    evidenceFingerprint = hash(canonicalFingerprintPayload)

The payload holds exactly the six documented fields (`scopeBinding`, `activeOptionSetId`,
`candidateIds`, `candidateSignatures`, `excerptHashes`, `continuitySchemaVersion`), built as
canonical JSON with every array sorted and no volatile field (timestamps, latencies, random ids),
and hashed with the one Helix hash (`helix.core.hashing.hash_obj`), the same for both lanes.
An enrichment step may only be followed by another LLM call when the fingerprint changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from helix.core.hashing import hash_obj
from helix.core.schemas import Frozen

CONTINUITY_SCHEMA_VERSION = "helix.continuity.v1"

_SPACE = re.compile(r"\s+")


_Frozen = Frozen


def normalize_label(label: str) -> str:
    """Casefolded, whitespace-collapsed, stripped of surrounding punctuation."""
    return _SPACE.sub(" ", label.casefold()).strip(" \t.,;:!?'\"`()[]{}")


class CandidateSignature(_Frozen):
    """One candidate as the fingerprint sees it: id, normalised label, disambiguators."""

    id: str
    label_normalized: str
    path: str | None = None
    kind: str | None = None
    owner: str | None = None  # e.g. the enclosing symbol
    sublabel: str | None = None  # e.g. "path:start-end"

    def payload(self) -> dict[str, Any]:
        return {"id": self.id, "labelNormalized": self.label_normalized, "path": self.path,
                "type": self.kind, "owner": self.owner, "sublabel": self.sublabel}


class ScopeBinding(_Frozen):
    active_scope: str
    # The concrete scope instance: in Helix, the option set / evidence set / session id.
    scope_instance_id: str


class FingerprintInput(_Frozen):
    scope_binding: ScopeBinding
    active_option_set_id: str | None
    candidate_signatures: tuple[CandidateSignature, ...]
    excerpt_hashes: tuple[str, ...] = ()
    continuity_schema_version: str = CONTINUITY_SCHEMA_VERSION


def fingerprint_payload(fp: FingerprintInput) -> dict[str, Any]:
    """The canonical payload with the documented (camelCase) keys, arrays sorted."""
    signatures = sorted(fp.candidate_signatures, key=lambda s: (s.id, s.label_normalized,
                                                                 s.path or "", s.kind or ""))
    return {
        "scopeBinding": {"activeScope": fp.scope_binding.active_scope,
                         "scopeInstanceId": fp.scope_binding.scope_instance_id},
        "activeOptionSetId": fp.active_option_set_id,
        "candidateIds": sorted({s.id for s in signatures}),
        "candidateSignatures": [s.payload() for s in signatures],
        "excerptHashes": sorted(set(fp.excerpt_hashes)),
        "continuitySchemaVersion": fp.continuity_schema_version,
    }


def evidence_fingerprint(fp: FingerprintInput) -> str:
    """`sha256:<hex>` of the canonical payload; equal evidence sets give equal fingerprints."""
    return hash_obj(fingerprint_payload(fp))


def fingerprint_unchanged(before: str, after: str) -> bool:
    """True when enrichment brought no new evidence, so a retry must not happen."""
    return before == after


def signatures_of(items: Iterable[tuple[str, str, str | None, str | None]]) -> tuple[
        CandidateSignature, ...]:
    """Convenience: (id, label, path, kind) tuples -> signatures with normalised labels."""
    return tuple(CandidateSignature(id=i, label_normalized=normalize_label(label), path=path,
                                    kind=kind) for i, label, path, kind in items)
