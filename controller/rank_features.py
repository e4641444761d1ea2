"""The learned ranker's candidates and their features (pure).

Candidates for one question: the hand-ordered evidence, every chunk any channel list found
(the loop's pool), and the definitions of the first files of the hand order and the callees of
its first definitions (read by the driver, `controller.rank_step`), in that order, at most
`RankerPolicy.max_candidates`. Each gets one row of `FEATURES`, in that order (the model file's
manifest names them; a model trained on another list is refused at load):

- question: its content words, identifiers, route;
- channels: 1 / best rank in each channel's lists (0: not found), how many channels and lists
  found it, the hand order's place and fused score, the fused (RRF) score over every list,
  the question's BM25 score of the chunk and of its whole file (over the best one);
- file: the file's place in the hand order, its best fused score and its share of the pool,
  the candidate's place among its file's candidates (the file already has a higher one);
- words: the question's words held by the name (and what share of the name they are), the
  owner's name, the path, the first line (signature), comments and docstrings, the body, the
  body's damped score (`controller.file_defs`), the name words' idf share;
- kind and size: chunk kind, definition kind, lines, test-ness, path depth, a private name;
- graph (`NodeSignals`): calls in and out, tests, documenting sections, PageRank on the calls
  graph, nearness to definitions the question names (itself, a call away, the same file);
- reasons: aligned with a leading doc section, promoted in its file, a callee, a lead;
- history (`NodeSignals.history`): the words of the messages of commits that changed it, how
  many of the question's words they hold and their idf share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import NamedTuple

from controller.evidence import Candidate
from controller.file_defs import question_tokens
from controller.fusion import Ranked, Voted
from controller.rank_static import _STATIC, _static, _static_suffix, word_bits
from controller.reasons import Reason
from controller.route import RoutePlan
from controller.text import is_identifier
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk

CHANNELS = ("bm25", "dense", "symbol", "related", "path", "graph", "refs", "files",
            "file_bm25", "path_words", "test_targets", "definition", "name_words", "tree",
            "sense")
ROUTES = ("definition", "location", "explanation", "relation", "value_check", "usage",
          "doc_summary", "issue")
SOURCES = ("hand", "pool", "file", "callee", "history")

FEATURES: tuple[str, ...] = (
    "q_words", "q_identifiers", "q_route", "q_long",
    *(f"rr_{c}" for c in CHANNELS), "n_channels", "n_lists",
    "hand_rr", "hand_score", "fused_score", "fused_rr", "bm25_q", "file_bm25_q",
    "file_rr", "file_fused", "file_pool_share", "rank_in_file", "file_has_higher",
    "from_file", "from_callee", "from_history",
    "name_cov", "name_hits", "name_share", "name_exact", "owner_cov", "path_cov", "stem_cov",
    "sig_cov", "doc_cov", "body_cov", "body_score", "name_idf_share",
    "is_def", "is_module", "is_doc", "is_container", "is_function", "log_lines", "is_test",
    "path_depth", "is_private",
    "log_calls_in", "log_calls_out", "log_tests_in", "log_documented", "pagerank",
    "named", "near_named", "same_file_named",
    "r_aligned", "r_in_file", "r_neighbour", "r_lead", "r_exact", "r_fuzzy", "r_path_hint",
    "hist_cov", "hist_idf_share", "hist_commits", "hist_bm25", "rr_history",
)


# Named groups of features (an ablation trains without one: `helix eval corpus train-ranker
# --without history`).
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "history": ("hist_cov", "hist_idf_share", "hist_commits", "hist_bm25", "rr_history",
                "from_history"),
    "graph": ("log_calls_in", "log_calls_out", "log_tests_in", "log_documented", "pagerank",
              "named", "near_named", "same_file_named"),
    "hand": ("hand_rr", "hand_score", "file_rr", "file_has_higher"),
    "words": ("name_cov", "name_hits", "name_share", "name_exact", "owner_cov", "path_cov",
              "stem_cov", "sig_cov", "doc_cov", "body_cov", "body_score", "name_idf_share"),
}


class NodeSignals(NamedTuple):
    """What the index says of one definition (read by the driver; a named tuple, not a frozen
    dataclass: one is made per pooled definition a question, in half the time)."""

    calls_in: int = 0
    calls_out: int = 0
    tests_in: int = 0
    documented: int = 0
    pagerank: float = 0.0  # times the number of nodes (1.0: an average node)
    history: frozenset[str] = frozenset()  # words of the messages of commits that changed it
    commits: int = 0  # how many such commits
    history_bm25: float = 0.0  # the question against those words (the history BM25 field)


class Pooled(NamedTuple):
    """One candidate (a named tuple, not a frozen dataclass: up to `considered` of them are
    made per question and most are cut by `select`; a tuple is made in half the time)."""

    chunk: Chunk
    source: str  # one of SOURCES: where the candidate came from first
    hand: Candidate | None = None
    reasons: tuple[Reason, ...] = ()  # what the channels said of it (a pool chunk)


@dataclass(frozen=True)
class RankInputs:
    plan: RoutePlan
    hand: Sequence[Candidate]  # the hand order
    pool: Mapping[str, Chunk]  # every chunk a channel list found
    lists: Sequence[Ranked]
    fused: Sequence[Voted]  # every list fused (RRF, the route's weights), best first
    reasons: Mapping[str, tuple[Reason, ...]] = field(default_factory=dict)  # chunk id ->
    file_chunks: Mapping[str, Sequence[Chunk]] = field(default_factory=dict)
    callees: Sequence[Chunk] = ()
    # the question's BM25 score of each candidate chunk and of its file, over the best one
    bm25: Mapping[str, float] = field(default_factory=dict)
    file_bm25: Mapping[str, float] = field(default_factory=dict)
    history_hits: Sequence[Chunk] = ()  # the history field's best definitions, best first
    signals: Mapping[str, NodeSignals] = field(default_factory=dict)  # node id ->
    named: frozenset[str] = frozenset()  # node ids of definitions the question names
    near_named: frozenset[str] = frozenset()  # node ids a calls edge joins to one of those
    idf: Mapping[str, float] = field(default_factory=dict)  # a word's idf (name words)
    idf_unseen: float = 1.0  # the idf of a word no name holds
    history_idf: Mapping[str, float] = field(default_factory=dict)
    history_unseen: float = 1.0


def candidates(inputs: RankInputs, limit: int) -> list[Pooled]:
    """The hand order, the first files' definitions, the callees, the history field's
    definitions, then the rest of the pool by fused score; each chunk once, at most `limit`
    (the first `limit` found: no later one is read)."""
    out: dict[str, Pooled] = {}
    for c in inputs.hand:
        if c.chunk.id not in out:
            out[c.chunk.id] = Pooled(c.chunk, "hand", c)
    widened = [("file", chunk) for path in inputs.file_chunks
               for chunk in inputs.file_chunks[path] if chunk.kind == "code_def"]
    widened += [("callee", chunk) for chunk in inputs.callees]
    widened += [("history", chunk) for chunk in inputs.history_hits]
    for source, chunk in widened:
        if len(out) >= limit:
            break
        if chunk.id not in out:
            out[chunk.id] = Pooled(chunk, source, reasons=inputs.reasons.get(chunk.id, ()))
    for f in inputs.fused:
        if len(out) >= limit:
            break
        found = inputs.pool.get(f.chunk_id)
        if found is not None and found.id not in out:
            out[found.id] = Pooled(found, "pool", reasons=inputs.reasons.get(found.id, ()))
    return list(out.values())[:limit]


@dataclass(frozen=True)
class SelectWeights:
    """`select`'s weights (`RankerPolicy.select_*`)."""

    bm25: float
    body: float
    name: float
    file: float


