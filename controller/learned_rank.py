"""The learned ranker's scoring and order (pure: the driver reads the files and hands in text).

A model is LightGBM's text format (`helix eval corpus train-ranker` writes it): a sum of
regression trees over the rows of `controller.rank_features.FEATURES`. It is evaluated here
with numpy, without LightGBM (importing LightGBM costs seconds): every node of every tree
tested for every row at once, each row's exit leaves found by bit masks (`TreeModel`), their
values summed in tree order, so the same rows give the same scores bit for bit on every
machine (IEEE additions in a fixed order). Scores match LightGBM's own `predict`
(`tests/test_learned_rank.py`).

The order: score descending, ties by the candidates' order (the hand order first).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from controller.evidence import Candidate
from controller.rank_features import Pooled
from controller.reasons import Reason
from helix.core.errors import RankerModelError
from helix.core.hashing import digest

_MISSING_NONE, _MISSING_ZERO, _MISSING_NAN = 0, 1, 2
_ZERO = 1e-35  # LightGBM's kZeroThreshold


MAX_LEAVES = 64  # a tree's leaves fit one 64-bit mask


@dataclass(frozen=True)
class TreeModel:
    """Every tree's internal nodes, side by side (QuickScorer's layout: Lucchese et al.,
    SIGIR 2015). A node whose test fails (the row goes right) rules out the leaves of its left
    subtree: `mask` keeps the others. A row's exit leaf in a tree is the leftmost leaf no
    failed test ruled out: the lowest set bit of the AND of its failed nodes' masks (leaves are
    numbered left to right). Every tree is padded to the same number of nodes with tests that
    never fail, so every row and node is tested at once and no tree is walked."""

    features: tuple[str, ...]
    split_feature: np.ndarray  # trees x nodes, padded
    threshold: np.ndarray
    default_left: np.ndarray
    missing: np.ndarray
    mask: np.ndarray  # unsigned, one bit per leaf
    leaf_base: np.ndarray  # per tree: its first leaf in `leaf_value`, left to right
    leaf_value: np.ndarray

    @property
    def trees(self) -> int:
        return len(self.leaf_base)

    @cached_property
    def _tests(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(feature, threshold) of each distinct test, and which one each node makes: trees
        share most of their tests (LightGBM's thresholds are bin edges)."""
        pairs = np.stack([self.split_feature.ravel().astype(np.float64),
                          self.threshold.ravel()], axis=1)
        unique, which = np.unique(pairs, axis=0, return_inverse=True)
        return (unique[:, 0].astype(np.int64), unique[:, 1],
                which.reshape(self.split_feature.shape))

    def _goes_right(self, x: np.ndarray) -> np.ndarray:
        # no NaN in the rows and no zero-as-missing test: the plain test, each distinct one once
        if not (np.isnan(x).any() or (self.missing == _MISSING_ZERO).any()):
            feature, threshold, which = self._tests
            return np.asarray((x[:, feature] > threshold)[:, which])
        value = x[:, self.split_feature]  # rows x trees x nodes
        nan = np.isnan(value)
        value = np.where(nan & (self.missing != _MISSING_NAN), 0.0, value)
        default = ((self.missing == _MISSING_ZERO) & (np.abs(value) <= _ZERO)) | (
            (self.missing == _MISSING_NAN) & nan)
        return np.asarray(np.where(default, ~self.default_left, ~(value <= self.threshold)))

    @cached_property
    def _exits(self) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray, np.ndarray] | None:
        """The plain tests' fast path (`scores`), for trees of at most 8 leaves: per node
        place, which distinct test each tree makes there and the leaves it rules out when
        that test fails (a uint8 each); each tree's leaf value for every set of leaves left
        (its lowest bit), flat, and where each tree's table starts. None: wider trees."""
        counts = np.diff(np.append(self.leaf_base, len(self.leaf_value)))
        width = 1 << int(counts.max())
        if width > 256:
            return None
        _feature, _threshold, which = self._tests
        keep = self.mask.dtype.type(width - 1)
        ruled = [np.ascontiguousarray(~self.mask[:, w] & keep).astype(np.uint8)[:, None]
                 for w in range(which.shape[1])]
        tests = [np.ascontiguousarray(which[:, w]) for w in range(which.shape[1])]
        sets = np.arange(width, dtype=np.int64)
        lowest = np.zeros(width, dtype=np.int64)
        lowest[1:] = np.log2((sets & -sets)[1:].astype(np.float64)).astype(np.int64)
        place = self.leaf_base[:, None] + np.minimum(lowest[None, :], counts[:, None] - 1)
        starts = (np.arange(self.trees, dtype=np.int64) * width)[:, None]
        return tests, ruled, self.leaf_value[place].ravel(), starts

    def scores(self, rows: Sequence[Sequence[float]] | np.ndarray) -> list[float]:
        """The model's raw score of each row."""
        x = np.asarray(rows, dtype=np.float64)
        if x.size == 0:
            return []
        if x.ndim != 2 or x.shape[1] != len(self.features):
            raise RankerModelError(f"the ranker model takes {len(self.features)} features, "
                                   f"not {x.shape[-1] if x.ndim else 0}")
        fast = self._exits
        if fast is not None and not (np.isnan(x).any()
                                     or (self.missing == _MISSING_ZERO).any()):
            return self._plain_scores(x, *fast)
        # the AND of the failed nodes' masks, as NOT the OR of the leaves they rule out
        ruled = np.bitwise_or.reduce(self._goes_right(x) * ~self.mask, axis=2)
        reached = ~ruled  # rows x trees
        lowest = reached & (~reached + self.mask.dtype.type(1))  # the lowest set bit alone
        exits = np.log2(lowest.astype(np.float64)).astype(np.int64)
        leaves = np.ascontiguousarray(self.leaf_value[self.leaf_base + exits].T)
        total = np.zeros(x.shape[0], dtype=np.float64)
        for tree in range(self.trees):  # in tree order: the same sum everywhere
            total += leaves[tree]
        return [float(v) for v in total.tolist()]

    def _plain_scores(self, x: np.ndarray, tests: list[np.ndarray], ruled: list[np.ndarray],
                      table: np.ndarray, starts: np.ndarray) -> list[float]:
        """`scores` of rows without NaN under plain tests, trees x rows throughout: each
        distinct test made once per row, the leaves the failed ones rule out OR-ed a node
        place at a time, each tree's exit value read from its table by the leaves left, and
        the values summed in tree order (`np.add.accumulate`: sequential by definition, as
        the loop of the general path; + 0.0 as its sum starts from 0.0)."""
        feature, threshold, _which = self._tests
        failed = np.ascontiguousarray((x[:, feature] > threshold).T)  # tests x rows
        out = failed[tests[0]] * ruled[0]
        for place in range(1, len(tests)):
            out |= failed[tests[place]] * ruled[place]
        mask = np.uint8(len(table) // max(self.trees, 1) - 1)
        values = table[(~out & mask) + starts]
        total = np.add.accumulate(values, axis=0)[-1] + 0.0
        return [float(v) for v in total.tolist()]


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


def _in_order(left: list[int], right: list[int]) -> tuple[list[int], dict[int, list[int]]]:
    """(LightGBM leaf ids left to right, node -> the leaf ids of its left subtree)."""
    order: list[int] = []
    left_leaves: dict[int, list[int]] = {}

    def leaves(child: int) -> list[int]:
        if child < 0:
            order.append(-1 - child)
            return [-1 - child]
        below_left = leaves(left[child])
        left_leaves[child] = below_left
        return below_left + leaves(right[child])

    leaves(0)
    return order, left_leaves


def _stack(names: tuple[str, ...], trees: list[dict[str, str]]) -> TreeModel:
    nodes: list[list[tuple[int, float, bool, int, int]]] = []  # per tree, its tests
    leaf_base: list[int] = []
    leaves: list[float] = []
    widest = 1
    for tree in trees:
        values = _floats(tree["leaf_value"])
        if int(tree["num_leaves"]) != len(values) or not values:
            raise ValueError("leaf count")
        if len(values) > MAX_LEAVES:
            raise RankerModelError(f"the ranker model has a tree of more than {MAX_LEAVES} "
                                   "leaves: not supported")
        if int(tree.get("num_cat", "0")):
            raise RankerModelError("the ranker model has categorical splits: not supported")
        leaf_base.append(len(leaves))
        widest = max(widest, len(values))
        if len(values) == 1:
            leaves.extend(values)
            nodes.append([])
            continue
        decision = _ints(tree["decision_type"])
        features = _ints(tree["split_feature"])
        left, right = _ints(tree["left_child"]), _ints(tree["right_child"])
        thresholds = _floats(tree["threshold"])
        if (any(f < 0 or f >= len(names) for f in features) or any(d & 1 for d in decision)
                or not len(features) == len(decision) == len(left) == len(right)
                == len(thresholds) == len(values) - 1):
            raise ValueError("split")
        order, left_leaves = _in_order(left, right)
        place = {leaf: n for n, leaf in enumerate(order)}
        leaves.extend(values[leaf] for leaf in order)
        full = (1 << MAX_LEAVES) - 1
        nodes.append([(features[n], thresholds[n], bool(decision[n] & 2),
                       (decision[n] >> 2) & 3,
                       full & ~sum(1 << place[leaf] for leaf in left_leaves[n]))
                      for n in range(len(features))])
    if any(not math.isfinite(v) for v in leaves):
        raise ValueError("a leaf value is not finite")
    width = max((len(t) for t in nodes), default=0) or 1
    kind = np.uint32 if widest <= 32 else np.uint64
    keep = (1 << (32 if kind is np.uint32 else 64)) - 1
    # padding: a test that never fails (x > inf is false; NaN reads as 0 or goes left)
    pad = (0, math.inf, True, _MISSING_NONE, keep)
    grid = [t + [pad] * (width - len(t)) for t in nodes]
    return TreeModel(
        features=names,
        split_feature=np.asarray([[n[0] for n in t] for t in grid], dtype=np.int64),
        threshold=np.asarray([[n[1] for n in t] for t in grid], dtype=np.float64),
        default_left=np.asarray([[n[2] for n in t] for t in grid], dtype=bool),
        missing=np.asarray([[n[3] for n in t] for t in grid], dtype=np.int64),
        mask=np.asarray([[n[4] & keep for n in t] for t in grid], dtype=kind),
        leaf_base=np.asarray(leaf_base, dtype=np.int64),
        leaf_value=np.asarray(leaves, dtype=np.float64))


def spread(ranked: Sequence[int], paths: Sequence[str], limit: int, lead: int) -> list[int]:
    """The first `lead` of `ranked` (the model's order) as they are, then the first candidate
    (in pool order: the hand order's first) of each file not yet listed, then the rest in
    `ranked`'s order: at most `limit`. The model spends its first places on the definitions
    of few files; the evidence's tail names more, in the order the hand order found them
    (`lead` >= `limit`: the model's order unchanged)."""
    out = list(ranked[:min(lead, limit)])
    files = {paths[n] for n in out}
    rest = ranked[len(out):]
    taken: set[int] = set()
    for n in sorted(rest):
        if len(out) >= limit:
            return out
        if paths[n] not in files:
            files.add(paths[n])
            out.append(n)
            taken.add(n)
    out.extend(n for n in rest if n not in taken)
    return out[:limit]


def _framed(path: str, frames: Sequence[str]) -> bool:
    """`path` is a file a stack frame names (`controller.issue_text.frame_paths`: its last
    two parts, so `src/httpx/_client.py` is named by `httpx/_client.py`)."""
    return any(path == f or path.endswith("/" + f) for f in frames)


def keep_hand(pooled: Sequence[Pooled], scores: Sequence[float], ranked: list[int],
              keep_text: bool, keep_file: float, frames: Sequence[str] = ()) -> list[int]:
    """`ranked` (the model's order) with one candidate moved first: the hand order's first
    item when `keep_text` and it is not a definition, or when it lies in a file the
    question's stack frames name (`frames`: the corpus's commit messages seldom hold a
    traceback, so the model never learned that the frame where an error arises answers);
    else, when `keep_file` >= 0, the model's best candidate of the hand order's first file
    unless the model's best leads it by more than `keep_file`. Unchanged when none applies
    (or no hand order)."""
    if not ranked or pooled[0].hand is None:
        return ranked
    first: int | None = None
    if (keep_text and pooled[0].chunk.kind != "code_def") or _framed(pooled[0].chunk.path,
                                                                     frames):
        first = 0
    elif keep_file >= 0:
        path = pooled[0].chunk.path
        best = next(n for n in ranked if pooled[n].chunk.path == path)
        if scores[ranked[0]] - scores[best] <= keep_file:
            first = best
    if first is None or first == ranked[0]:
        return ranked
    return [first, *(n for n in ranked if n != first)]


def order(pooled: Sequence[Pooled], scores: Sequence[float], limit: int,
          lead: int | None = None, keep_text: bool = False,
          keep_file: float = -1.0, frames: Sequence[str] = ()) -> list[Candidate]:
    """The candidates by score (ties: their pool order), the first `limit` (`spread` over
    files after the first `lead`; None: by score alone), as evidence candidates: a hand
    candidate keeps its reasons, a definition only the widening found says where it came from
    (its file leads the evidence; a callee of a leading definition)."""
    ranked = keep_hand(pooled, scores,
                       sorted(range(len(pooled)), key=lambda n: (-round(scores[n], 12), n)),
                       keep_text, keep_file, frames)
    ranked = (ranked[:limit] if lead is None
              else spread(ranked, [p.chunk.path for p in pooled], limit, lead))
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


BLEND_K = 60.0  # reciprocal rank fusion's constant (`controller.fusion`'s)


def blend(scores: Sequence[float], share: float, k: float = BLEND_K) -> list[float]:
    """The model's order fused with the pool's (the candidates' own order: the hand order
    first) by reciprocal rank: `share` / (k + the model's place) + (1 - `share`) / (k + the
    pool's place), places from 1, the model's ties broken by pool order."""
    places = sorted(range(len(scores)), key=lambda n: (-round(scores[n], 12), n))
    model_place = {n: place for place, n in enumerate(places, start=1)}
    return [share / (k + model_place[n]) + (1.0 - share) / (k + n + 1)
            for n in range(len(scores))]


def reorder_head(ranked: Sequence[Candidate], pooled: Sequence[Pooled],
                 scores: Sequence[float], head: int, start: int = 0) -> list[Candidate]:
    """The hand order `ranked` with its items `start` to `head` - 1 (from 0) reordered by the
    model's `scores` (ties: the hand order's), the others where they are: the evidence is the
    hand order's, only the order of its head moves (`start` 1: the hand order's first item
    stays first). An item of the head the pool does not hold keeps its place."""
    score_of = {p.hand.chunk.id: float(scores[n]) for n, p in enumerate(pooled)
                if p.hand is not None}
    top = list(ranked[:head])
    places = [n for n, c in enumerate(top) if c.chunk.id in score_of and n >= start]
    moved = sorted(places, key=lambda n: (-round(score_of[top[n].chunk.id], 12), n))
    out = list(top)
    for place, n in zip(places, moved, strict=True):
        out[place] = top[n]
    return [*out, *ranked[head:]]


def read_model_file(path: Path, what: str, limit: int) -> bytes:
    """A shipped model file's bytes, refused (one-line RankerModelError) above `limit` bytes or
    when it cannot be read; `what` names it in the message ("ranker manifest", ...)."""
    try:
        if path.stat().st_size > limit:
            raise RankerModelError(f"the {what} {path} is larger than {limit >> 20} MiB")
        return path.read_bytes()
    except OSError as exc:
        raise RankerModelError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None


def read_pinned_model(path: Path, pinned: str, what: str, setting: str,
                      limit: int) -> tuple[dict[str, Any], str]:
    """A shipped model pinned by its manifest's digest: the manifest (a JSON object naming the
    model file beside it, `model`, and that file's digest, `model_digest`) and the model's
    text. One-line RankerModelError when the manifest's digest is not `pinned` (the setting
    `setting`), when either file is malformed, too large, unreadable, or the model file does
    not match its digest; `what` names the model in the messages ("span swap model")."""
    raw = read_model_file(path, f"{what} file", limit)
    if digest(raw) != pinned:
        raise RankerModelError(f"the {what} manifest {path} has digest {digest(raw)}, "
                               f"not {setting} {pinned}")
    try:
        manifest = json.loads(raw)
        name, want = manifest["model"], manifest["model_digest"]
    except (ValueError, KeyError, TypeError):
        raise RankerModelError(f"the {what} manifest {path} is malformed") from None
    if not isinstance(name, str) or "/" in name or name in ("", "..") \
            or not isinstance(want, str):
        raise RankerModelError(f"the {what} manifest {path} is malformed")
    text = read_model_file(path.parent / name, f"{what} file", limit)
    if digest(text) != want:
        raise RankerModelError(f"the {what} {path.parent / name} does not match its "
                               "manifest's digest")
    return manifest, text.decode("utf-8", "replace")
