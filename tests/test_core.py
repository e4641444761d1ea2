from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helix.core.config import HelixConfig, load_config
from helix.core.errors import ConfigError
from helix.core.hashing import canonical_json, digest, hash_obj
from helix.core.ports import FakeEmbedder

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


def test_hash_is_pinned() -> None:
    # If this changes, every stored id and item hash changes: bump schema versions on purpose.
    assert hash_obj({"b": [1, 2], "a": "é"}) == (
        "sha256:9cfb1f938a87f2b8f3b8cc429c7a09116d54f048322742d4c23d4767b85f85da"
    )
    assert canonical_json({"b": [1, 2], "a": "é"}) == '{"a":"é","b":[1,2]}'
    assert digest("") == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


@given(json_values)
def test_canonical_json_is_order_independent(value: object) -> None:
    if isinstance(value, dict):
        reordered = dict(reversed(list(value.items())))
        assert canonical_json(reordered) == canonical_json(value)
        assert hash_obj(reordered) == hash_obj(value)


def test_hash_obj_is_pinned_to_a_literal_value() -> None:
    # canonical JSON (sorted keys, compact, UTF-8 kept) hashed with SHA-256, tagged: any change
    # of the canonical form or the algorithm changes every id and must show here
    assert hash_obj({"b": [1, 2], "a": "é"}) == (
        "sha256:9cfb1f938a87f2b8f3b8cc429c7a09116d54f048322742d4c23d4767b85f85da")


def test_config_precedence(tmp_path: Path, helix_home: Path) -> None:
    (helix_home / "config.toml").write_text('[synthesis]\nmodel = "user-model"\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    assert load_config(repo, env={"HELIX_HOME": str(helix_home)}).synthesis.model == "user-model"
    # a repository may not choose the model (tests/test_config_trust.py): its value is ignored
    (repo / ".helix.toml").write_text('[helix.synthesis]\nmodel = "repo-model"\n'
                                      '[helix.retrieval]\nmax_steps = 3\n')
    env = {"HELIX_HOME": str(helix_home)}
    assert load_config(repo, env=env).synthesis.model == "user-model"
    assert load_config(repo, env=env).retrieval.max_steps == 3  # over the default (lower)
    env["HELIX_MODEL"] = "env-model"
    assert load_config(repo, env=env).synthesis.model == "env-model"
    flags = {"synthesis.model": "flag-model"}
    assert load_config(repo, flags=flags, env=env).synthesis.model == "flag-model"
    env["HELIX_RETRIEVAL__MAX_STEPS"] = "7"
    assert load_config(repo, env=env).retrieval.max_steps == 7


def test_config_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"retrieval\.max_steps"):
        load_config(tmp_path, env={"HELIX_HOME": str(tmp_path), "HELIX_RETRIEVAL__MAX_STEPS": "x"})
    with pytest.raises(ConfigError, match="unknown setting"):
        load_config(tmp_path, flags={"nosuch.key": 1}, env={"HELIX_HOME": str(tmp_path)})


def test_config_hash_tracks_retrieval_not_model() -> None:
    base = HelixConfig()
    other_model = load_config(None, flags={"synthesis.model": "x"}, env={"HELIX_HOME": "/tmp/h"})
    assert base.evidence_hash == other_model.evidence_hash
    other_k = load_config(None, flags={"retrieval.rrf_k": 10}, env={"HELIX_HOME": "/tmp/h"})
    assert base.evidence_hash != other_k.evidence_hash


def test_fake_embedder_is_deterministic_and_normalised() -> None:
    import numpy as np

    vecs = FakeEmbedder().embed(["retry policy", "retry policy", "graph edges"])
    assert np.allclose(vecs[0], vecs[1])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)


def test_tuple_settings_from_env_take_one_or_many_values() -> None:
    env = {"HELIX_HOME": "/tmp/h", "HELIX_TREES": "docs/tree.json"}
    assert load_config(None, env=env).index.trees == ("docs/tree.json",)
    env["HELIX_TREES"] = "a.json, b/*.json"
    assert load_config(None, env=env).index.trees == ("a.json", "b/*.json")
