"""The learned swap's I/O half: the model, read once from its manifest (`data/span_swap/`,
pinned by `retrieval.file_defs.swap_model_digest`). The columns and the swap are pure
(`controller.span_swap`). Off (an empty digest): the evidence keeps its order.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller import span_swap
from controller.evidence import Candidate
from controller.learned_rank import TreeModel, parse_model, read_pinned_model
from helix.core.errors import RankerModelError
from helix.core.policy import FileDefsPolicy

MANIFEST = Path(__file__).resolve().parent.parent / "data" / "span_swap" / "manifest.json"
MAX_BYTES = 8 << 20


@dataclass(frozen=True)
class SwapModel:
    model: TreeModel
    margin: float  # a later item takes a repeat's place when it scores more than this above it
    swaps: int  # at most this many trades


_LOADED: dict[str, SwapModel] = {}
_LOCK = threading.Lock()


def _fields(manifest: dict[str, Any], path: Path) -> tuple[float, int]:
    margin, swaps = manifest.get("margin"), manifest.get("swaps")
    if not isinstance(margin, (int, float)) or isinstance(margin, bool) \
            or not isinstance(swaps, int) or isinstance(swaps, bool):
        raise RankerModelError(f"the span swap model manifest {path} is malformed")
    return float(margin), swaps


def load(pinned: str, path: Path = MANIFEST) -> SwapModel:
    """The shipped swap model whose manifest has digest `pinned` (read once per process);
    RankerModelError (one line) when it cannot be used."""
    cached = _LOADED.get(pinned)
    if cached is not None:
        return cached
    manifest, text = read_pinned_model(path, pinned, "span swap model",
                                       "retrieval.file_defs.swap_model_digest", MAX_BYTES)
    margin, swaps = _fields(manifest, path)
    loaded = SwapModel(model=parse_model(text, span_swap.FEATURES), margin=margin, swaps=swaps)
    with _LOCK:
        _LOADED[pinned] = loaded
    return loaded


def apply(question: frozenset[str], ranked: Sequence[Candidate], limit: int,
          policy: FileDefsPolicy) -> list[Candidate]:
    """`ranked` with the model's trades made (unchanged when no model is pinned or no item
    of the first five repeats a file, or no later item is a definition of theirs)."""
    if not policy.swap_model_digest:
        return list(ranked)
    items = [(c.chunk, tuple(r.code for r in c.reasons)) for c in ranked]
    held, later = span_swap.slots(items, limit)
    if not held or not later:
        return list(ranked)
    swap = load(policy.swap_model_digest)
    signals = span_swap.signals_of(
        [c.score for c in ranked],
        [[(r.channel, r.rank) for r in c.reasons if r.code == "rank"] for c in ranked])
    scores = swap.model.scores(span_swap.rows(question, items, [*held, *later], policy,
                                              signals))
    order = span_swap.swap(items, held, later, scores, swap.margin, swap.swaps)
    return [ranked[i] for i in order]
