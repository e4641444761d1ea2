"""The long-lived processes' turn encoder (indexers/onnx_query.py, routercost11's): ONNX Runtime
on the build's fp32 export, its graph optimized once beside the export with the weights in a
mapped side file, one short text per run on one thread that does not spin, tokenized as the
numpy encoder tokenizes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from helix.core.config import IndexSettings
from helix.core.errors import HelixError
from indexers import onnx_query
from indexers.encoder import NumpyMiniLMEncoder, default_model_path, model_key_for
from indexers.onnx_encoder import VARIANT_FP32, OnnxEncoder, model_file
from indexers.onnx_query import (
    DATA_SUFFIX,
    QueryOnnxEncoder,
    ensure_optimized,
    optimized_file,
)

MODEL_PATH = default_model_path(IndexSettings())
MODEL_DIR = Path(MODEL_PATH)
TEXTS = ["open the second one", "who calls it?", "hmm what about scoring",
         "cool, can you pull up the resonator.py one from that list?", "x", "",
         "Ünïcödé — naïve café, 日本語", "long " + " ".join(f"token{i}" for i in range(400))]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, shared_models: Path) -> Path:
    """A home whose models are the test session's (one export and one optimization for the
    session: the warm reader's tests load the same files)."""
    home = tmp_path_factory.mktemp("query_home")
    (home / "models").symlink_to(shared_models, target_is_directory=True)
    ensure_optimized(MODEL_DIR, home)
    return home


def _seed_export(home: Path, into: Path) -> Path:
    """`into` gets the module's fp32 export (a copy: no second export)."""
    source = model_file(MODEL_DIR, VARIANT_FP32, home)
    (into / "models").mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(source, into / "models" / source.name))


def test_vectors_are_the_build_encoders_to_the_bit_and_the_references_to_five_places(
        home: Path) -> None:
    query = QueryOnnxEncoder(MODEL_PATH, home)
    build = OnnxEncoder(MODEL_PATH, home=home)
    vectors = query.embed(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), 384)
    assert np.array_equal(vectors, build.embed(TEXTS))
    reference = NumpyMiniLMEncoder(MODEL_PATH).embed(TEXTS)
    assert float(np.min((vectors * reference).sum(axis=1))) >= 0.9999
    assert query.model_key == build.model_key == model_key_for(MODEL_DIR)


def test_a_plain_text_is_tokenized_without_tokenizers(home: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy encoder's plain-Python WordPiece reads the texts it reads exactly (the same
    ids as `tokenizers`); `tokenizers` is built only for another text."""
    query = QueryOnnxEncoder(MODEL_PATH, home)
    assert query._tokens.ids(["open the second one"])[0][0] == NumpyMiniLMEncoder(
        MODEL_PATH)._tokens.ids(["open the second one"])[0][0]
    assert query._tokens.built is None
    assert query._tokens.ids([TEXTS[6]])[0][0] == NumpyMiniLMEncoder(MODEL_PATH)._tokens.ids(
        [TEXTS[6]])[0][0]
    assert query._tokens.built is not None


def test_each_text_is_run_alone_and_a_repeated_one_is_served_from_memory(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    query = QueryOnnxEncoder(MODEL_PATH, home)
    alone = np.stack([query.embed([t])[0] for t in TEXTS[:3]])
    fresh = QueryOnnxEncoder(MODEL_PATH, home)
    runs: list[str] = []
    run = fresh._run

    def counted(text: str) -> np.ndarray:
        runs.append(text)
        return run(text)

    monkeypatch.setattr(fresh, "_run", counted)
    together = fresh.embed([TEXTS[0], TEXTS[1], TEXTS[0], TEXTS[2]])
    assert np.array_equal(together[[0, 1, 3]], alone) and np.array_equal(together[2], alone[0])
    assert runs == TEXTS[:3]
    together[0] += 1.0  # the caller's copy, not the remembered vector
    assert np.array_equal(fresh.embed([TEXTS[0]])[0], alone[0])


def test_the_optimized_graph_sits_beside_the_export_its_weights_in_a_side_file(
        home: Path) -> None:
    graph = optimized_file(MODEL_DIR, home)
    export = model_file(MODEL_DIR, VARIANT_FP32, home)
    data = graph.with_suffix(DATA_SUFFIX)
    assert graph.parent == export.parent == home / "models"
    assert graph.name.startswith(export.stem + "-opt-ort") and export.is_file()
    # the graph alone is small (a start parses it); the weights are mapped from their own file
    assert graph.stat().st_size < 1 << 20 < (50 << 20) < data.stat().st_size
    names = {p.name for p in (home / "models").iterdir()}
    assert {export.name, graph.name, data.name} <= names
    assert not [n for n in names if n.startswith(f".{graph.stem}.")]  # nothing half-written


def test_a_second_start_neither_exports_nor_optimizes(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = sorted((home / "models").iterdir())
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in files}

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_query, "ensure_model", refuse)
    assert QueryOnnxEncoder(MODEL_PATH, home).embed(["x"]).shape == (1, 384)
    assert {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in files} == before


def test_the_session_runs_on_one_thread_without_spinning_and_without_reoptimizing(
        home: Path) -> None:
    ort = onnx_query.import_onnxruntime()
    options = QueryOnnxEncoder(MODEL_PATH, home)._session.get_session_options()
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 1
    assert options.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL


def test_an_optimization_that_fails_leaves_no_graph_and_no_work_directory(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _seed_export(home, tmp_path)
    real = os.replace

    def fail_on_graph(src: object, dst: object) -> None:
        if str(dst).endswith(".onnx"):
            raise OSError("disk full")
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(onnx_query.os, "replace", fail_on_graph)
    with pytest.raises(HelixError, match="cannot write the optimized embedding model"):
        ensure_optimized(MODEL_DIR, tmp_path)
    assert not optimized_file(MODEL_DIR, tmp_path).exists()
    assert not [p for p in (tmp_path / "models").iterdir() if p.is_dir()]
    monkeypatch.setattr(onnx_query.os, "replace", real)
    assert ensure_optimized(MODEL_DIR, tmp_path).is_file()  # the next start makes it whole


def test_an_export_missing_from_the_home_is_made_first(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Path] = []

    def export(model_path: Path, variant: str, home: Path | None = None,
               layers: int | None = None) -> Path:
        made.append(model_file(model_path, variant, home, layers=layers))
        raise HelixError("stop here")

    monkeypatch.setattr(onnx_query, "ensure_model", export)
    with pytest.raises(HelixError, match="stop here"):
        ensure_optimized(MODEL_DIR, tmp_path)
    assert made == [model_file(MODEL_DIR, VARIANT_FP32, tmp_path)]


def test_the_optimized_graph_follows_where_exported_models_are_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_MODELS_DIR", str(tmp_path / "shared"))
    graph = optimized_file(MODEL_DIR)
    assert graph.parent == model_file(MODEL_DIR, VARIANT_FP32).parent == tmp_path / "shared"
    monkeypatch.delenv("HELIX_MODELS_DIR")
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    assert optimized_file(MODEL_DIR).parent == (tmp_path / "home" / "models").resolve()
