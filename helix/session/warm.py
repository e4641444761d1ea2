"""The turn encoder of a long-lived process: ONNX Runtime where a router is warm, numpy elsewhere.

    with warm_reading(): ...                  a chat, a server, an eval run: turns read while it
                                              is open may use ONNX Runtime
    warm_encoder(reference, model) -> Embedder | None
    route_turn(...)                           the router's `route_turn`, sure of its route

ONNX Runtime takes a turn's message in about half the numpy encoder's CPU time, but importing it
and opening its session costs a cold process more than the whole numpy forward pass
(benchmarks/router_cost.py): a one-shot `helix ask --session` keeps the numpy encoder, and only
the processes that read many turns (`helix chat`, `helix serve`, `helix mcp`, the eval runner)
open `warm_reading`. Nothing is imported before the first turn read inside it.

The two encoders' vectors agree up to float rounding, not to the bit, so ONNX Runtime's vectors
are trusted only as far as they are certain (`helix.session.certain`): where every reading the
numpy encoder could make is the same, it is the reading; where a similarity's rounding could
give another reading (a probability's 4th decimal, mostly), the turn is routed with each
(`route_turn`, a fraction of a millisecond each) and the route kept only when all of them route
it the same way, else the turn is read and routed with numpy. So a route never depends on the
runtime; a kept reading's probabilities are ONNX Runtime's (within 1e-4 of numpy's). Before
the process trusts the encoder at all, it checks the bound the certainty rests on
(`certain.SLACK`) on `PROBES` with the installed onnxruntime and BLAS: a machine whose kernels
differ more reads with numpy.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence

import numpy as np

from controller.continuity.focus import TurnSummary
from controller.continuity.meaning import Features, MeaningModel, Reader, products
from controller.continuity.state import ContinuityState
from controller.continuity.turn_plan import Reading, TurnPlan
from helix.core.config import ContinuitySettings, IndexSettings
from helix.core.errors import HelixError
from helix.core.ports import Embedder
from helix.session.certain import SLACK

# texts of several lengths and kinds whose products must agree within SLACK / CHECK_MARGIN
PROBES = ("open the second one", "who calls it?", "ok", "hmm what about the scoring part",
          "cool, can you pull up the resonator.py one from that list and explain it?")
CHECK_MARGIN = 4.0
_LOCK = threading.Lock()
_OPEN = [0]  # warm_reading contexts open in the process
_LOADED: dict[str, Embedder | None] = {}
_ROUTING = threading.local()  # per route_turn: the reader's calls and its unsure readings


@contextlib.contextmanager
def warm_reading() -> Iterator[None]:
    """Turns read while this is open (in any thread) may use the warm encoder."""
    with _LOCK:
        _OPEN[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _OPEN[0] -= 1


def is_warm() -> bool:
    return _OPEN[0] > 0


def warm_encoder(reference: Embedder, model: MeaningModel) -> Embedder | None:
    """ONNX Runtime's turn encoder inside `warm_reading` when it is installed, its optimized
    graph can be had and it agrees with `reference` (the numpy encoder) within the bound on
    this machine; else None. Loaded and checked once per process."""
    if not is_warm():
        return None
    with _LOCK:
        if "encoder" not in _LOADED:
            _LOADED["encoder"] = _load(reference, model)
        return _LOADED["encoder"]


def loaded_encoder() -> Embedder | None:
    """The warm encoder inside `warm_reading` once an earlier read of this process loaded it
    and found it trustworthy; else None (nothing is loaded here)."""
    if not is_warm():
        return None
    with _LOCK:
        return _LOADED.get("encoder")


def _load(reference: Embedder, model: MeaningModel) -> Embedder | None:
    from indexers.onnx_encoder import onnx_available

    if not onnx_available():
        return None
    from indexers.encoder import default_model_path
    from indexers.first_layers import layers_of
    from indexers.onnx_query import shared_query_encoder

    try:  # beside the exported models ($HELIX_MODELS_DIR, else $HELIX_HOME/models)
        encoder = shared_query_encoder(default_model_path(IndexSettings()),
                                       layers=layers_of(reference.model_key))
    except (HelixError, OSError, ImportError):
        return None
    if encoder.model_key != reference.model_key or largest_difference(
            encoder, reference, model, PROBES) > SLACK / CHECK_MARGIN:
        return None
    return encoder


def largest_difference(encoder: Embedder, reference: Embedder, model: MeaningModel,
                       texts: tuple[str, ...]) -> float:
    """The largest difference of the two encoders' products with the model's exemplars."""
    worst = 0.0
    for text in texts:
        ours = products(model.vectors, encoder.embed([text])[0]).astype(np.float64)
        theirs = products(model.vectors, reference.embed([text])[0]).astype(np.float64)
        worst = max(worst, float(np.abs(ours - theirs).max()))
    return worst


def forget() -> None:
    """Load again at the next warm read (tests)."""
    with _LOCK:
        _LOADED.clear()


def note_unsure(others: tuple[Reading, ...], exact: Reader) -> bool:
    """The reader's other possible readings of this turn, and the reader that is exact (numpy):
    `route_turn` routes with each. False outside `route_turn` (nobody would: read exactly)."""
    seen = getattr(_ROUTING, "unsure", None)
    if seen is None:
        return False
    seen.append((others, exact))
    return True


def note_read() -> None:
    _ROUTING.calls = getattr(_ROUTING, "calls", 0) + 1


def route_turn(state: ContinuityState, text: str, reply_to: int | None,
               settings: ContinuitySettings, *, turns: Sequence[TurnSummary] = (),
               now_ms: int = 0, reader: Reader | None = None) -> TurnPlan:
    """`controller.continuity.router.route_turn`; when the reader was unsure of its reading
    (`note_unsure`), the turn is routed again with each reading it could be, and the plan kept
    only when they plan the same (but for the reading's numbers); else routed with the exact
    reader."""
    from controller.continuity.router import route_turn as route

    _ROUTING.unsure, _ROUTING.calls = [], 0
    try:
        plan = route(state, text, reply_to, settings, turns=turns, now_ms=now_ms, reader=reader)
        unsure, calls = _ROUTING.unsure, _ROUTING.calls
    finally:
        _ROUTING.unsure = None
    if not unsure:
        return plan
    exact = unsure[0][1]
    if calls == 1:
        same = _without_reading(plan)
        if all(_without_reading(route(state, text, reply_to, settings, turns=turns,
                                      now_ms=now_ms, reader=_fixed(r))) == same
               for r in unsure[0][0]):
            return plan
    return route(state, text, reply_to, settings, turns=turns, now_ms=now_ms, reader=exact)


def _fixed(reading: Reading) -> Reader:
    def read(_f: Features) -> Reading:
        return reading
    return read


def _without_reading(plan: TurnPlan) -> str:
    return plan.model_copy(update={"reading": None}).model_dump_json()