def select(inputs: RankInputs, pooled: Sequence[Pooled], limit: int, weights: SelectWeights,
           scoring: FileDefsPolicy) -> list[Pooled]:
    """At most `limit` of `pooled`: the hand order's, then the others with the best cheap
    score (the question's BM25 score of the chunk over the best one, `inputs.bm25`; its
    damped name-and-body score; its name words' idf share; 1 / its file's place in the hand
    order), ties by pool order; kept in pool order."""
    if len(pooled) <= limit:
        return list(pooled)
    hand = [n for n, p in enumerate(pooled) if p.source == "hand"][:limit]
    words = question_tokens(inputs.plan)
    q = len(words) or 1
    total = _idf_total(words, inputs.idf, inputs.idf_unseen)
    file_order: dict[str, int] = {}
    for c in inputs.hand:
        file_order.setdefault(c.chunk.path, len(file_order) + 1)
    suffix = _static_suffix(scoring)
    bm25 = inputs.bm25
    name_weight = scoring.name_weight
    cache = _STATIC
    w_bm25, w_body, w_name, w_file = weights.bm25, weights.body, weights.name, weights.file
    asked = word_bits(words)
    scored: list[tuple[float, int]] = []
    for n, p in enumerate(pooled):
        if p.source == "hand":
            continue
        chunk = p.chunk
        st = cache.get(chunk.id + suffix) or _static(chunk, scoring, suffix)
        # summed in one order (bm25, body, name, file); a term a disjoint set makes 0 is not
        # added (adding 0.0 changes no bit)
        score = w_bm25 * bm25.get(chunk.id, 0.0)
        if st.bits & asked:  # else no word of the question is in its name or body
            if not st.body.isdisjoint(words) or not st.long_name.isdisjoint(words):
                score += w_body * ((name_weight * len(st.long_name & words)
                                    + len(st.body & words) / st.damp) / q)
            if not st.name.isdisjoint(words):
                score += w_name * _idf_share(st.name, words, inputs.idf, inputs.idf_unseen,
                                             total)
        place = file_order.get(chunk.path)
        if place:
            score += w_file / place
        scored.append((-score, n))
    scored.sort()
    keep = set(hand) | {n for _s, n in scored[:max(limit - len(hand), 0)]}
    return [p for n, p in enumerate(pooled) if n in keep]


