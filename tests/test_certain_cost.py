"""The certainty check of a warm read (helix/session/certain.py) at its cost (issue 32: a warm
router turn's p95): the same unsure exemplars and readings as the plain definitions, with the
whole bank's class features computed once per read however many readings it tries."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from controller.continuity import meaning
from controller.continuity.meaning import (
    CLASSES,
    FLAG_NAMES,
    TOP_K,
    Features,
    classify_rounded,
    products,
    rounded,
)
from helix.session import certain, reader

F = Features(text="who calls it?", flags=tuple(0.0 for _ in FLAG_NAMES), rules="new_question")
STEP = 1e-4  # the classifier's rounding (meaning.ROUND decimals)


@pytest.fixture(scope="module")
def model() -> Any:
    return reader.shipped_model()


def _products(model: Any, seed: int, noise: float = 0.2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = model.vectors[int(rng.integers(len(model.vectors)))] + noise * rng.standard_normal(
        model.vectors.shape[1])
    return products(model.vectors, (v / np.linalg.norm(v)).astype(np.float32))


def _several_unsure(model: Any, seed: int) -> np.ndarray:
    """Products on the rounding steps (none unsure) but for the best exemplar of a few
    classes, moved onto a rounding boundary (`SLACK` makes each unsure)."""
    p = np.round(_products(model, seed), 4)
    rng = np.random.default_rng(seed)
    for c in rng.choice(len(CLASSES), size=4, replace=False).tolist():
        lo, hi = model.bounds[c]
        best = lo + int(np.argmax(p[lo:hi]))
        p[best] = np.float32(round(float(p[best]), 4) + STEP / 2)
    return p


def _plain_unsure(model: Any, low: np.ndarray, high: np.ndarray) -> list[int]:
    """The definition, exemplar by exemplar: unsure, and its class has fewer than TOP_K
    exemplars, or fewer than TOP_K surely at least its highest; or, among its class's
    exemplars with a detail, none surely above it. (A class's TOP_K-th highest low bound is
    the same for each of its exemplars: sorted once per class, not once per exemplar.)"""
    out = []
    kth: dict[int, float] = {}
    for i in np.flatnonzero(low != high).tolist():
        label = int(model.labels[i])
        lo, hi = model.bounds[label]
        detailed = model.detailed[label]
        if hi - lo > TOP_K and label not in kth:
            kth[label] = np.sort(low[lo:hi])[-TOP_K]
        if hi - lo <= TOP_K or kth[label] < high[i] or (
                i in detailed.tolist() and high[i] >= low[detailed].max()):
            out.append(i)
    return out


@pytest.mark.parametrize("slack", [certain.SLACK, 2e-5, 4e-5])
def test_the_relevant_unsure_similarities_are_the_plain_definitions(model: Any,
                                                                    slack: float) -> None:
    """Many unsure similarities (a wide slack: some among a class's best three, some with a
    detail), and random products: the same exemplars as the definition."""
    rng = np.random.default_rng(11)
    cases = [_products(model, seed) for seed in range(12)]
    cases += [rng.uniform(-0.2, 0.9, len(model.labels)).astype(np.float32) for _ in range(4)]
    for p in cases:
        low, high = certain.bounds_of(p, slack)
        assert certain.relevant_unsure(model, low, high) == _plain_unsure(model, low, high)


def test_the_readings_are_every_combinations_reading(model: Any) -> None:
    """Against trying every unsure similarity both ways and classifying each whole."""
    several = 0
    for seed in range(12):
        p = _several_unsure(model, seed)
        options = np.array([0.41235, 0.3], dtype=np.float32)
        found = certain.candidate_readings(model, F, p, options)
        low, high = certain.bounds_of(p, certain.SLACK)
        unsure = certain.relevant_unsure(model, low, high)
        assert found is not None and 1 <= len(unsure) <= 4
        several += len(found) > 1
        opt_low, opt_high = certain.bounds_of(options, 2 * certain.SLACK)
        expected = []
        for choice in itertools.product((False, True), repeat=len(unsure) + 1):
            sims = rounded(p)
            for i, up in zip(unsure, choice, strict=False):
                sims[i] = high[i] if up else low[i]
            option = float(opt_high[0] if choice[-1] else opt_low[0])
            got = classify_rounded(model, F, sims, (option, float(rounded(options)[1])))
            if got not in expected:
                expected.append(got)
        assert found[0] == classify_rounded(model, F, rounded(p),
                                            tuple(float(s) for s in rounded(options)))
        assert set(found) == set(expected) and len(found) == len(set(found))
    assert several >= 3


def test_a_read_computes_the_whole_banks_class_features_once(
        model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn with several possible readings: each reading varies a few classes' features,
    the others' are the read's own (main computed all of them again per reading: most of
    the certainty check's cost on the tuning turns' p95)."""
    whole: list[int] = []
    plain = meaning.class_features

    def counted(sims: np.ndarray, bounds: Any) -> np.ndarray:
        if len(bounds) == len(CLASSES):
            whole.append(1)
        return plain(sims, bounds)

    monkeypatch.setattr(meaning, "class_features", counted)
    monkeypatch.setattr(certain, "class_features", counted)
    for seed in range(12):
        p = _several_unsure(model, seed)
        whole.clear()
        found = certain.candidate_readings(model, F, p)
        if found is not None and len(found) > 2:
            assert len(whole) == 1
            return
    pytest.fail("no products with several readings")
