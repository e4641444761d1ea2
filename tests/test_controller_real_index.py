"""The controller over the real index (`indexers.build.ensure_index`) with a FakeEmbedder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from controller_helpers import FIXTURES

from controller.driver import run_controller
from controller.question import read_question
from helix.core.config import load_config
from helix.core.envelope import Envelope
from helix.core.ports import FakeClock, FakeEmbedder
from indexers.build import ensure_index


def _ask(root: Path, question: str, **kwargs: object) -> Envelope:
    config = load_config(root)
    embedder = FakeEmbedder()
    index, _ = ensure_index(root, config, embedder=embedder, query_embedder=embedder)
    return run_controller(read_question(question, config.retrieval, **kwargs),  # type: ignore[arg-type]
                          index, config, query_embedder=embedder, clock=FakeClock())


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("real") / "matrix_repo"
    shutil.copytree(FIXTURES / "matrix_repo", root)
    return root


@pytest.fixture(scope="module")
def dominant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("real") / "matrix_repo_dominant"
    shutil.copytree(FIXTURES / "matrix_repo_dominant", root)
    return root


@pytest.mark.parametrize(("question", "expected"), [
    ("Define FINESSE_TARGET in this repo.", "lumen/constants.py"),
    ("Where is the denoise stage implemented?", "lumen/pipeline/stages.py"),
    ("Explain the ingest pipeline.", "docs/pipeline.md"),
    ("What does the calibration guide say about drift?", "docs/calibration-guide.md"),
    ("Is the mirror radiation pressure in pascals?", "docs/units.md"),
])
def test_matrix_on_real_index(matrix: Path, question: str, expected: str) -> None:
    env = _ask(matrix, question)
    assert env.llm_steps == 0 and env.controller_steps
    assert expected in [e.path for e in env.evidence[:10]]
    coverages = [s.coverage for s in env.controller_steps]
    assert coverages == sorted(coverages)


def test_split_and_dominance_on_real_index(matrix: Path, dominant: Path) -> None:
    split = _ask(matrix, "What is a cavity?")
    assert split.stop_reason == "dominance_split"
    assert split.clarify is not None and len(split.clarify.options) == 2
    assert all(o.evidence for o in split.clarify.options)
    answered = _ask(dominant, "What is a cavity?")
    assert answered.clarify is None and answered.items.intent.sense


def test_same_hashes_on_a_second_run(matrix: Path) -> None:
    q = "How does the phase lock relate to the optical cavity?"
    assert _ask(matrix, q).item_hashes == _ask(matrix, q).item_hashes


def test_tree_walk_binds_on_real_graph(matrix: Path) -> None:
    env = _ask(matrix, "Explain the ingest pipeline.")
    assert env.tree_walk.binding_rate > 0