def _channel_ranks(lists: Sequence[Ranked], wanted: AbstractSet[str] | None = None
                   ) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """(chunk id -> channel -> its best place, chunk id -> the lists holding it), of the
    `wanted` ids only (None: every id; a row reads only its own)."""
    best: dict[str, dict[str, int]] = {}
    count: dict[str, int] = {}
    for ranked in lists:
        channel = ranked.channel
        for position, chunk_id in enumerate(ranked.chunk_ids, start=1):
            if wanted is not None and chunk_id not in wanted:
                continue
            mine = best.setdefault(chunk_id, {})
            if position < mine.get(channel, 1 << 30):
                mine[channel] = position
            count[chunk_id] = count.get(chunk_id, 0) + 1
    return best, count


def _share(found: frozenset[str], question: frozenset[str]) -> float:
    return len(found & question) / len(question) if question else 0.0


def _idf_total(question: frozenset[str], idf: Mapping[str, float], default: float) -> float:
    # fsum: exact, so the same whatever order the set iterates in (string hashes differ from
    # process to process: a plain sum's last bit did, and rows collected on Ray with it)
    return math.fsum(idf.get(w, default) for w in question)


def _idf_share(found: frozenset[str], question: frozenset[str], idf: Mapping[str, float],
               default: float, total: float) -> float:
    if not total:
        return 0.0
    common = found & question
    # fsum of nothing is 0.0, and 0.0 / total is 0.0: the same value without the sum
    return math.fsum(idf.get(w, default) for w in common) / total if common else 0.0


def _question(plan: RoutePlan) -> tuple[frozenset[str], list[float]]:
    words = question_tokens(plan)
    identifiers = sum(1 for t in plan.intent.terms if is_identifier(t))
    route = ROUTES.index(plan.intent.route) if plan.intent.route in ROUTES else len(ROUTES)
    return words, [float(len(words)), float(identifiers), float(route),
                   1.0 if plan.policy_route == "long_question" else 0.0]


_NO_RANKS = (0.0,) * len(CHANNELS)
_NO_WORDS = (0.0,) * 8  # owner, path, stem, signature, comments, body, body score, idf share
_IN_FILE = frozenset({"in_file", "in_file_more"})


@dataclass(frozen=True)
class _ListView:
    """What every row reads of the whole candidate list (places, files, totals)."""

    words: frozenset[str]
    question_row: list[float]
    best: dict[str, dict[str, int]]
    list_count: dict[str, int]
    fused: dict[str, float]
    fused_order: dict[str, int]
    hand_pos: dict[str, int]
    file_order: dict[str, int]
    file_best: dict[str, float]
    file_count: dict[str, int]
    top: float
    named_paths: set[str]
    idf_total: float
    hist_total: float
    lowered_terms: set[str]
    place_in_file: dict[int, int]
    higher: dict[int, bool]
    history_rank: dict[str, int]
    total: int
    bits: int = 0  # `word_bits(words)`


