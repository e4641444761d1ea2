"""A long-lived process reads a turn with ONNX Runtime only where that cannot change its route
(issue 32's warm cost): helix/session/certain.py (every reading the numpy encoder could make,
from vectors known up to float rounding), helix/session/warm.py (which processes are warm; the
route kept only when every such reading routes the same way; the bound checked per process).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.continuity.meaning import (
    CLASSES,
    FLAG_NAMES,
    Features,
    classify,
    classify_rounded,
    products,
    rounded,
)
from controller.continuity.router import route_turn as plain_route
from controller.continuity.state import initial_state
from controller.continuity.turn_plan import Reading
from helix.core.config import IndexSettings, load_config
from helix.core.ports import FakeEmbedder
from helix.session import certain, reader, warm
from indexers.encoder import default_model_path
from indexers.first_layers import layers_of

FLAGS = tuple(0.0 for _ in FLAG_NAMES)
F = Features(text="who calls it?", flags=FLAGS, rules="new_question")
STEP = 1e-4  # the classifier's rounding (meaning.ROUND decimals)


@pytest.fixture(scope="module")
def model() -> Any:
    return reader.shipped_model()


def _products(model: Any, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = model.vectors[int(rng.integers(len(model.vectors)))] + 0.2 * rng.standard_normal(
        model.vectors.shape[1])
    # on the rounding steps: half a step from any boundary, none unsure
    return np.round(products(model.vectors, (v / np.linalg.norm(v)).astype(np.float32)), 4)


def _on_boundary(p: np.ndarray, index: int) -> None:
    """Product `index` moved onto a rounding boundary (half a step above its rounded value)."""
    p[index] = np.float32(round(float(p[index]), 4) + STEP / 2)


def _best_of(model: Any, p: np.ndarray, meaning: str, n: int = 1) -> list[int]:
    lo, hi = model.bounds[CLASSES.index(meaning)]
    return [lo + int(i) for i in np.argsort(-p[lo:hi], kind="stable")[:n]]


def test_products_far_from_a_rounding_boundary_have_the_one_reading(model: Any) -> None:
    p = _products(model)
    found = certain.candidate_readings(model, F, p, slack=0.0)
    assert found == (classify_rounded(model, F, rounded(p), ()),)


def test_an_unsure_similarity_that_counts_is_read_both_ways(model: Any) -> None:
    p = _products(model)
    best = _best_of(model, p, "pick")[0]
    _on_boundary(p, best)
    low, high = certain.bounds_of(p, certain.SLACK)
    assert high[best] - low[best] == pytest.approx(STEP, abs=1e-7)
    assert certain.relevant_unsure(model, low, high) == [best]
    found = certain.candidate_readings(model, F, p)
    assert found is not None and found[0] == classify_rounded(model, F, rounded(p), ())
    for value in (low[best], high[best]):
        sims = rounded(p)
        sims[best] = value
        assert classify_rounded(model, F, sims, ()) in found


def test_an_unsure_similarity_below_its_class_best_three_does_not_count(model: Any) -> None:
    p = _products(model)
    worst = _best_of(model, -p, "recap")[0]  # the class's least similar exemplar
    _on_boundary(p, worst)
    low, high = certain.bounds_of(p, certain.SLACK)
    assert low[worst] != high[worst] and certain.relevant_unsure(model, low, high) == []
    assert certain.candidate_readings(model, F, p) == (classify_rounded(model, F, rounded(p),
                                                                        ()),)


def test_too_many_unsure_similarities_leave_the_turn_to_numpy(model: Any) -> None:
    p = _products(model)
    for meaning in CLASSES[:certain.MAX_UNSURE + 1]:
        _on_boundary(p, _best_of(model, p, meaning)[0])
    assert certain.candidate_readings(model, F, p) is None


def test_an_unsure_option_score_is_read_both_ways(model: Any) -> None:
    p = _products(model)
    options = np.array([0.5, 0.25], dtype=np.float32)
    _on_boundary(options, 0)
    found = certain.candidate_readings(model, F, p, options, slack=0.0)
    assert found is not None and len(found) == 1  # no slack: nothing unsure
    found = certain.candidate_readings(model, F, p, options)
    assert found is not None
    assert sorted(r.option_scores[0] for r in found) == pytest.approx([0.5, 0.5001])


def test_the_numpy_encoders_reading_is_among_onnx_runtimes(model: Any, shared_models: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    from indexers.onnx_query import shared_query_encoder

    monkeypatch.setenv("HELIX_MODELS_DIR", str(shared_models))
    path = default_model_path(IndexSettings())
    exact = reader.router_embedder()  # the shipped model's layers, and ONNX Runtime's of them
    ort = shared_query_encoder(path, layers=layers_of(exact.model_key))
    texts = ("open the second one", "who calls it?", "hmm what about scoring", "ok thanks",
             "cool, can you pull up the resonator.py one from that list?")
    # the bound the certainty rests on holds here with room (the process checks it too)
    assert warm.largest_difference(ort, exact, model, texts) <= certain.SLACK / 4
    for text in texts:
        f = Features(text=text, flags=FLAGS, rules="new_question")
        found = certain.candidate_readings(model, f, products(model.vectors,
                                                              ort.embed([text])[0]))
        assert found is not None and classify(model, f, exact.embed([text])[0]) in found


def test_outside_the_warm_router_an_unsure_reading_is_read_exactly(
        fresh_warm: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A caller that routes with the controller's route_turn directly cannot route each
    reading: the reader reads such a turn with numpy."""
    config = load_config(tmp_path, flags={"continuity.router": "meaning"})
    fresh_warm.setattr(certain, "candidate_readings",
                       lambda *a, **k: (_reading("recap"), _reading("pivot")))
    fresh_warm.setattr(reader, "warm_encoder", lambda ref, model: ref)
    read = reader.session_reader(config, tmp_path)
    assert read is not None
    f = Features(text="who calls it?", flags=FLAGS, rules="new_question")
    with warm.warm_reading():
        got = read(f)
    exact = classify(reader.shipped_model(), f, reader.router_embedder().embed([f.text])[0])
    assert got == exact


