"""The dense adapter wired into retrieval (`retrieval.dense_adapter`, `controller.dense_adapter`):
off, the dense channel is today's; on, the question's vector goes through I + U V^T before the
search and the hits come in the adapted order; the setting is in the configuration hash only
when on; the shipped file is package data, checked against its manifest; a damaged file is one
ConfigError line."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
from controller_helpers import files_index

from controller import channels
from controller.channels import Request, execute
from controller.dense_adapter import (
    MODEL_DIR,
    DenseAdapter,
    DenseMode,
    dense_mode,
    load,
    shipped,
)
from helix.core.config import HelixConfig, RetrievalSettings, resolve_config
from helix.core.errors import ConfigError
from helix.core.hashing import digest
from helix.core.ports import FakeEmbedder
from helix.core.schemas import Hit
from indexers.api import IndexReader
from indexers.dense import embed_text_for

ROOT = Path(__file__).resolve().parents[1]
FILES = {f"pkg/m{i}.py": f'def task_{i}(x):\n    """{words}."""\n    return x\n'
         for i, words in enumerate(["parse the config file", "retry a failed request",
                                    "render the html page", "hash a password safely",
                                    "open a socket connection", "sort the user records"])}
QUESTION = "how is the config file parsed"


def _write(folder: Path, array: np.ndarray) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "adapter.npy").open("wb") as handle:
        np.save(handle, array.astype("<f4"), allow_pickle=False)
    manifest = {"file": "adapter.npy", "file_digest": digest((folder / "adapter.npy").read_bytes())}
    (folder / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    return folder


def _toward(question: np.ndarray, target: np.ndarray) -> np.ndarray:
    """A rank-1 adapter that pulls this question's vector toward `target`: U = q, V = 10 t."""
    return np.stack([question[:, None], 10.0 * target[:, None]])


def _cards(index: IndexReader) -> dict[str, np.ndarray]:
    settings = HelixConfig().index
    embedder = FakeEmbedder()
    out = {}
    for chunk in index.chunks():
        text = embed_text_for(chunk, settings)
        if text is not None:
            out[chunk.id] = embedder.embed([text])[0]
    return out


def _hits(index: IndexReader, on: bool) -> list[Hit]:
    request = Request(channel="dense", query=QUESTION, k=10)
    mode: DenseMode = "adapted" if on else "off"
    return list(channels._dense(index, request, FakeEmbedder(), RetrievalSettings().pools, mode))


def test_on_the_hits_come_in_the_adapted_order_and_off_as_today(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = files_index(FILES, embed=True)
    cards = _cards(index)
    today = index.search_dense(QUESTION, 10)
    assert _hits(index, on=False) == today  # off: the index's own search, as before
    last = today[-1].chunk_id
    q = FakeEmbedder().embed([QUESTION])[0]
    adapter = load(_write(tmp_path / "a", _toward(q, cards[last])))
    monkeypatch.setattr(channels, "shipped_adapter", lambda: adapter)
    adapted = _hits(index, on=True)
    assert adapted[0].chunk_id == last != today[0].chunk_id
    turned = adapter.apply(q)
    assert [round(h.score, 4) for h in adapted] == [
        round(float(turned @ cards[h.chunk_id]), 4) for h in adapted]
    assert [h.score for h in adapted] == sorted((h.score for h in adapted), reverse=True)
    assert _hits(index, on=False) == today
    # through execute, the setting's mode as the controller's loop passes it
    found = execute(index, Request(channel="dense", query=QUESTION, k=10), FakeEmbedder(),
                    None, dense_mode(RetrievalSettings(dense_adapter=True)))
    assert [f.chunk.id for f in found.found][:1] == [last]


def test_the_adapter_is_x_plus_xu_vt_renormalised() -> None:
    rng = np.random.default_rng(3)
    u, v = rng.standard_normal((8, 2)), rng.standard_normal((8, 2))
    x = rng.standard_normal((3, 8)).astype(np.float32)
    full = x @ (np.eye(8) + u @ v.T)
    expected = full / np.linalg.norm(full, axis=1, keepdims=True)
    assert np.allclose(DenseAdapter(u, v).apply(x), expected, atol=1e-5)


def test_the_configuration_hash_moves_only_when_on() -> None:
    off = HelixConfig()
    on = off.model_copy(update={"retrieval": RetrievalSettings(dense_adapter=True)})
    assert on.evidence_hash != off.evidence_hash
    assert "dense_adapter" not in off.retrieval.hashed()
    assert on.retrieval.hashed()["dense_adapter"] is True


def test_a_repository_config_may_switch_it(tmp_path: Path) -> None:
    (tmp_path / ".helix.toml").write_text("[helix.retrieval]\ndense_adapter = true\n", "utf-8")
    config, notices = resolve_config(tmp_path)
    assert config.retrieval.dense_adapter is True and notices == ()


def test_the_evaluation_config_switches_it_on() -> None:
    from evals.cli.run_common import candidate_overrides

    path = ROOT / "evals" / "configs" / "dense_adapter.toml"
    assert candidate_overrides(str(path)) == {"retrieval.dense_adapter": True}


def test_the_shipped_adapter_is_package_data_and_matches_its_manifest() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    shipped_globs = project["tool"]["setuptools"]["package-data"]["controller"]
    assert "dense_adapter_model/*" in shipped_globs
    assert MODEL_DIR == ROOT / "controller" / "dense_adapter_model"
    adapter = shipped()
    assert adapter is shipped()  # read once per process
    assert (adapter.u.shape, adapter.v.shape) == ((384, 16), (384, 16))
    x = np.random.default_rng(0).standard_normal((2, 384)).astype(np.float32)
    assert np.allclose(np.linalg.norm(adapter.apply(x), axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("damage", ["bytes", "digest", "shape", "manifest", "missing", "nan"])
def test_a_damaged_adapter_is_one_config_error_line(tmp_path: Path, damage: str) -> None:
    folder = _write(tmp_path / "a", np.ones((2, 8, 2)))
    if damage == "bytes":
        data = bytearray((folder / "adapter.npy").read_bytes())
        data[-3] ^= 0xFF
        (folder / "adapter.npy").write_bytes(bytes(data))
    elif damage == "digest":  # a file the manifest's digest does not name, and not an array
        (folder / "adapter.npy").write_bytes(b"not numpy")
        (folder / "manifest.json").write_text(json.dumps(
            {"file": "adapter.npy", "file_digest": digest(b"not numpy")}), "utf-8")
    elif damage == "shape":
        _write(folder, np.ones((3, 8, 2)))
    elif damage == "manifest":
        (folder / "manifest.json").write_text("{not json", "utf-8")
    elif damage == "missing":
        (folder / "adapter.npy").unlink()
    else:
        _write(folder, np.full((2, 8, 2), np.nan))
    with pytest.raises(ConfigError) as caught:
        load(folder)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("dense adapter in ")
    assert "retrieval.dense_adapter" in message


def test_an_adapter_of_another_dimension_is_one_config_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    index = files_index(FILES, embed=True)
    monkeypatch.setattr(channels, "shipped_adapter",
                        lambda: DenseAdapter(np.ones((8, 1)), np.ones((8, 1))))
    with pytest.raises(ConfigError, match="8-dimensional"):
        _hits(index, on=True)
