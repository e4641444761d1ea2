"""Hand-made envelopes for testing the scoring, the report and the gates without an index."""

from __future__ import annotations

from collections.abc import Sequence

from helix.core.envelope import (
    Clarify,
    ClarifyOption,
    ControllerStep,
    Envelope,
    EvidenceItem,
    Intent,
    Items,
    Route,
    SlotCoverage,
    StopReason,
    TreeWalk,
)
from helix.core.hashing import hash_obj, short_id


def item(path: str, start: int = 1, end: int = 10, *, symbol: str | None = None,
         text: str = "", kind: str = "code") -> EvidenceItem:
    content_hash = hash_obj([path, start, end, text])
    return EvidenceItem(
        id=short_id(path, start, end, content_hash), path=path, start_line=start, end_line=end,
        kind=kind,  # type: ignore[arg-type]
        score=1.0, content_hash=content_hash,
        node_id=f"def:{path}::{symbol}" if symbol else f"file:{path}", reasons=("bm25#1",),
        symbol=symbol, text=text)


def envelope(question: str, evidence: Sequence[EvidenceItem] = (), *,
             route: Route = "explanation", stop_reason: StopReason = "coverage_ok",
             clarify: Clarify | None = None, llm_steps: int = 0, steps: int = 1,
             answer: str = "", salt: str = "") -> Envelope:
    """An envelope whose item hashes depend on its evidence (and `salt`, to fake instability)."""
    intent = Intent(route=route, slots=("subject",), terms=tuple(question.lower().split()))
    items = Items(intent=intent, selected_trees=(), doc_section_hits=(), repo_search_hits=(),
                  proof_spans=(), slot_coverage_report=SlotCoverage(
                      required=("subject",), covered=("subject",), missing=(), ratio=1.0))
    controller_steps = tuple(
        ControllerStep(index=i, phase="seed" if i == 0 else "expand", queries=(question,),
                       channels=("bm25",), new_chunk_ids=(), coverage=1.0,
                       covered_slots=("subject",)) for i in range(steps))
    ids = [e.id for e in evidence]
    return Envelope(
        question=question, repo_root="/repo", repo_rev="nogit", index_rev="sha256:0",
        config_hash="sha256:1", route=route, slots=("subject",),
        controller_steps=controller_steps, stop_reason=stop_reason, items=items,
        item_hashes={"repo_search_hits": hash_obj([ids, salt]), "intent": hash_obj(intent)},
        evidence=tuple(evidence), clarify=clarify,
        tree_walk=TreeWalk(mode="root->anchor", anchors=(), nodes=(), binding_rate=0.0),
        answer_mode="dry_run", answer=answer, llm_steps=llm_steps)


def clarify(first: Sequence[EvidenceItem], second: Sequence[EvidenceItem]) -> Clarify:
    return Clarify(question="Which cavity do you mean?",
                   options=(ClarifyOption(label="optical", sense="optical", evidence=tuple(first)),
                            ClarifyOption(label="storage", sense="storage",
                                          evidence=tuple(second))),
                   searched_terms=("cavity",), top_candidates=())
