"""The sentence model's first layers as an encoder of their own: the meaning router's.

    FirstLayersEncoder(model_path, layers)     the numpy forward pass of the first `layers`
                                               transformer layers, mean pooled and normalized
                                               like the whole model's
    shared_first_layers_encoder(path, layers)  one per model, layer count and process
    first_layers_key(key, layers)              their vectors' key; layers_of(key) the count

A session turn's reading needs a sentence's kind (a pick, a "who calls it", a narrowing), which
the model's middle layers keep better than its last ones, trained for topical similarity: on
the training writers' follow-ups read leave-one-writer-out by their nearest exemplars (the top
3 per class, every other writer's turns and the hand-written exemplars as the bank), the first
4 layers were right for 0.822 of the turns, 3 for 0.810, 5 for 0.798 and all 6 for 0.711; and
the encoder's CPU falls with the layers (3: half the whole model's), in both encoders (this
one in a cold process, ONNX Runtime's export of the same layers in a warm one,
`indexers.onnx_query`: the same fp32 math, so their products agree within the bound
`helix.session.certain` rests on). Its key is the whole
model's with the layer count: an embedding cache never mixes the two, and the index and its
queries keep the whole model (`indexers.encoder.query_embedder`). The router reads with the
layers its shipped model's key names (`helix.session.reader.router_embedder`): a model trained
on the whole model's vectors is read with the whole model (the trainer's `ENCODER_LAYERS`,
whole for now: `evals.router_train` says why).
"""

from __future__ import annotations

import functools

from helix.core.errors import UnknownModelError
from indexers.encoder import NumpyMiniLMEncoder

FIRST_LAYERS = "+first-layers:"


def first_layers_key(key: str, layers: int | None) -> str:
    """The key of a model's vectors from its first `layers` layers (None: the whole model's)."""
    return key if layers is None else f"{key}{FIRST_LAYERS}{layers}"


def layers_of(key: str) -> int | None:
    """The layer count a `first_layers_key` names; None for a whole model's key."""
    _, cut, layers = key.partition(FIRST_LAYERS)
    return int(layers) if cut and layers.isdigit() else None


class FirstLayersEncoder(NumpyMiniLMEncoder):
    """`NumpyMiniLMEncoder` through the first `layers` transformer layers only."""

    def __init__(self, model_path: str, layers: int) -> None:
        super().__init__(model_path)
        if not 1 <= layers <= self._layers:
            raise UnknownModelError(
                f"embedding model {model_path} has {self._layers} layers, not {layers}")
        self._layers = layers
        self._key = first_layers_key(self._key, layers)


@functools.lru_cache(maxsize=4)
def shared_first_layers_encoder(path: str, layers: int) -> FirstLayersEncoder:
    """One loaded model per path, layer count and process (`shared_numpy_encoder`'s)."""
    return FirstLayersEncoder(path, layers)
