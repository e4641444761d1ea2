"""Hand-made envelopes for the synthesis, run-log and export tests (no index needed)."""

from __future__ import annotations

from helix.core.envelope import (
    Clarify,
    ClarifyOption,
    Envelope,
    EvidenceItem,
    Intent,
    Items,
    SlotCoverage,
    TreeWalk,
    TreeWalkNode,
)
from helix.core.hashing import digest, short_id


def item(path: str, start: int, end: int, text: str, *, kind: str = "code",
         symbol: str | None = None, heading: str | None = None, node_id: str | None = None,
         score: float = 1.0) -> EvidenceItem:
    content_hash = digest(text)
    return EvidenceItem(
        id=short_id(path, start, end, content_hash), path=path, start_line=start, end_line=end,
        kind=kind, score=score, content_hash=content_hash,  # type: ignore[arg-type]
        node_id=node_id or (f"def:{path}::{symbol}" if symbol else f"file:{path}"),
        reasons=("bm25#1",), heading=heading, symbol=symbol, text=text,
    )


RETRY_TEXT = ("def decide_retry(attempt, error):\n"
              "    \"\"\"The retry policy: back off exponentially, give up after 5.\"\"\"\n"
              "    return attempt < MAX_ATTEMPTS and error.transient\n")
DOC_TEXT = "## Retries\n\nRetries are decided by `decide_retry` in src/retry.py.\n"


def default_items() -> tuple[EvidenceItem, ...]:
    return (
        item("src/retry.py", 10, 12, RETRY_TEXT, kind="definition", symbol="decide_retry"),
        item("docs/retries.md", 1, 3, DOC_TEXT, kind="doc", heading="Retries",
             node_id="sec:docs/retries.md#1"),
    )


def envelope(evidence: tuple[EvidenceItem, ...] | None = None, *, question: str =
             "where is the retry policy decided?", clarify: Clarify | None = None,
             answer: str = "", tree_nodes: tuple[TreeWalkNode, ...] = (),
             anchors: tuple[str, ...] = (), selected_trees: tuple[str, ...] = (),
             primary_tree_id: str | None = None) -> Envelope:
    evidence = default_items() if evidence is None else evidence
    if not answer and evidence:
        answer = "\n".join(f"- {e.path}:{e.start_line}-{e.end_line}" for e in evidence)
    intent = Intent(route="location", slots=("retry policy",), terms=("retry", "policy"))
    return Envelope(
        question=question, repo_root="/repo", repo_rev="abc123", index_rev="sha256:idx",
        config_hash="sha256:cfg", route="location", slots=("retry policy",),
        controller_steps=(), stop_reason="dominance_split" if clarify else "coverage_ok",
        items=Items(intent=intent, selected_trees=selected_trees, doc_section_hits=(),
                    repo_search_hits=(), proof_spans=(),
                    slot_coverage_report=SlotCoverage(required=("retry policy",),
                                                      covered=("retry policy",), missing=(),
                                                      ratio=1.0)),
        item_hashes={}, evidence=evidence, clarify=clarify,
        tree_walk=TreeWalk(mode="root->anchor", anchors=anchors, nodes=tree_nodes,
                           binding_rate=0.0, primary_tree_id=primary_tree_id),
        answer_mode="dry_run", answer=answer,
    )


def clarify_envelope() -> Envelope:
    a, b = default_items()
    clarify = Clarify(question="Which cavity do you mean?",
                      options=(ClarifyOption(label="1", sense="optical", evidence=(a,)),
                               ClarifyOption(label="2", sense="acoustic", evidence=(b,))),
                      searched_terms=("cavity",), top_candidates=("src/retry.py",))
    return envelope(clarify=clarify, question="what is a cavity?",
                    answer="Which cavity do you mean? 1) optical 2) acoustic")
