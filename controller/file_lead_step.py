"""The learned first-file choice's I/O half: the model, read once from its manifest
(`data/file_lead/`, pinned by `retrieval.file_defs.lead_model_digest`), and the first files'
graph degrees. The columns and the choice are pure (`controller.file_lead`).

Off (an empty digest): `file_defs.lead_choice`, the hand rule, picks the lead.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller import file_defs, file_lead
from controller.evidence import Candidate
from controller.learned_rank import TreeModel, parse_model, read_pinned_model
from helix.core.errors import RankerModelError
from helix.core.policy import FileDefsPolicy
from indexers.api import IndexReader

MANIFEST = Path(__file__).resolve().parent.parent / "data" / "file_lead" / "manifest.json"
MAX_BYTES = 8 << 20


@dataclass(frozen=True)
class LeadModel:
    model: TreeModel
    margin: float  # the best run leads when its score beats the first run's by more


_LOADED: dict[str, LeadModel] = {}
_LOCK = threading.Lock()


def load(pinned: str, path: Path = MANIFEST) -> LeadModel:
    """The shipped first-file model whose manifest has digest `pinned` (read once per process);
    RankerModelError (one line) when it cannot be used."""
    cached = _LOADED.get(pinned)
    if cached is not None:
        return cached
    manifest, text = read_pinned_model(path, pinned, "first-file model",
                                       "retrieval.file_defs.lead_model_digest", MAX_BYTES)
    margin = manifest.get("margin")
    if not isinstance(margin, (int, float)) or isinstance(margin, bool):
        raise RankerModelError(f"the first-file model manifest {path} is malformed")
    loaded = LeadModel(model=parse_model(text, file_lead.FEATURES), margin=float(margin))
    with _LOCK:
        _LOADED[pinned] = loaded
    return loaded


def degrees(index: IndexReader | None, paths: Sequence[str]) -> file_lead.Degrees:
    """Each file's imports in, edges in and edges out in the index's graph."""
    if index is None:
        return {}
    graph = index.graph
    out = {}
    for path in paths:
        node = f"file:{path}"
        if node in graph:
            kinds = [key for _, _, key in graph.in_edges(node, keys=True)]
            out[path] = (sum(1 for k in kinds if k == "imports"), len(kinds),
                         int(graph.out_degree(node)))
    return out


def choice(question: frozenset[str], runs: Sequence[Sequence[Candidate]],
           ranked: Sequence[Candidate], anchored: bool, named: frozenset[str],
           policy: FileDefsPolicy, index: IndexReader | None) -> int:
    """Which run leads: the hand rule's pick, or with a model pinned the model's."""
    chunks = [[c.chunk for c in run] for run in runs]
    hand = file_defs.lead_choice(question, chunks, anchored, named, policy)
    if not policy.lead_model_digest or len(runs) < 2 or anchored or (
            file_defs.stem(chunks[0][0].path) in named):
        return hand
    lead = load(policy.lead_model_digest)
    paths = [run[0].chunk.path for run in runs]
    rows = file_lead.rows(question, runs, ranked, hand, anchored, named,
                          degrees(index, paths), policy)
    return file_lead.choose(lead.model.scores(rows), lead.margin)
