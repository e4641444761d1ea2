"""The learned ranker's feature rows as one matrix, filled a feature (or a group of features)
at a time over every candidate (pure).

`feature_matrix` holds, row for row and bit for bit, the values of
`controller.rank_features.feature_rows` (the reference: a Python list per candidate, which
the model was trained with): the same values made by the same Python expressions, or by
numpy's IEEE division of the same operands (`1.0 / place`, `score / top`: one correctly
rounded operation either way), written straight into a float64 matrix the trees read
(`learned_rank.TreeModel.scores`) without a list of 76 floats per candidate and its
conversion. A value zero for most candidates (the channels' places, the word shares, the
graph and history signals) is written only where it is not. `tests/test_rank_matrix.py`
checks it against `feature_rows`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from controller.rank_features import (
    _NO_REASONS,
    _NO_SOURCE,
    _SOURCE_FLAGS,
    CHANNELS,
    FEATURES,
    Pooled,
    RankInputs,
    _file_parts,
    _idf_share,
    _list_view,
    _ListView,
    _reason_flags,
)
from controller.rank_static import _STATIC, _static, _static_suffix
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk

# what a scorer is handed: `feature_matrix`'s matrix (or rows as lists: tests, training)
Rows = Sequence[Sequence[float]] | np.ndarray

_COL = {name: n for n, name in enumerate(FEATURES)}
_CHANNEL_COL = {c: _COL[f"rr_{c}"] for c in CHANNELS}
_WORDS = _COL["name_cov"]  # the 12 word features, name_cov to name_idf_share
_FIXED = _COL["is_def"]  # the 9 of kind and size, is_def to is_private
_GRAPH = _COL["log_calls_in"]  # the 5 graph signals
_REASONS = _COL["r_aligned"]  # the 7 reason flags
_HISTORY = _COL["hist_cov"]  # the 4 history values
_FILE = _COL["file_bm25_q"]  # the 4 file features
_SOURCE = _COL["from_file"]  # the 3 source flags


def _block(flat: list[float], rows: int, width: int) -> np.ndarray:
    """`rows` x `width` floats given row after row (one conversion of a flat list)."""
    return np.fromiter(flat, dtype=np.float64, count=rows * width).reshape(rows, width)


def _fill(x: np.ndarray, column: int, where: list[int], values: list[float]) -> None:
    if where:
        x[where, column] = values


def feature_matrix(inputs: RankInputs, pooled: Sequence[Pooled],
                   scoring: FileDefsPolicy) -> np.ndarray:
    """`feature_rows(inputs, pooled, scoring)` as a (candidates x FEATURES) float64 matrix."""
    n = len(pooled)
    x = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if not n:
        return x
    v = _list_view(inputs, pooled)
    x[:, :len(v.question_row)] = v.question_row
    chunks = [p.chunk for p in pooled]
    ids = [c.id for c in chunks]
    _place(x, v, pooled, ids)
    bm25 = inputs.bm25
    x[:, _COL["bm25_q"]] = [bm25.get(i, 0.0) for i in ids]
    files = _file_parts(v, inputs)
    x[:, _FILE:_FILE + 4] = _block([f for c in chunks for f in files[c.path]], n, 4)
    place_in_file, higher = v.place_in_file, v.higher
    x[:, _COL["rank_in_file"]] = 1.0 / np.asarray([place_in_file[k] for k in range(n)],
                                                  dtype=np.float64)
    x[:, _COL["file_has_higher"]] = [1.0 if higher[k] else 0.0 for k in range(n)]
    sources: list[float] = []
    reasons: list[float] = []
    for p in pooled:
        sources += _SOURCE_FLAGS.get(p.source, _NO_SOURCE)
        said = p.hand.reasons if p.hand is not None else p.reasons
        flags = None if said else _NO_REASONS.get(p.source)
        reasons += (flags if flags is not None
                    else _reason_flags({r.code for r in said}, p.source))
    x[:, _SOURCE:_SOURCE + 3] = _block(sources, n, 3)
    _words(x, v, inputs, chunks, scoring)
    _signals(x, v, inputs, chunks)
    x[:, _REASONS:_REASONS + 7] = _block(reasons, n, 7)
    rank = v.history_rank
    where = [k for k, i in enumerate(ids) if i in rank]
    _fill(x, _COL["rr_history"], where, [1.0 / rank[ids[k]] for k in where])
    return x


def _place(x: np.ndarray, v: _ListView, pooled: Sequence[Pooled], ids: list[str]) -> None:
    """The channels' places, the lists, the hand order's place and score, the fused score
    and place (`rank_features._place_row`)."""
    rows: list[int] = []
    cols: list[int] = []
    places: list[int] = []
    n_channels = []
    best, chan = v.best, _CHANNEL_COL
    for k, i in enumerate(ids):
        ranks = best.get(i)
        if not ranks:
            n_channels.append(0.0)
            continue
        n_channels.append(float(len(ranks)))
        for c, r in ranks.items():
            col = chan.get(c)
            if col is not None:
                rows.append(k)
                cols.append(col)
                places.append(r)
    if rows:
        x[rows, cols] = 1.0 / np.asarray(places, dtype=np.float64)
    x[:, _COL["n_channels"]] = n_channels
    count = v.list_count
    x[:, _COL["n_lists"]] = [float(count.get(i, 0)) for i in ids]
    hand_pos = v.hand_pos
    where = [k for k, i in enumerate(ids) if i in hand_pos]
    _fill(x, _COL["hand_rr"], where, [1.0 / hand_pos[ids[k]] for k in where])
    x[:, _COL["hand_score"]] = [p.hand.score if p.hand is not None else 0.0 for p in pooled]
    fused = v.fused
    x[:, _COL["fused_score"]] = np.asarray([fused.get(i, 0.0) for i in ids],
                                           dtype=np.float64) / v.top
    order = v.fused_order
    where = [k for k, i in enumerate(ids) if i in order]
    _fill(x, _COL["fused_rr"], where, [1.0 / order[ids[k]] for k in where])


def _words(x: np.ndarray, v: _ListView, inputs: RankInputs, chunks: Sequence[Chunk],
           scoring: FileDefsPolicy) -> None:
    """The question's words in the candidate's fields, its kind and size
    (`rank_features._content_row`'s `said` and `st.fixed`)."""
    suffix = _static_suffix(scoring)
    words, bits, terms = v.words, v.bits, v.lowered_terms
    q = len(words) or 1
    idf, unseen, total, name_weight = inputs.idf, inputs.idf_unseen, v.idf_total, \
        scoring.name_weight
    fixed: list[float] = []
    exact_col = []
    said_at: list[int] = []
    said: list[list[float]] = []
    for k, chunk in enumerate(chunks):
        st = _STATIC.get(chunk.id + suffix)
        if st is None:
            st = _static(chunk, scoring, suffix)
        fixed += st.fixed
        exact = 1.0 if st.last and st.last in terms else 0.0
        exact_col.append(exact)
        if st.every & bits:
            name_hits = len(st.name & words)
            body_hits = len(st.body & words)
            said_at.append(k)
            said.append([
                name_hits / q, float(name_hits), name_hits / len(st.name) if st.name else 0.0,
                exact, len(st.owner & words) / q, len(st.path & words) / q,
                len(st.stem & words) / q, len(st.sig & words) / q, len(st.doc & words) / q,
                body_hits / q,
                (name_weight * len(st.long_name & words) + body_hits / st.damp) / q
                if words else 0.0,
                _idf_share(st.name, words, idf, unseen, total)])
    x[:, _FIXED:_FIXED + 9] = _block(fixed, len(chunks), 9)
    x[:, _COL["name_exact"]] = exact_col
    if said_at:
        x[said_at, _WORDS:_WORDS + 12] = said


class _Log1p(dict[float, float]):
    """math.log1p of a count, kept: the counts repeat (a lookup, not a call)."""

    def __missing__(self, key: float) -> float:
        if len(self) >= 1 << 16:
            self.clear()
        value = self[key] = math.log1p(key)
        return value


_LOG1P = _Log1p()


def _signals(x: np.ndarray, v: _ListView, inputs: RankInputs, chunks: Sequence[Chunk]) -> None:
    """The graph signals, the named definitions and the history values."""
    signals, named, near, named_paths = (inputs.signals, inputs.named, inputs.near_named,
                                         v.named_paths)
    words = v.words
    q = len(words) or 1
    at: list[int] = []
    graph: list[float] = []
    history: list[float] = []
    marks: list[float] = []
    log1p = _LOG1P.__getitem__
    for k, chunk in enumerate(chunks):
        node = chunk.node_id
        marks += (1.0 if node in named else 0.0, 1.0 if node in near else 0.0,
                  1.0 if chunk.path in named_paths else 0.0)
        s = signals.get(node)
        if s is None:
            continue
        at.append(k)
        graph += (log1p(s.calls_in), log1p(s.calls_out), log1p(s.tests_in),
                  log1p(s.documented), s.pagerank)
        if s.history:
            history += (len(s.history & words) / q,
                        _idf_share(s.history, words, inputs.history_idf,
                                   inputs.history_unseen, v.hist_total),
                        log1p(s.commits), s.history_bm25)
        else:  # no words: no share of them (`_idf_share` of an empty set is 0.0)
            history += (0.0, 0.0, log1p(s.commits), s.history_bm25)
    x[:, _COL["named"]:_COL["named"] + 3] = _block(marks, len(chunks), 3)
    if at:
        x[at, _GRAPH:_GRAPH + 5] = _block(graph, len(at), 5)
        x[at, _HISTORY:_HISTORY + 4] = _block(history, len(at), 4)
