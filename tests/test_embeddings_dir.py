"""Where the embedding cache is kept: `$HELIX_HOME/embeddings`, or `$HELIX_EMBEDDINGS_DIR` when
the user sets it (one cache of vectors, keyed by model and text, shared by several homes; the
modules of tests/conftest.py's `shared_embeddings` share one that way)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helix.core.config import HelixConfig, load_config
from helix.core.errors import ConfigError
from helix.core.home import embeddings_dir
from helix.core.paths import embedding_cache_dir
from helix.core.ports import FakeEmbedder
from indexers.build import build_index
from tests.index_fixtures import write_repo


def test_the_cache_is_the_homes_unless_the_user_names_one(
        helix_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HELIX_EMBEDDINGS_DIR", raising=False)
    assert embeddings_dir() is None
    assert embedding_cache_dir() == helix_home / "embeddings"
    monkeypatch.setenv("HELIX_EMBEDDINGS_DIR", str(tmp_path / "vectors"))
    assert embedding_cache_dir() == tmp_path / "vectors"
    load_config()  # not a setting: the loader ignores it


def test_a_cache_directory_that_cannot_be_used_is_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_EMBEDDINGS_DIR", "~no-such-user-here/vectors")
    with pytest.raises(ConfigError, match="HELIX_EMBEDDINGS_DIR"):
        embedding_cache_dir()


def test_a_second_home_reads_the_vectors_the_first_one_computed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_repo(tmp_path / "repo")
    monkeypatch.setenv("HELIX_EMBEDDINGS_DIR", str(tmp_path / "vectors"))
    reports = []
    for home in ("first", "second"):
        monkeypatch.setenv("HELIX_HOME", str(tmp_path / home))
        embedder = FakeEmbedder()
        reports.append(build_index(repo, HelixConfig(), embedder=embedder))
        assert embedder.texts_embedded == reports[-1].embeddings["computed"]
    first, second = reports
    assert first.embeddings["computed"] == first.embeddings["total"] > 0
    assert second.embeddings["computed"] == 0
    assert second.embeddings["cached"] == first.embeddings["total"]
    assert (tmp_path / "vectors").is_dir() and not (tmp_path / "first" / "embeddings").exists()
