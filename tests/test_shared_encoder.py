"""A process loads the numpy encoder once: the builds that embed a few texts (or none, every
vector cached) use the one its queries use (`indexers.encoder.shared_numpy_encoder`), not a
new one each (~70 ms of CPU to load the tokenizer and map the weights)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helix.core.config import HelixConfig, IndexSettings
from indexers import encoder
from indexers.build import build_index
from tests.index_fixtures import write_repo


@pytest.mark.usefixtures("shared_embeddings")
def test_two_builds_and_a_query_load_the_numpy_encoder_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str] = []
    real_init = encoder.NumpyMiniLMEncoder.__init__

    def init(self: encoder.NumpyMiniLMEncoder, model_path: str) -> None:
        loaded.append(model_path)
        real_init(self, model_path)

    monkeypatch.setattr(encoder.NumpyMiniLMEncoder, "__init__", init)
    encoder.shared_numpy_encoder.cache_clear()
    repo = write_repo(tmp_path / "repo")
    config = HelixConfig(index=IndexSettings(background_dense=False))
    first = build_index(repo, config, index_dir=tmp_path / "one")
    second = build_index(repo, config, index_dir=tmp_path / "two")  # every vector cached
    assert first.embeddings["computed"] == first.embeddings["total"] > 0
    assert second.embeddings["computed"] == 0 and second.embeddings["cached"] > 0
    query = encoder.query_embedder(config.index)
    assert len(loaded) == 1 and query is encoder.shared_numpy_encoder(loaded[0])
    encoder.shared_numpy_encoder.cache_clear()