def _reason_flags(codes: AbstractSet[str], source: str) -> list[float]:
    """What the hand order said of it: aligned, in its file, a callee, a symbol lead (exact,
    fuzzy), a path hint."""
    return [1.0 if "aligned" in codes else 0.0,
            1.0 if codes & _IN_FILE or source == "file" else 0.0,
            1.0 if "neighbour" in codes or source == "callee" else 0.0,
            1.0 if "symbol_lead" in codes else 0.0,
            1.0 if "symbol_exact" in codes else 0.0,
            1.0 if "symbol_fuzzy" in codes else 0.0,
            1.0 if "path_hint" in codes else 0.0]


def _list_view(inputs: RankInputs, pooled: Sequence[Pooled]) -> _ListView:
    words, question_row = _question(inputs.plan)
    best, list_count = _channel_ranks(inputs.lists, {p.chunk.id for p in pooled})
    fused = {f.chunk_id: f.score for f in inputs.fused}
    hand_pos = {p.chunk.id: n for n, p in enumerate(pooled, start=1) if p.source == "hand"}
    file_order: dict[str, int] = {}
    for c in inputs.hand:
        file_order.setdefault(c.chunk.path, len(file_order) + 1)
    file_best: dict[str, float] = {}
    file_count: dict[str, int] = {}
    for p in pooled:
        score = fused.get(p.chunk.id, 0.0)
        file_best[p.chunk.path] = max(file_best.get(p.chunk.path, 0.0), score)
        file_count[p.chunk.path] = file_count.get(p.chunk.path, 0) + 1
    by_score = sorted(range(len(pooled)), key=lambda n: (-fused.get(pooled[n].chunk.id, 0.0),
                                                         hand_pos.get(pooled[n].chunk.id, 1 << 30),
                                                         n))
    in_file: dict[str, int] = {}
    place_in_file: dict[int, int] = {}
    for n in by_score:
        path = pooled[n].chunk.path
        in_file[path] = in_file.get(path, 0) + 1
        place_in_file[n] = in_file[path]
    seen_hand_files: set[str] = set()
    higher: dict[int, bool] = {}
    for n, p in enumerate(pooled):
        higher[n] = p.chunk.path in seen_hand_files
        if p.source == "hand":
            seen_hand_files.add(p.chunk.path)
    return _ListView(
        words=words, question_row=question_row, best=best, list_count=list_count, fused=fused,
        fused_order={f.chunk_id: n for n, f in enumerate(inputs.fused, start=1)},
        hand_pos=hand_pos, file_order=file_order, file_best=file_best, file_count=file_count,
        top=max(fused.values(), default=0.0) or 1.0,
        named_paths={nid.split("::", 1)[0][4:] for nid in inputs.named
                     if nid.startswith("def:")},
        idf_total=_idf_total(words, inputs.idf, inputs.idf_unseen),
        hist_total=_idf_total(words, inputs.history_idf, inputs.history_unseen),
        lowered_terms={t.lower() for t in inputs.plan.intent.terms},
        place_in_file=place_in_file, higher=higher,
        history_rank={c.id: n for n, c in enumerate(inputs.history_hits, start=1)},
        total=len(pooled), bits=word_bits(words))


def feature_rows(inputs: RankInputs, pooled: Sequence[Pooled],
                 scoring: FileDefsPolicy) -> list[list[float]]:
    """One row of `FEATURES` per candidate, in order. What a row shares with others is made
    once: the question's part, each file's part (`_file_parts`), the flags of a source, the
    graph and history part of a candidate without signals; each value as a row of its own
    would compute it."""
    view = _list_view(inputs, pooled)
    suffix = _static_suffix(scoring)
    files = _file_parts(view, inputs)
    return [_place_row(view, n, p) + _content_row(view, inputs, n, p, scoring, suffix, files)
            for n, p in enumerate(pooled)]


def _file_parts(v: _ListView, inputs: RankInputs) -> dict[str, tuple[float, ...]]:
    """path -> its file's features (`file_bm25_q`, `file_rr`, `file_fused`,
    `file_pool_share`), once per file of the candidates."""
    file_bm25, file_order, file_best = inputs.file_bm25, v.file_order, v.file_best
    return {path: (file_bm25.get(path, 0.0),
                   1.0 / file_order[path] if path in file_order else 0.0,
                   file_best.get(path, 0.0) / v.top, count / v.total)
            for path, count in v.file_count.items()}