def _reading(meaning: str, confidence: float = 0.97) -> Reading:
    others = tuple((c, round((1 - confidence) / 2, 4)) for c in CLASSES if c != meaning)[:2]
    return Reading(meaning=meaning, confidence=confidence, alternatives=others)


def _unsure_reader(first: Reading, others: tuple[Reading, ...], exact: Reading,
                   calls: list[str]) -> Any:
    def exact_read(_f: Features) -> Reading:
        calls.append("exact")
        return exact

    def read(_f: Features) -> Reading:
        warm.note_read()
        calls.append("warm")
        warm.note_unsure(others, exact_read)
        return first
    return read


@pytest.mark.parametrize("text", ["who calls it?", "hmm, what about the scoring part"])
def test_a_route_every_possible_reading_agrees_on_is_kept(tmp_path: Path, text: str) -> None:
    settings = load_config(tmp_path, flags={"continuity.router": "meaning"}).continuity
    calls: list[str] = []
    first = _reading("recap")
    read = _unsure_reader(first, (_reading("recap", 0.9701),), _reading("pivot"), calls)
    plan = warm.route_turn(initial_state("s"), text, None, settings, reader=read)
    assert calls == ["warm"] and plan.reading == first
    assert plan == plain_route(initial_state("s"), text, None, settings,
                               reader=lambda _f: first)


def test_readings_that_route_differently_are_routed_with_the_numpy_reader(
        tmp_path: Path) -> None:
    settings = load_config(tmp_path, flags={"continuity.router": "meaning"}).continuity
    calls: list[str] = []
    exact = _reading("recap")
    read = _unsure_reader(_reading("recap"), (_reading("new_question"),), exact, calls)
    plan = warm.route_turn(initial_state("s"), "who calls it?", None, settings, reader=read)
    assert calls == ["warm", "exact"]
    assert plan == plain_route(initial_state("s"), "who calls it?", None, settings,
                               reader=lambda _f: exact)


