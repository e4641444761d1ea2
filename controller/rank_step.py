"""The learned ranker's I/O half, run by the driver after the hand order is made.

Read here: the definitions of the hand order's first files, the callees of its first
definitions, each candidate's graph signals (`indexers` rows: calls, tests, documenting
sections, PageRank, history words), the name table's idf; and the model, from its manifest
(`load_ranker`, once per manifest and digest). Pure, elsewhere: the candidates and their
features (`controller.rank_features`), the scores and the order (`controller.learned_rank`).
"""

from __future__ import annotations

import json
import math
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from controller.evidence import CODE_CHUNK_KINDS, Candidate
from controller.file_defs import question_tokens
from controller.fusion import FAMILIES, rrf_scores
from controller.issue_text import frame_paths
from controller.learned_rank import (
    TreeModel,
    blend,
    order,
    parse_model,
    read_model_file,
    reorder_head,
)
from controller.loop import LoopState
from controller.name_words import name_table
from controller.rank_bridge import QUESTION_FEATURES, bridge_rows
from controller.rank_features import (
    FEATURES,
    NodeSignals,
    Pooled,
    RankInputs,
    SelectWeights,
    candidates,
    select,
)
from controller.rank_matrix import Rows, feature_matrix
from helix.core.config import HelixConfig
from helix.core.errors import RankerModelError
from helix.core.hashing import digest
from helix.core.policy import SHIPPED_RANKER_DIGEST, RankerPolicy
from helix.core.schemas import Chunk
from indexers.api import IndexReader

SHIPPED_MANIFEST = Path(__file__).resolve().parent.parent / "data" / "ranker" / "manifest.json"
QUESTION_MANIFEST = SHIPPED_MANIFEST.parent.parent / "ranker_questions" / "manifest.json"
MAX_MODEL_BYTES = 64 << 20


class Scorer(Protocol):
    """What orders the candidates: a model (`Ranker`), or a recorder for training."""

    @property
    def routes(self) -> frozenset[str] | None:
        """The question routes it orders (the routes its training questions took); None: all."""
        ...

    def score(self, pooled: Sequence[Pooled], rows: Rows) -> Sequence[float]: ...


@dataclass(frozen=True)
class Ranker:
    model: TreeModel
    digest: str
    # the routes of the questions it was trained on (the manifest's `routes`); a question
    # of another route keeps the hand order: the model never saw one. None: every route
    routes: frozenset[str] | None = None
    # trained on natural questions (the manifest's `questions`): it orders a text of its
    # routes whether or not it ends with a question mark
    questions: bool = False
    # its rows hold the question model's bridging columns (`QUESTION_FEATURES`)
    wide: bool = False
    # the model's order fused with the pool's (the hand order first) by reciprocal rank,
    # the model's share `blend` (1.0: the model's order alone; the manifest's `blend`)
    blend: float = 1.0
    # when > 0, the model reorders only the hand order's first `head` items and the rest of
    # the evidence stays the hand order's (the manifest's `head`; 0: the model's own list)
    head: int = 0
    # the hand order's items before this place stay where they are (the manifest's
    # `head_start`; 1: its first item stays first, so the first file is the hand order's)
    head_start: int = 0

    def score(self, pooled: Sequence[Pooled], rows: Rows) -> Sequence[float]:
        scores = self.model.scores(rows)
        return scores if self.blend >= 1.0 else blend(scores, self.blend)


_LOADED: dict[tuple[str, str], Ranker] = {}
_LOCK = threading.Lock()


def _read(path: Path, what: str) -> bytes:
    return read_model_file(path, f"ranker {what}", MAX_MODEL_BYTES)


def _part(base: Path, manifest: Mapping[str, object], name: str) -> bytes:
    rel, want = manifest.get(name), manifest.get(f"{name}_digest")
    if not isinstance(rel, str) or not isinstance(want, str) or "/" in rel or rel in ("", ".."):
        raise RankerModelError(f"the ranker manifest {base / 'manifest.json'} names no {name}")
    data = _read(base / rel, name)
    if digest(data) != want:
        raise RankerModelError(f"the ranker {name} {base / rel} does not match its manifest's "
                               "digest")
    return data