def _place_row(v: _ListView, n: int, p: Pooled) -> list[float]:
    """The question, the channels' ranks and the candidate's place in the lists and files."""
    chunk = p.chunk
    ranks = v.best.get(chunk.id, {})
    return [
        *v.question_row,
        *([1.0 / ranks[c] if c in ranks else 0.0 for c in CHANNELS] if ranks else _NO_RANKS),
        float(len(ranks)), float(v.list_count.get(chunk.id, 0)),
        1.0 / v.hand_pos[chunk.id] if chunk.id in v.hand_pos else 0.0,
        p.hand.score if p.hand is not None else 0.0, v.fused.get(chunk.id, 0.0) / v.top,
        1.0 / v.fused_order[chunk.id] if chunk.id in v.fused_order else 0.0,
    ]


# from_file, from_callee, from_history of a source
_SOURCE_FLAGS = {"file": (1.0, 0.0, 0.0), "callee": (0.0, 1.0, 0.0),
                 "history": (0.0, 0.0, 1.0)}
_NO_SOURCE = (0.0, 0.0, 0.0)
# a candidate without signals: its calls, tests, documenting sections (log1p(0) = 0.0) and
# PageRank; its history's cover, idf share, commits (log1p(0)) and BM25
_NO_GRAPH = (0.0,) * 5
_NO_HISTORY = (0.0,) * 4
_NO_REASONS = {source: tuple(_reason_flags(frozenset(), source)) for source in SOURCES}


def _content_row(v: _ListView, inputs: RankInputs, n: int, p: Pooled,
                 scoring: FileDefsPolicy, suffix: str = "",
                 files: Mapping[str, tuple[float, ...]] | None = None) -> list[float]:
    """The candidate's file, its own text, kind, graph signals, reasons and history
    (`files`: `_file_parts`, made once for the rows)."""
    chunk = p.chunk
    words = v.words
    st = _STATIC.get(chunk.id + suffix) if suffix else None
    if st is None:
        st = _static(chunk, scoring, suffix)
    exact = 1.0 if st.last and st.last in v.lowered_terms else 0.0
    q = len(words) or 1
    if st.every & v.bits:
        name_hits = len(st.name & words)
        body_hits = len(st.body & words)
        said = [name_hits / q, float(name_hits), name_hits / len(st.name) if st.name else 0.0,
                exact, len(st.owner & words) / q, len(st.path & words) / q,
                len(st.stem & words) / q, len(st.sig & words) / q, len(st.doc & words) / q,
                body_hits / q,
                (scoring.name_weight * len(st.long_name & words) + body_hits / st.damp) / q
                if words else 0.0,
                _idf_share(st.name, words, inputs.idf, inputs.idf_unseen, v.idf_total)]
    else:  # no word of the question in any of its fields (`_Static.every`): each share is 0
        said = [0.0, 0.0, 0.0, exact, *_NO_WORDS]
    path = chunk.path
    node = chunk.node_id
    signals = inputs.signals.get(node)
    if signals is None:
        graph, history = _NO_GRAPH, _NO_HISTORY
    else:
        graph = (math.log1p(signals.calls_in), math.log1p(signals.calls_out),
                 math.log1p(signals.tests_in), math.log1p(signals.documented),
                 signals.pagerank)
        history = (len(signals.history & words) / q,
                   _idf_share(signals.history, words, inputs.history_idf,
                              inputs.history_unseen, v.hist_total),
                   math.log1p(signals.commits), signals.history_bm25)
    reasons = p.hand.reasons if p.hand is not None else p.reasons
    flags: Sequence[float] | None = None if reasons else _NO_REASONS.get(p.source)
    if flags is None:
        flags = _reason_flags({r.code for r in reasons}, p.source)
    return [
        inputs.bm25.get(chunk.id, 0.0),
        *(files[path] if files is not None else _file_parts(v, inputs)[path]),
        1.0 / v.place_in_file[n], 1.0 if v.higher[n] else 0.0,
        *_SOURCE_FLAGS.get(p.source, _NO_SOURCE),
        *said,
        *st.fixed,
        *graph,
        1.0 if node in inputs.named else 0.0,
        1.0 if node in inputs.near_named else 0.0,
        1.0 if path in v.named_paths else 0.0,
        *flags,
        *history,
        1.0 / v.history_rank[chunk.id] if chunk.id in v.history_rank else 0.0,
    ]
