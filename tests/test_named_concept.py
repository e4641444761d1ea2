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
from helix.core.config import HelixConfig, load_config
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


@pytest.fixture(scope="module")
def indexes(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    """The lexical index built from nothing, and the index with vectors as a user gets it by
    turning embeddings on afterwards: a copy of the lexical one refreshed under the new
    settings (its parsed files reused, the vectors added): one parse of the 800 files, not
    two."""
    import shutil

    work = tmp_path_factory.mktemp("named_concept")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("HELIX_HOME", str(work / "home"))
        ensure_index(repo, _config(repo, False), index_dir=work / "lexical")
        shutil.copytree(work / "lexical", work / "vectors")
        _, report = ensure_index(repo, _config(repo, True), index_dir=work / "vectors",
                                 embedder=FakeEmbedder(), query_embedder=FakeEmbedder())
    assert report.files_parsed == 0 and report.embeddings["computed"] > 0, report
    return {False: work / "lexical", True: work / "vectors"}


def _config(repo: Path, embed: bool) -> HelixConfig:
    return load_config(repo, flags={"index.embed_enabled": embed,
                                    "index.background_dense": False})


@pytest.mark.parametrize("embed", [False, True], ids=["lexical", "with-vectors"])
def test_the_named_concept_document_comes_first(repo: Path, embed: bool, tmp_path: Path,
                                                indexes: dict[bool, Path],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    config = _config(repo, embed)
    embedder = FakeEmbedder() if embed else None
    index, report = ensure_index(repo, config, index_dir=indexes[embed], embedder=embedder,
                                 query_embedder=embedder)
    assert report.noop, report  # the module's index, current under this configuration
    concepts = json.loads((repo / "concepts.json").read_text(encoding="utf-8"))
    assert len(concepts) >= 20
    for concept, document in sorted(concepts.items()):
        question = f"what does {concept.replace('-', ' ')} mean in this repo?"
        env = run_controller(read_question(question, config.retrieval), index, config,
                             query_embedder=embedder, clock=FakeClock())
        assert env.evidence and env.evidence[0].path == document, (question, [
            e.path for e in env.evidence[:3]])
