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
caller reads the turn with the numpy encoder).

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
    classify_rounded,
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
    out: set[int] = set()
    for c in sorted({int(x) for x in model.labels[unsure]}):  # the classes with any unsure
        lo, hi = model.bounds[c]
        mine = np.flatnonzero(unsure[lo:hi]) + lo
        if hi - lo <= TOP_K:
            out.update(int(i) for i in mine)
            continue
        kth = np.partition(low[lo:hi], hi - lo - TOP_K)[hi - lo - TOP_K]
        out.update(int(i) for i in mine if high[i] > kth)
        detailed = model.detailed[c]
        if detailed.size:
            best = low[detailed].max()
            out.update(int(i) for i in detailed if unsure[i] and high[i] >= best)
    return sorted(out)


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
    first = classify_rounded(model, f, own, tuple(float(s) for s in scores))
    if not unsure and not opt_unsure:
        return (first,)
    if len(unsure) + len(opt_unsure) > MAX_UNSURE:
        return None
    # each class's unsure exemplars, tried both ways within the class: only the ways that give
    # the class other features or another detail are combined with the other classes'
    by_class: dict[int, list[int]] = {}
    for i in unsure:
        by_class.setdefault(int(model.labels[i]), []).append(i)
    ways = [_class_ways(model, c, members, own, low, high) for c, members in by_class.items()]
    option_ways = []
    for choice in itertools.product((False, True), repeat=len(opt_unsure)):
        options = scores.copy()
        for i, up in zip(opt_unsure, choice, strict=True):
            options[i] = opt_high[i] if up else opt_low[i]
        option_ways.append(tuple(float(s) for s in options))
    found = [first]
    for pick in itertools.product(*ways):
        sims = own.copy()
        for values in pick:
            for i, value in values:
                sims[i] = value
        for options_read in option_ways:
            got = classify_rounded(model, f, sims, options_read)
            if got not in found:
                found.append(got)
    return tuple(found)


def _class_ways(model: MeaningModel, c: int, members: list[int], own: np.ndarray,
                low: np.ndarray, high: np.ndarray) -> list[tuple[tuple[int, float], ...]]:
    """The distinct ways class `c`'s unsure `members` can round: each as the values it sets,
    one per distinct (best, mean of the best `TOP_K`, the values of members with a detail)."""
    lo, hi = model.bounds[c]
    detailed = [i for i in members if i in set(model.detailed[c].tolist())]
    seen: dict[tuple[float, ...], tuple[tuple[int, float], ...]] = {}
    for choice in itertools.product((False, True), repeat=len(members)):
        values = tuple((i, float(high[i] if up else low[i]))
                       for i, up in zip(members, choice, strict=True))
        part = own[lo:hi].copy()
        for i, value in values:
            part[i - lo] = value
        pair = class_features(part, [(0, hi - lo)])[[0, len(CLASSES)]]
        key = (*pair.tolist(), *(v for i, v in values if i in detailed))
        seen.setdefault(key, values)
    return list(seen.values())
