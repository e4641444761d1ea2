"""A turn's reading from vectors known up to float rounding: the long-lived processes' turn
encoder (ONNX Runtime, `indexers.onnx_query`) computes the numpy encoder's vectors with other
kernels, so its products with the exemplars differ from numpy's in the 7th decimal. The
classifier rounds every product to `meaning.ROUND` decimals before it compares anything, so a
reading can differ only where a product lies within that difference of a rounding boundary.

    candidate_readings(model, f, products, option_products) -> tuple[Reading, ...] | None

Every product is known to lie within `SLACK` of numpy's (an option's, of which both vectors
were computed so, within twice that). Rounding is monotone, so each rounded similarity is one
of two neighbours at most; the ones that could change a feature (a class's best `TOP_K`, the
best exemplar with a detail) or an option's score are tried both ways, and every reading they
give is returned: the numpy encoder's is among them. Mostly there is one; where there are
more, the turn is routed with each and the route is kept only when they all agree
(`helix.session.warm.route_turn`). None when more than `MAX_UNSURE` products are unsure (the
caller reads the turn with the numpy encoder). Its cost (a warm turn's p95, issue 32): the
classes whose unsure exemplars cannot reach their best `TOP_K` are set aside by one pass over
the bank, and the bank's class features are computed once per read, each combination
replacing only the features of the classes it varies (tests/test_certain_cost.py).

`SLACK` is ten times the largest difference measured between the two encoders' products with
the shipped exemplars (benchmarks/router_cost.py, `products`; tests/test_turn_encoder.py
checks the bound on the installed onnxruntime and BLAS, and the reader checks it again in each
process before it trusts the encoder: `helix.session.warm`).
"""

from __future__ import annotations

import itertools

import numpy as np

from controller.continuity.meaning import (
    CLASSES,
    TOP_K,
    Features,
    MeaningModel,
    class_features,
    classify_text,
    rounded,
)
from controller.continuity.turn_plan import Reading

SLACK = 2e-6
MAX_UNSURE = 8


def bounds_of(product: np.ndarray, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest rounded similarity of each product moved by up to `slack`."""
    step = np.float32(slack)
    return rounded(product - step), rounded(product + step)


def relevant_unsure(model: MeaningModel, low: np.ndarray, high: np.ndarray) -> list[int]:
    """The exemplars whose rounded similarity is unsure and could change a feature or the
    detail: in its class, fewer than `TOP_K` others are surely at least as similar; among its
    class's exemplars with a detail, none is surely more similar."""
    unsure = low != high
    if not unsure.any():
        return []
    labels = model.labels
    # per class, its unsure exemplars' highest bound; a class with `TOP_K` exemplars surely at
    # least that similar has none that could change its features (most classes of a turn:
    # only the others are searched)
    peak = np.full(len(CLASSES), -np.inf)
    np.maximum.at(peak, labels[unsure], high[unsure])
    above = np.bincount(labels[low >= peak[labels]], minlength=len(CLASSES))
    found: list[np.ndarray] = []
    for c in np.flatnonzero((peak > -np.inf) & (above < TOP_K)).tolist():
        lo, hi = model.bounds[c]
        mine = np.flatnonzero(unsure[lo:hi]) + lo
        if hi - lo <= TOP_K:
            found.append(mine)
            continue
        kth = np.partition(low[lo:hi], hi - lo - TOP_K)[hi - lo - TOP_K]
        found.append(mine[high[mine] > kth])
    for detailed in model.detailed:
        if detailed.size and unsure[detailed].any():
            best = low[detailed].max()
            found.append(detailed[unsure[detailed] & (high[detailed] >= best)])
    return [int(i) for i in np.unique(np.concatenate(found))] if found else []


def candidate_readings(model: MeaningModel, f: Features, products: np.ndarray,
                       option_products: np.ndarray | None = None,
                       slack: float = SLACK) -> tuple[Reading, ...] | None:
    """Every reading a product within `slack` of `products` can give (options: `2 * slack`),
    the reading of `products` themselves first, each once; None when more than `MAX_UNSURE`
    rounded similarities are unsure."""
    low, high = bounds_of(products, slack)
    unsure = relevant_unsure(model, low, high)
    if option_products is not None and len(option_products):
        opt_low, opt_high = bounds_of(option_products, 2 * slack)
        scores = rounded(option_products)
    else:
        opt_low = opt_high = scores = np.zeros(0, dtype=np.float64)
    opt_unsure = [int(i) for i in np.flatnonzero(opt_low != opt_high)]
    own = rounded(products)
    text = class_features(own, model.bounds)
    first = classify_text(model, f, text, own, tuple(float(s) for s in scores))
    if not unsure and not opt_unsure:
        return (first,)
    if len(unsure) + len(opt_unsure) > MAX_UNSURE:
        return None
    # each class's unsure exemplars, tried both ways within the class: only the ways that give
    # the class other features or another detail are combined with the other classes' (a
    # way's features replace its class's two in `text`: the other classes' are unchanged)
    by_class: dict[int, list[int]] = {}
    for i in unsure:
        by_class.setdefault(int(model.labels[i]), []).append(i)
    ways = [[(c, *way) for way in _class_ways(model, c, members, own, low, high)]
            for c, members in by_class.items()]
    option_ways = []
    for choice in itertools.product((False, True), repeat=len(opt_unsure)):
        options = scores.copy()
        for i, up in zip(opt_unsure, choice, strict=True):
            options[i] = opt_high[i] if up else opt_low[i]
        option_ways.append(tuple(float(s) for s in options))
    found = [first]
    seen = {first}
    for pick in itertools.product(*ways):
        sims, features = own.copy(), text.copy()
        for c, values, pair in pick:
            for i, value in values:
                sims[i] = value
            features[[c, len(CLASSES) + c]] = pair
        for options_read in option_ways:
            got = classify_text(model, f, features, sims, options_read)
            if got not in seen:
                seen.add(got)
                found.append(got)
    return tuple(found)


def _class_ways(model: MeaningModel, c: int, members: list[int], own: np.ndarray,
                low: np.ndarray, high: np.ndarray,
                ) -> list[tuple[tuple[tuple[int, float], ...], np.ndarray]]:
    """The distinct ways class `c`'s unsure `members` can round: each as the values it sets and
    the class's two features then (`class_features`: its best, the mean of its best `TOP_K`),
    one per distinct (those features, the values of members with a detail)."""
    lo, hi = model.bounds[c]
    detailed = set(model.detailed[c].tolist())
    seen: dict[tuple[float, ...], tuple[tuple[tuple[int, float], ...], np.ndarray]] = {}
    for choice in itertools.product((False, True), repeat=len(members)):
        values = tuple((i, float(high[i] if up else low[i]))
                       for i, up in zip(members, choice, strict=True))
        part = own[lo:hi].copy()
        for i, value in values:
            part[i - lo] = value
        pair = class_features(part, [(0, hi - lo)])[[0, len(CLASSES)]]
        key = (*pair.tolist(), *(v for i, v in values if i in detailed))
        seen.setdefault(key, (values, pair))
    return list(seen.values())