class _Shifted:
    """The numpy encoder's vectors scaled by 1 + `by` (another runtime's rounding, or worse)."""

    def __init__(self, by: float) -> None:
        self._inner = reader.router_embedder()
        self._by = by

    @property
    def model_key(self) -> str:
        return self._inner.model_key

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._inner.embed(texts) * np.float32(1.0 + self._by)


@pytest.fixture
def fresh_warm(monkeypatch: pytest.MonkeyPatch) -> Any:
    warm.forget()
    yield monkeypatch
    warm.forget()


def test_only_a_warm_process_loads_the_onnx_encoder(fresh_warm: pytest.MonkeyPatch,
                                                    model: Any) -> None:
    import indexers.onnx_query as onnx_query

    made: list[str] = []

    def shared(path: str, home: Any = None, layers: int | None = None) -> Any:
        made.append(path)
        return _Shifted(0.0)

    fresh_warm.setattr(onnx_query, "shared_query_encoder", shared)
    reference = reader.router_embedder()
    assert warm.warm_encoder(reference, model) is None and made == []  # a one-shot process
    with warm.warm_reading():
        assert warm.is_warm()
        assert isinstance(warm.warm_encoder(reference, model), _Shifted)
        assert isinstance(warm.warm_encoder(reference, model), _Shifted)
    assert not warm.is_warm() and len(made) == 1  # loaded and checked once per process


def test_an_encoder_further_from_numpy_than_the_bound_is_not_trusted(
        fresh_warm: pytest.MonkeyPatch, model: Any) -> None:
    import indexers.onnx_query as onnx_query

    fresh_warm.setattr(onnx_query, "shared_query_encoder",
                       lambda path, home=None, layers=None: _Shifted(2 * certain.SLACK))
    with warm.warm_reading():
        assert warm.warm_encoder(reader.router_embedder(), model) is None


def test_option_vectors_are_kept_per_runtime() -> None:
    class Other(FakeEmbedder):
        def embed(self, texts: Any) -> np.ndarray:
            return -super().embed(texts)

    a, b = FakeEmbedder(), Other()
    assert a.model_key == b.model_key
    texts = ["the tokenizer", "the optics cavity"]
    assert np.array_equal(reader.option_vectors(a, texts), -reader.option_vectors(b, texts))


def test_the_eval_runners_read_warm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import evals.heldapart as heldapart
    from evals.runner import Runner

    seen: list[bool] = []

    def session(_session: Any, _run: Any) -> list[dict[str, Any]]:
        seen.append(warm.is_warm())
        return []

    monkeypatch.setattr(heldapart, "run_session", session)
    monkeypatch.setattr(heldapart, "session_runner", lambda root, config: None)
    path = tmp_path / "one.jsonl"
    path.write_text('{"id": "s", "turns": [{"text": "hi", "expect": {"transition": "T0"}}]}\n',
                    encoding="utf-8")
    assert list(heldapart.run_file(path)) == [] and seen == [True]
    monkeypatch.setattr(Runner, "run_suite", lambda self, suite: seen.append(warm.is_warm()))
    with pytest.raises(Exception):  # noqa: B017 (the fake suites are no results)
        Runner().run(["x"])  # type: ignore[list-item]
    assert seen == [True, True] and not warm.is_warm()


def test_chat_reads_warm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from click.testing import CliRunner

    import helix.cli.chat_cmd as chat_cmd

    seen: list[bool] = []
    monkeypatch.setattr(chat_cmd, "_loop", lambda *a, **k: seen.append(warm.is_warm()))
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    result = CliRunner().invoke(chat_cmd.chat, ["--repo", str(tmp_path)], input="/quit\n")
    assert result.exit_code == 0, result.output
    assert seen == [True] and not warm.is_warm()
