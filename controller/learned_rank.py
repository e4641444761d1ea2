"""The learned ranker's scoring and order (pure: the driver reads the files and hands in text).

A model is LightGBM's text format (`helix eval corpus train-ranker` writes it): a sum of
regression trees over the rows of `controller.rank_features.FEATURES`. It is evaluated here
with numpy, without LightGBM (importing LightGBM costs seconds): every tree at once, one level
per pass, each row's tree outputs summed in tree order, so the same rows give the same scores
bit for bit on every machine (IEEE additions in a fixed order). Scores match LightGBM's own
`predict` (`tests/test_learned_rank.py`).

The order: score descending, ties by the candidates' order (the hand order first).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from controller.evidence import Candidate
from controller.rank_features import Pooled
from controller.reasons import Reason
from helix.core.errors import RankerModelError

_MISSING_NONE, _MISSING_ZERO, _MISSING_NAN = 0, 1, 2
_ZERO = 1e-35  # LightGBM's kZeroThreshold


@dataclass(frozen=True)
class TreeModel:
    """Every tree's internal nodes, stacked; a child < 0 is the leaf ~child of its tree."""

    features: tuple[str, ...]
    roots: np.ndarray  # per tree: its root's global node index, or -1 - (its one leaf)
    split_feature: np.ndarray
    threshold: np.ndarray
    default_left: np.ndarray
    missing: np.ndarray
    left: np.ndarray  # global child index: >= 0 a node, < 0 the global leaf -1 - child
    right: np.ndarray
    leaf_value: np.ndarray

    @property
    def trees(self) -> int:
        return len(self.roots)

    def scores(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """The model's raw score of each row."""
        if not rows:
            return []
        x = np.asarray(rows, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != len(self.features):
            raise RankerModelError(f"the ranker model takes {len(self.features)} features, "
                              f"not {x.shape[-1] if x.ndim else 0}")
        n = x.shape[0]
        columns = np.arange(n)[None, :]
        nodes = np.repeat(self.roots[:, None], n, axis=1)
        active = nodes >= 0
        while active.any():
            at = np.where(active, nodes, 0)
            value = x[columns, self.split_feature[at]]
            missing = self.missing[at]
            nan = np.isnan(value)
            value = np.where(nan & (missing != _MISSING_NAN), 0.0, value)
            default = ((missing == _MISSING_ZERO) & (np.abs(value) <= _ZERO)) | (
                (missing == _MISSING_NAN) & np.isnan(value))
            go_left = np.where(default, self.default_left[at], value <= self.threshold[at])
            nodes = np.where(active, np.where(go_left, self.left[at], self.right[at]), nodes)
            active = nodes >= 0
        leaves = self.leaf_value[-1 - nodes]
        total = np.zeros(n, dtype=np.float64)
        for tree in range(leaves.shape[0]):  # in tree order: the same sum everywhere
            total += leaves[tree]
        return [float(v) for v in total]


def _floats(line: str) -> list[float]:
    return [float(v) for v in line.split()] if line.strip() else []


def _ints(line: str) -> list[int]:
    return [int(v) for v in line.split()] if line.strip() else []


def _blocks(text: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    header: dict[str, str] = {}
    trees: list[dict[str, str]] = []
    current = header
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("Tree="):
            current = {}
            trees.append(current)
            continue
        if line == "end of trees":
            break
        key, eq, value = line.partition("=")
        if eq:
            current[key] = value
    return header, trees


def parse_model(text: str, expected: Sequence[str]) -> TreeModel:
    """A LightGBM text model whose features are `expected`, in that order (ConfigError in one
    line otherwise: another feature list, a categorical split, a malformed file)."""
    try:
        header, trees = _blocks(text)
        names = tuple(header.get("feature_names", "").split())
        if names != tuple(expected):
            raise RankerModelError(f"the ranker model's features ({len(names)}) are not this "
                              f"Helix's ({len(expected)}): retrain it")
        if header.get("num_class", "1") != "1" or not trees:
            raise RankerModelError("the ranker model is not a single-output tree model")
        return _stack(names, trees)
    except (ValueError, KeyError, IndexError) as exc:
        raise RankerModelError(f"the ranker model is malformed: {exc}") from None


def _stack(names: tuple[str, ...], trees: list[dict[str, str]]) -> TreeModel:
    roots: list[int] = []
    feat: list[int] = []
    thr: list[float] = []
    dleft: list[bool] = []
    miss: list[int] = []
    left: list[int] = []
    right: list[int] = []
    leaves: list[float] = []
    for tree in trees:
        values = _floats(tree["leaf_value"])
        if int(tree["num_leaves"]) != len(values) or not values:
            raise ValueError("leaf count")
        if int(tree.get("num_cat", "0")):
            raise RankerModelError("the ranker model has categorical splits: not supported")
        node_base, leaf_base = len(feat), len(leaves)
        leaves.extend(values)
        if len(values) == 1:
            roots.append(-1 - leaf_base)
            continue
        roots.append(node_base)
        decision = _ints(tree["decision_type"])
        features = _ints(tree["split_feature"])
        if any(f < 0 or f >= len(names) for f in features) or any(d & 1 for d in decision):
            raise ValueError("split")
        feat.extend(features)
        thr.extend(_floats(tree["threshold"]))
        dleft.extend(bool(d & 2) for d in decision)
        miss.extend((d >> 2) & 3 for d in decision)
        for side, out in (("left_child", left), ("right_child", right)):
            out.extend(node_base + c if c >= 0 else -1 - (leaf_base + (-1 - c))
                       for c in _ints(tree[side]))
    if not (len(feat) == len(thr) == len(dleft) == len(left) == len(right)):
        raise ValueError("node arrays of different lengths")
    if any(not math.isfinite(v) for v in leaves):
        raise ValueError("a leaf value is not finite")
    return TreeModel(
        features=names, roots=np.asarray(roots, dtype=np.int64),
        split_feature=np.asarray(feat or [0], dtype=np.int64),
        threshold=np.asarray(thr or [0.0], dtype=np.float64),
        default_left=np.asarray(dleft or [False], dtype=bool),
        missing=np.asarray(miss or [0], dtype=np.int64),
        left=np.asarray(left or [0], dtype=np.int64), right=np.asarray(right or [0],
                                                                           dtype=np.int64),
        leaf_value=np.asarray(leaves, dtype=np.float64))


def order(pooled: Sequence[Pooled], scores: Sequence[float], limit: int) -> list[Candidate]:
    """The candidates by score (ties: their pool order), the first `limit`, as evidence
    candidates: a hand candidate keeps its reasons, a definition only the widening found says
    where it came from (its file leads the evidence; a callee of a leading definition)."""
    ranked = sorted(range(len(pooled)), key=lambda n: (-round(scores[n], 12), n))[:limit]
    out: list[Candidate] = []
    for n in ranked:
        p = pooled[n]
        score = round(scores[n], 9)
        if p.hand is not None:
            out.append(p.hand.model_copy(update={"score": score}))
            continue
        name = p.chunk.symbol or ""
        reason = (Reason(code="neighbour", edge="called by", name=name) if p.source == "callee"
                  else Reason(code="in_file", name=name))
        out.append(Candidate(chunk=p.chunk, score=score, reasons=p.reasons or (reason,),
                             step=0))
    return out