def load_ranker(policy: RankerPolicy) -> Ranker:
    """The model named by `policy` (its manifest, pinned by `policy.digest`), read once per
    process; RankerModelError (one line) when it cannot be used."""
    path = Path(policy.manifest).expanduser() if policy.manifest else SHIPPED_MANIFEST
    return _load(path, policy.digest, bool(policy.manifest), "retrieval.ranker.digest")


def load_question_ranker(policy: RankerPolicy) -> Ranker | None:
    """The question model `policy` names (`question_manifest`, pinned by `question_digest`),
    or None when it names none (an empty digest)."""
    if not policy.question_digest:
        return None
    path = (Path(policy.question_manifest).expanduser() if policy.question_manifest
            else QUESTION_MANIFEST)
    return _load(path, policy.question_digest, bool(policy.question_manifest),
                 "retrieval.ranker.question_digest")


def _load(path: Path, pinned: str, named: bool, setting: str) -> Ranker:
    key = (str(path), pinned)
    cached = _LOADED.get(key)
    if cached is not None:
        return cached
    raw = _read(path, "manifest")
    found = digest(raw)
    if found != pinned:
        raise RankerModelError(f"the ranker manifest {path} has digest {found}; set "
                               f"{setting} to it to use this model"
                               if not pinned or (named and pinned == SHIPPED_RANKER_DIGEST)
                               else f"the ranker manifest {path} has digest {found}, not "
                               f"{setting} {pinned}")
    try:
        manifest = json.loads(raw)
    except ValueError:
        raise RankerModelError(f"the ranker manifest {path} is not JSON") from None
    if not isinstance(manifest, dict):
        raise RankerModelError(f"the ranker manifest {path} is not a JSON object")
    wide = manifest.get("features") == list(QUESTION_FEATURES)
    model = parse_model(_part(path.parent, manifest, "model").decode("utf-8", "replace"),
                        QUESTION_FEATURES if wide else FEATURES)
    share = manifest.get("blend", 1.0)
    if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 < share <= 1:
        raise RankerModelError(f"the ranker manifest {path} has a `blend` outside (0, 1]")
    head, start = manifest.get("head", 0), manifest.get("head_start", 0)
    for name, value in (("head", head), ("head_start", start)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
            raise RankerModelError(f"the ranker manifest {path} has a `{name}` outside 0 to "
                                   "1000")
    ranker = Ranker(model=model, digest=found, routes=_routes(manifest.get("routes"), path),
                    questions=manifest.get("questions") is True, wide=wide,
                    blend=float(share), head=head,
                    head_start=start)
    with _LOCK:
        _LOADED[key] = ranker
    return ranker


def _routes(value: object, path: Path) -> frozenset[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
        raise RankerModelError(f"the ranker manifest {path} has a malformed `routes` list")
    return frozenset(value)


def applies(scorer: Scorer, route: str, question: bool = False,
            policy: RankerPolicy | None = None) -> bool:
    """Whether `scorer` orders a text of `route` (see `Ranker.routes`); `question`: the text
    ends with a question mark, which a model of named routes orders only when
    `policy.questions` (its training messages were commit messages, not questions)."""
    if scorer.routes is None:
        return True
    return route in scorer.routes and (not question or getattr(scorer, "questions", False)
                                       or (policy is not None and policy.questions))


def _callees(ranked: Sequence[Candidate], index: IndexReader, leads: int) -> list[Chunk]:
    graph = index.graph
    out: list[Chunk] = []
    firsts = [c.chunk for c in ranked if c.chunk.kind == "code_def"][:leads]
    for chunk in firsts:
        if chunk.node_id not in graph:
            continue
        targets = sorted({v for _, v, key in graph.out_edges(chunk.node_id, keys=True)
                          if key == "calls" and v != chunk.node_id})
        out.extend(c for v in targets if (c := index.chunk_for_node(v)) is not None)
    return out


def edge_counts(graph: Any, nodes: Sequence[str]) -> dict[str, dict[str, tuple[int, int]]]:
    """node -> edge kind -> (in, out): the stored graph's batch query, or one node at a time
    (an in-memory graph)."""
    batch = getattr(graph, "edge_counts", None)
    if callable(batch):
        return dict(batch(nodes))
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for node in nodes:
        if node not in graph:
            continue
        kinds: dict[str, list[int]] = {}
        for _, _, key in graph.in_edges(node, keys=True):
            kinds.setdefault(key, [0, 0])[0] += 1
        for _, _, key in graph.out_edges(node, keys=True):
            kinds.setdefault(key, [0, 0])[1] += 1
        out[node] = {k: (v[0], v[1]) for k, v in kinds.items()}
    return out


def history_of(index: IndexReader) -> Any:
    """The index's history field (`indexers.history.HistoryIndex`), or None."""
    read = getattr(index, "history_index", None)
    return read() if callable(read) else None


# a node's signals but the question's history score (`history_bm25` 0.0), or None (no edges,
# no history), kept per loaded stored graph and its history field: a generation's graph file
# and history part never change, so a node is read once per loaded index, not per question
_KEPT: weakref.WeakKeyDictionary[Any, tuple[Any, dict[str, NodeSignals | None]]] = (
    weakref.WeakKeyDictionary())
_KEPT_NODES = 200_000


def _index_signals(wanted: Sequence[str], graph: Any, history: Any
                   ) -> dict[str, NodeSignals | None]:
    ranks = getattr(graph, "pagerank_of", None)
    pagerank: dict[str, float] = dict(ranks(wanted)) if callable(ranks) else {}
    counts = edge_counts(graph, wanted)
    out: dict[str, NodeSignals | None] = {}
    for node in wanted:
        kinds = counts.get(node, {})
        past = history.docs.get(node, frozenset()) if history is not None else frozenset()
        out[node] = NodeSignals(calls_in=kinds.get("calls", (0, 0))[0],
                                calls_out=kinds.get("calls", (0, 0))[1],
                                tests_in=kinds.get("tests", (0, 0))[0],
                                documented=kinds.get("documents", (0, 0))[0],
                                pagerank=pagerank.get(node, 0.0), history=past,
                                commits=history.commits.get(node, 0) if past else 0
                                ) if kinds or past else None
    return out


def _kept_signals(wanted: Sequence[str], graph: Any, history: Any
                  ) -> dict[str, NodeSignals | None]:
    """`_index_signals` of `wanted`, each node read once per loaded stored graph (one with
    the batch `edge_counts`: an in-memory graph may change, so it is read every time)."""
    if not callable(getattr(graph, "edge_counts", None)):
        return _index_signals(wanted, graph, history)
    with _LOCK:
        held = _KEPT.get(graph)
        if held is None or held[0] is not history:
            held = _KEPT[graph] = (history, {})
    memo = held[1]
    known = {n: memo[n] for n in wanted if n in memo}
    missing = [n for n in wanted if n not in known]
    if not missing:
        return known
    found = _index_signals(missing, graph, history)
    with _LOCK:
        if len(memo) + len(found) > _KEPT_NODES:
            memo.clear()  # a bounded memory
        memo.update(found)
    return {**known, **found}


def _signals(nodes: Sequence[str], index: IndexReader, words: frozenset[str]
             ) -> dict[str, NodeSignals]:
    wanted = [n for n in dict.fromkeys(nodes) if n.startswith("def:")]
    history = history_of(index)
    base = _kept_signals(wanted, index.graph, history)
    out: dict[str, NodeSignals] = {}
    for node in wanted:
        kept = base[node]
        if kept is not None:  # the question's history score: only a node with history has one
            out[node] = (kept._replace(history_bm25=history.score(node, words))
                         if kept.history else kept)
    return out


def _scores_of(index: IndexReader, lookup_name: str, query: str, keys: Sequence[str]
               ) -> dict[str, float]:
    """The question's BM25 score of each of `keys` over the best one of the repository:
    chunks (`bm25_scores_of`) or whole files (`file_scores_of`); an index without the batch
    lookup: none."""
    lookup = getattr(index, lookup_name, None)
    if not callable(lookup) or not query.strip():
        return {}
    best, scores = lookup(query, keys)
    return {k: v / best for k, v in scores.items()} if best > 0 else {}


def _history_hits(index: IndexReader, words: frozenset[str], k: int) -> list[Chunk]:
    history = history_of(index)
    if history is None or k <= 0 or not words:
        return []
    return [c for node, _score in history.search(words, k)
            if (c := index.chunk_for_node(node)) is not None]


def _named(state: LoopState, index: IndexReader) -> tuple[frozenset[str], frozenset[str]]:
    named = frozenset(state.pool[cid].node_id for cid, reasons in state.found_reasons.items()
                      if cid in state.pool and any(r.code == "symbol_exact" for r in reasons))
    graph = index.graph
    near: set[str] = set()
    for node in sorted(named):
        if node in graph:
            near.update(v for _, v, key in graph.out_edges(node, keys=True) if key == "calls")
            near.update(u for u, _, key in graph.in_edges(node, keys=True) if key == "calls")
    return named, frozenset(near - named)


def unseen_idf(documents: int) -> float:
    """The BM25 idf of a word no document holds (`controller.name_words`' formula)."""
    return math.log(1.0 + (documents + 0.5) / 0.5)


def rank_inputs(state: LoopState, ranked: Sequence[Candidate], index: IndexReader,
                config: HelixConfig) -> RankInputs:
    policy = config.retrieval.ranker
    route = state.settings.route(state.plan.policy_name)
    weights = {str(c): w for c, w in route.weights.items()}
    fused = rrf_scores(state.lists, state.settings, weights,
                       FAMILIES if route.lexical_family else {})
    files = list(dict.fromkeys(c.chunk.path for c in ranked
                               if c.chunk.kind in CODE_CHUNK_KINDS))[:policy.files]
    named, near = _named(state, index)
    table = name_table(index)
    words = question_tokens(state.plan)
    history = history_of(index)
    return RankInputs(
        plan=state.plan, hand=tuple(ranked), pool=state.pool, lists=state.lists, fused=fused,
        reasons=state.found_reasons,
        file_chunks={path: index.chunks_for_path(path) for path in files},
        callees=_callees(ranked, index, policy.callees), named=named, near_named=near,
        history_hits=_history_hits(index, words, policy.history_k),
        idf=table.idf, idf_unseen=unseen_idf(len(table.defs)),
        history_idf=history.idf if history is not None else {},
        history_unseen=history.unseen if history is not None else 1.0)


def learned_order(state: LoopState, ranked: Sequence[Candidate], index: IndexReader,
                  config: HelixConfig, scorer: Scorer, asked: str = "") -> list[Candidate]:
    """The evidence in the learned order: the candidates scored, the best
    `retrieval.max_evidence` first (`asked`: the question as read, for its stack frames)."""
    policy = config.retrieval.ranker
    inputs = rank_inputs(state, ranked, index, config)
    pooled = candidates(inputs, max(policy.considered, policy.max_candidates))
    bm25 = _scores_of(index, "bm25_scores_of", state.plan.text, [p.chunk.id for p in pooled])
    if len(pooled) > policy.max_candidates:
        pooled = select(RankInputs(**{**inputs.__dict__, "bm25": bm25}), pooled,
                        policy.max_candidates,
                        SelectWeights(bm25=policy.select_bm25, body=policy.select_body,
                                      name=policy.select_name, file=policy.select_file),
                        config.retrieval.file_defs)
    signals = _signals([p.chunk.node_id for p in pooled], index,
                       question_tokens(state.plan))
    file_bm25 = _scores_of(index, "file_scores_of", state.plan.text,
                           list(dict.fromkeys(p.chunk.path for p in pooled)))
    inputs = RankInputs(**{**inputs.__dict__, "signals": signals, "bm25": bm25,
                           "file_bm25": file_bm25})
    # the rows as one float64 matrix (`feature_rows`' values; the trees read it as it is)
    rows = feature_matrix(inputs, pooled, config.retrieval.file_defs)
    if getattr(scorer, "wide", False):
        extra = np.asarray(bridge_rows(inputs, pooled, question_tokens(state.plan)),
                           dtype=np.float64).reshape(len(pooled),
                                                     len(QUESTION_FEATURES) - len(FEATURES))
        rows = np.hstack([rows, extra])
    head = int(getattr(scorer, "head", 0))
    if head > 0:
        return reorder_head(ranked, pooled, scorer.score(pooled, rows), head,
                            int(getattr(scorer, "head_start", 0)))
    frames = frame_paths(asked) if policy.keep_frame else []
    return order(pooled, scorer.score(pooled, rows), config.retrieval.max_evidence,
                 policy.lead, policy.keep_text, policy.keep_file, frames)
