"""A question naming a concept finds the document named for it, in a large repository, with and
without vectors (issue 13): the file name is the concept (`docs/knowledge/<concept>.md`), and
the repository also holds knowledge-tree nodes, guides and code that mention it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from controller.driver import run_controller
from controller.question import read_question
from helix.core.config import load_config
from helix.core.ports import FakeClock, FakeEmbedder
from indexers.build import ensure_index

ROOT = Path(__file__).resolve().parents[1]
FILES = 800


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_large_repo",
                                                  ROOT / "benchmarks" / "gen_large_repo.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("large") / "repo"
    gen = _generator()
    gen.write(out, gen.generate(out, FILES, 13))
    (out / ".git").mkdir()  # a repository root (no guard-rail prompt), git never run on it
    return out


@pytest.mark.parametrize("embed", [False, True], ids=["lexical", "with-vectors"])
def test_the_named_concept_document_comes_first(repo: Path, embed: bool, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    config = load_config(repo, flags={"index.embed_enabled": embed,
                                      "index.background_dense": False})
    embedder = FakeEmbedder() if embed else None
    index, _ = ensure_index(repo, config, index_dir=tmp_path / "idx", embedder=embedder,
                            query_embedder=embedder)
    concepts = json.loads((repo / "concepts.json").read_text(encoding="utf-8"))
    assert len(concepts) >= 20
    for concept, document in sorted(concepts.items()):
        question = f"what does {concept.replace('-', ' ')} mean in this repo?"
        env = run_controller(read_question(question, config.retrieval), index, config,
                             query_embedder=embedder, clock=FakeClock())
        assert env.evidence and env.evidence[0].path == document, (question, [
            e.path for e in env.evidence[:3]])
