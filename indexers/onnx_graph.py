"""The sentence-transformers BERT encoder (Transformer -> mean Pooling -> Normalize) written as
an ONNX graph straight from its safetensors weights: no torch, no tracing.

The graph is the forward pass of `indexers.encoder.NumpyMiniLMEncoder` op for op (embeddings,
post-LayerNorm attention blocks, exact erf GELU, masked mean pooling, L2 normalisation), so its
vectors are the reference vectors up to float rounding; a test holds it to the
sentence-transformers output. Standard ops only (opset 17: LayerNormalization is native), laid
out the way ONNX Runtime's graph optimiser recognises (MatMul + bias Add, Add + LayerNorm,
Erf GELU), so it fuses them at session creation.

Pure: weights in, `onnx.ModelProto` out; writing it to disk is `indexers.onnx_encoder`'s job.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

OPSET = 17
PRODUCER = "helix.indexers.onnx_graph"
INPUT_IDS = "input_ids"
ATTENTION_MASK = "attention_mask"
TOKEN_TYPE_IDS = "token_type_ids"
OUTPUT = "sentence_embedding"
MASK_NEG = -1e9  # what the numpy encoder adds to masked attention scores
POOLING_MIN_TOKENS = 1e-9
NORMALIZE_MIN_NORM = 1e-12


@dataclass(frozen=True)
class BertShape:
    layers: int
    heads: int
    hidden: int
    eps: float
    normalize: bool


@dataclass
class _Graph:
    """Nodes and initializers collected in order (names are unique, so the graph is stable)."""

    weights: Mapping[str, np.ndarray]
    nodes: list[Any] = field(default_factory=list)
    inits: list[Any] = field(default_factory=list)
    count: int = 0

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def weight(self, name: str, transpose: bool = False) -> str:
        value = np.asarray(self.weights[name], dtype=np.float32)
        return self.const(name, value.T if transpose else value)

    def op(self, op_type: str, inputs: list[str], out: str | None = None, **attrs: Any) -> str:
        from onnx import helper

        self.count += 1
        name = out or f"{op_type.lower()}_{self.count}"
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=f"n{self.count}_{name}",
                                           **attrs))
        return name

    def dense(self, x: str, prefix: str) -> str:
        product = self.op("MatMul", [x, self.weight(f"{prefix}.weight", transpose=True)])
        return self.op("Add", [product, self.weight(f"{prefix}.bias")])

    def layer_norm(self, x: str, prefix: str, eps: float) -> str:
        return self.op("LayerNormalization",
                       [x, self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")],
                       axis=-1, epsilon=eps)


def _attention(g: _Graph, x: str, prefix: str, shape: BertShape, mask_bias: str) -> str:
    head_dim = shape.hidden // shape.heads
    split = g.const(f"{prefix}.split_shape",
                    np.array([0, 0, shape.heads, head_dim], dtype=np.int64))
    q = g.op("Transpose", [g.op("Reshape", [g.dense(x, f"{prefix}.self.query"), split])],
             perm=[0, 2, 1, 3])
    k = g.op("Transpose", [g.op("Reshape", [g.dense(x, f"{prefix}.self.key"), split])],
             perm=[0, 2, 3, 1])
    v = g.op("Transpose", [g.op("Reshape", [g.dense(x, f"{prefix}.self.value"), split])],
             perm=[0, 2, 1, 3])
    scale = g.const(f"{prefix}.scale", np.array(1.0 / math.sqrt(head_dim), dtype=np.float32))
    scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), mask_bias])
    probs = g.op("Softmax", [scores], axis=-1)
    context = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    merged = g.op("Reshape", [context, g.const(f"{prefix}.merge_shape",
                                               np.array([0, 0, shape.hidden], dtype=np.int64))])
    out = g.dense(merged, f"{prefix}.output.dense")
    return g.layer_norm(g.op("Add", [out, x]), f"{prefix}.output.LayerNorm", shape.eps)


def _gelu(g: _Graph, x: str, prefix: str) -> str:
    """0.5 * x * (1 + erf(x / sqrt(2))): the exact GELU BERT uses."""
    root2 = g.const(f"{prefix}.sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    one = g.const(f"{prefix}.one", np.array(1.0, dtype=np.float32))
    half = g.const(f"{prefix}.half", np.array(0.5, dtype=np.float32))
    erf = g.op("Erf", [g.op("Div", [x, root2])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [erf, one])]), half])


def _embeddings(g: _Graph, shape: BertShape) -> str:
    words = g.op("Gather", [g.weight("embeddings.word_embeddings.weight"), INPUT_IDS])
    # the first `length` rows of the position table (Shape start/end gives a 1-D [length])
    length = g.op("Shape", [INPUT_IDS], start=1, end=2)
    axis0 = g.const("axis0", np.array([0], dtype=np.int64))
    pos = g.op("Slice", [g.weight("embeddings.position_embeddings.weight"), axis0, length,
                         axis0])
    types = g.op("Gather", [g.weight("embeddings.token_type_embeddings.weight"), TOKEN_TYPE_IDS])
    summed = g.op("Add", [g.op("Add", [words, pos]), types])
    return g.layer_norm(summed, "embeddings.LayerNorm", shape.eps)


def _pool(g: _Graph, x: str, mask: str, shape: BertShape) -> str:
    mask3 = g.op("Unsqueeze", [mask, g.const("pool_axes", np.array([2], dtype=np.int64))])
    axis1 = g.const("axis1", np.array([1], dtype=np.int64))
    summed = g.op("ReduceSum", [g.op("Mul", [x, mask3]), axis1], keepdims=0)
    count = g.op("Max", [g.op("ReduceSum", [mask3, axis1], keepdims=0),
                         g.const("min_tokens", np.array(POOLING_MIN_TOKENS, dtype=np.float32))])
    pooled = g.op("Div", [summed, count], out=None if shape.normalize else OUTPUT)
    if not shape.normalize:
        return pooled
    norm = g.op("Max", [g.op("ReduceL2", [pooled], axes=[1], keepdims=1),
                        g.const("min_norm", np.array(NORMALIZE_MIN_NORM, dtype=np.float32))])
    return g.op("Div", [pooled, norm], out=OUTPUT)


def build_bert_model(weights: Mapping[str, np.ndarray], shape: BertShape) -> Any:
    """The whole encoder as an `onnx.ModelProto`: inputs input_ids / attention_mask /
    token_type_ids (int64, batch x length), output sentence_embedding (float32, batch x hidden)."""
    from onnx import TensorProto, checker, helper

    g = _Graph(weights)
    x = _embeddings(g, shape)
    mask = g.op("Cast", [ATTENTION_MASK], to=TensorProto.FLOAT)
    inverted = g.op("Sub", [g.const("mask_one", np.array(1.0, dtype=np.float32)), mask])
    bias = g.op("Unsqueeze", [g.op("Mul", [inverted, g.const(
        "mask_neg", np.array(MASK_NEG, dtype=np.float32))]),
        g.const("bias_axes", np.array([1, 2], dtype=np.int64))])
    for layer in range(shape.layers):
        prefix = f"encoder.layer.{layer}"
        x = _attention(g, x, f"{prefix}.attention", shape, bias)
        inner = _gelu(g, g.dense(x, f"{prefix}.intermediate.dense"), prefix)
        out = g.dense(inner, f"{prefix}.output.dense")
        x = g.layer_norm(g.op("Add", [out, x]), f"{prefix}.output.LayerNorm", shape.eps)
    _pool(g, x, mask, shape)
    dims = ["batch", "length"]
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, dims)
              for name in (INPUT_IDS, ATTENTION_MASK, TOKEN_TYPE_IDS)]
    output = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", shape.hidden])
    graph = helper.make_graph(g.nodes, "sentence_encoder", inputs, [output], initializer=g.inits)
    model = helper.make_model(graph, producer_name=PRODUCER,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # opset 17's IR version: loadable by every runtime that runs opset 17
    checker.check_model(model)
    return model
