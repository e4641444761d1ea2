"""Lexical first, dense in the background (issue 11): the first answer comes from the lexical
index, a worker process embeds the rest by priority and publishes whole generations, it can
be killed, stopped and resumed, and once complete the index is the synchronous build's."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from helix.core.config import HelixConfig, IndexSettings
from helix.core.notices import collect
from helix.core.ports import FakeEmbedder
from indexers import build_dense, dense_worker
from indexers.build import build_index, ensure_index, index_status
from indexers.reader import Index
from indexers.store import CURRENT, IndexStore
from tests.index_fixtures import write_repo

BACKGROUND = HelixConfig(index=IndexSettings(dense_inline_max=0, dense_publish_vectors=4))
WAIT_S = 60.0


class SlowEmbedder(FakeEmbedder):
    """FakeEmbedder's vectors, `delay` seconds per call (a worker to kill mid-way)."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__()
        self.delay = delay

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(self.delay)
        return super().embed(texts)


def _documented_repo(root: Path, functions: int = 24) -> Path:
    write_repo(root)
    body = "".join(f'def helper_{n}(x):\n    """Helper number {n} turns x into {n}."""\n'
                   f"    return x + {n}\n\n\n" for n in range(functions))
    (root / "pkg" / "helpers.py").write_text(body, encoding="utf-8")
    return root


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return _documented_repo(tmp_path / "repo")


@pytest.fixture()
def no_spawn(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Worker starts recorded instead of made (in-process tests drive the worker's code)."""
    started: list[Path] = []

    def fake_start(store: IndexStore, root: Path, config: HelixConfig) -> int | None:
        started.append(store.directory)
        return None
    monkeypatch.setattr(dense_worker, "start", fake_start)
    return started


def _store(index_dir: Path) -> IndexStore:
    return IndexStore(index_dir)


def _sync_rev(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              config: HelixConfig = BACKGROUND) -> str:
    """index_rev of a synchronous build with its own (cold) embedding cache."""
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "sync_home"))
    report = build_index(repo, config, index_dir=tmp_path / "sync_idx", embedder=FakeEmbedder())
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    assert report.dense_state is not None and report.dense_state["complete"]
    return report.index_rev


def test_lexical_first_answers_at_once_and_says_dense_is_incomplete(
        repo: Path, tmp_path: Path, no_spawn: list[Path]) -> None:
    embedder = FakeEmbedder()
    index, report = ensure_index(repo, BACKGROUND, index_dir=tmp_path / "idx",
                                 embedder=embedder, dense="background")
    assert embedder.texts_embedded == 0  # nothing embedded before answering
    assert index.dense_state is not None and report.dense_state is not None
    assert {**report.dense_state, "generation": None} == {**index.dense_state,
                                                         "generation": None}
    assert report.dense_state["vectors"] == 0 and not report.dense_state["complete"]
    assert report.dense_state["total"] > 24  # docs, the fixture's and the 24 helpers
    assert no_spawn == [tmp_path / "idx"]  # the worker is asked for
    assert index.search_bm25("retry policy", 3)  # the lexical index answers
    assert index.find_definitions("helper_7")
    assert index.search_dense("retry policy", 3) == []  # nothing to search yet


def test_few_missing_vectors_are_embedded_before_answering(
        repo: Path, tmp_path: Path, no_spawn: list[Path]) -> None:
    config = HelixConfig(index=IndexSettings(dense_inline_max=1000))
    embedder = FakeEmbedder()
    _, report = ensure_index(repo, config, index_dir=tmp_path / "idx", embedder=embedder,
                             dense="background")
    assert report.dense_state is not None and report.dense_state["complete"]
    assert embedder.texts_embedded == report.dense_state["total"] and no_spawn == []


def test_cached_vectors_are_used_at_once_and_completion_equals_the_sync_build(
        repo: Path, tmp_path: Path, no_spawn: list[Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_dense, "WORKER_BATCH", 4)
    index_dir = tmp_path / "idx"
    _, lexical = ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                              dense="background")
    store = _store(index_dir)
    with store.locked():  # stop after the first publish: some vectors, not all
        calls = iter(range(100))
        state = build_dense.complete_dense(store, repo, BACKGROUND, embedder=FakeEmbedder(),
                                           should_stop=lambda: next(calls) >= 0)
    assert state is not None and 0 < state["vectors"] < state["total"]
    # a new index of the same files finds those vectors in the shared cache
    _, again = ensure_index(repo, BACKGROUND, index_dir=tmp_path / "idx2",
                            embedder=FakeEmbedder(), dense="background")
    assert again.dense_state == state
    # `wait` completes what is missing; the result is the synchronous build, bit for bit
    embedder = FakeEmbedder()
    index, done = ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=embedder,
                               dense="wait")
    assert done.dense_state is not None and done.dense_state["complete"]
    assert embedder.texts_embedded == state["total"] - state["vectors"]  # resumed, not redone
    assert done.index_rev == index.index_rev != lexical.index_rev
    assert done.index_rev == _sync_rev(repo, tmp_path, monkeypatch)
    # which vectors answered is in the state: the partial and the complete sets differ, and
    # the same vectors give the same generation in another index directory
    partial = ensure_index(repo, BACKGROUND, index_dir=tmp_path / "idx2",
                           embedder=FakeEmbedder(), dense="background")[0].dense_state
    assert partial is not None and index.dense_state is not None
    assert partial["generation"] and index.dense_state["generation"]
    assert partial["generation"] != index.dense_state["generation"]
    again = ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                         dense="background")[0].dense_state
    assert again is not None and again["generation"] == index.dense_state["generation"]


def _kill_target(root: str, index_dir: str, delay: float) -> None:
    dense_worker.run(Path(root), IndexStore(Path(index_dir)), BACKGROUND,
                     should_stop=lambda: False, embedder=SlowEmbedder(delay))


def test_worker_killed_mid_way_leaves_a_whole_generation_and_resumes(
        repo: Path, tmp_path: Path, no_spawn: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_dense, "WORKER_BATCH", 2)
    index_dir = tmp_path / "idx"
    ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                 dense="background")
    store = _store(index_dir)
    process = multiprocessing.get_context("fork").Process(
        target=_kill_target, args=(str(repo), str(index_dir), 0.2))
    process.start()
    deadline = time.monotonic() + WAIT_S
    while (dense_worker.read_state(store).get("published") or 0) < 4:
        assert time.monotonic() < deadline and process.is_alive()
        time.sleep(0.05)
    assert process.pid is not None
    os.kill(process.pid, signal.SIGKILL)
    process.join(WAIT_S)
    # whatever instant it died at, CURRENT names a whole generation: manifest and every part
    name = (index_dir / CURRENT).read_text("utf-8").strip()
    index = Index.open_unlocked(store, repo, BACKGROUND.index)
    assert index is not None and index.generation.name == name
    state = index.dense_state
    assert state is not None and 4 <= state["vectors"] < state["total"]
    assert len(index._dense() or ()) == state["vectors"]
    # the lock died with it; the next worker resumes from the cache, and ends complete
    embedder = SlowEmbedder()
    final = dense_worker.run(repo, store, BACKGROUND, should_stop=lambda: False,
                             embedder=embedder)
    assert final["status"] == "done" and final["vectors"] == final["total"] == state["total"]
    assert embedder.texts_embedded <= state["total"] - state["vectors"]
    assert not any(p.name.startswith("tmp-") for p in index_dir.iterdir())  # cleaned
    _, report = ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                             dense="background")
    assert report.noop and report.index_rev == _sync_rev(repo, tmp_path, monkeypatch)


def test_worker_publishes_in_priority_order(repo: Path, tmp_path: Path, no_spawn: list[Path],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_dense, "WORKER_BATCH", 4)
    index_dir = tmp_path / "idx"
    ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                 dense="background")
    store = _store(index_dir)
    with store.locked():
        build_dense.complete_dense(store, repo, BACKGROUND, embedder=FakeEmbedder(),
                                   should_stop=lambda: True)  # one batch
    index = Index.open(store, repo, BACKGROUND.index)
    held = {cid for cid, _ in index._dense().search(np.ones(64), 1000)}
    docs = {c.id for c in index.chunks() if c.kind == "doc_section"}
    assert docs and docs <= held  # docs are the first tier


def test_status_shows_the_workers_progress(repo: Path, tmp_path: Path,
                                           no_spawn: list[Path]) -> None:
    index_dir = tmp_path / "idx"
    ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                 dense="background")
    store = _store(index_dir)
    state = {"pid": os.getpid(), "status": "embedding", "vectors": 12, "total": 40,
             "rate": 3.0, "eta_s": 9.3}
    dense_worker.write_state(store, state)
    fd = dense_worker._try_lock(index_dir / dense_worker.WORKER_LOCK, create=True)
    assert fd is not None
    try:  # as a live worker holds it
        report = index_status(repo, BACKGROUND, index_dir=index_dir)
        assert report.worker is not None and report.worker["running"]
        assert report.worker["pid"] == os.getpid() and report.worker["eta_s"] == 9.3
        from helix.cli.index_cmd import _dense_status

        lines = _dense_status(report.dense_state, report.worker)
        assert lines[0].startswith("dense: incomplete (0 of ")
        assert lines[1] == (f"dense worker: running, pid {os.getpid()} alive; 12 of 40 "
                            "embedded, 3.0 vectors/s, ETA 9 s")
    finally:
        os.close(fd)
    report = index_status(repo, BACKGROUND, index_dir=index_dir)
    assert report.worker is not None and not report.worker["running"]
    assert _dense_status(report.dense_state, report.worker)[1].startswith(
        "dense worker: not running")


def test_ask_never_waits_for_the_worker_and_never_starts_a_second(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_dir = tmp_path / "idx"
    started: list[int] = []
    monkeypatch.setattr(dense_worker, "start", lambda *a: started.append(1))
    ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                 dense="background")
    store = _store(index_dir)
    fd = dense_worker._try_lock(index_dir / dense_worker.WORKER_LOCK, create=True)
    assert fd is not None
    dense_worker.write_state(store, {"pid": os.getpid(), "status": "embedding"})
    (repo / "pkg" / "new.py").write_text("def added():\n    return 1\n", encoding="utf-8")
    try:
        with store.locked(), collect() as notes:  # the worker holds the writer lock
            began = time.monotonic()
            index, report = ensure_index(repo, BACKGROUND, index_dir=index_dir,
                                         embedder=FakeEmbedder(), dense="background")
            assert time.monotonic() - began < 2.0
        assert report.stale and report.worker_pid == os.getpid()
        assert index.find_definitions("helper_3") and not index.find_definitions("added")
        assert started == [1]  # only the first ask asked for a worker
        assert f"is held by the dense worker (pid {os.getpid()})" in notes[0]
        assert (index_dir / dense_worker.WORKER_REFRESH).exists()  # asked to make way
    finally:
        os.close(fd)


def test_worker_makes_way_when_files_changed(repo: Path, tmp_path: Path,
                                             no_spawn: list[Path],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_dense, "WORKER_BATCH", 4)
    index_dir = tmp_path / "idx"
    ensure_index(repo, BACKGROUND, index_dir=index_dir, embedder=FakeEmbedder(),
                 dense="background")
    store = _store(index_dir)

    class AskArrives(FakeEmbedder):  # an ask sees changed files while the worker embeds
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            dense_worker.request_refresh(store)
            return super().embed(texts)

    (repo / "pkg" / "new.py").write_text("def added():\n    return 1\n", encoding="utf-8")
    final = dense_worker.run(repo, store, BACKGROUND, should_stop=lambda: False,
                             embedder=AskArrives())
    assert final["status"] == "made way for a refresh" and final["vectors"] == 4
    assert not (index_dir / dense_worker.WORKER_REFRESH).exists()
    index, report = ensure_index(repo, BACKGROUND, index_dir=index_dir,
                                 embedder=FakeEmbedder(), dense="background")
    assert report.refreshed and index.find_definitions("added")
    assert report.dense_state is not None and report.dense_state["vectors"] >= 4
    assert no_spawn == [index_dir, index_dir]  # and the worker is asked for again


def test_a_real_worker_process_completes_and_two_starts_make_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_repo(tmp_path / "repo")  # the real model (numpy encoder) on a few cards
    index_dir = tmp_path / "idx"
    _, first = ensure_index(repo, BACKGROUND, index_dir=index_dir, dense="background")
    store = _store(index_dir)
    assert first.worker_pid is not None and first.dense_state is not None
    assert not first.dense_state["complete"]
    # a session of its own (it outlives the asker and its terminal)
    assert os.getsid(first.worker_pid) == first.worker_pid != os.getsid(0)
    assert dense_worker.start(store, repo, BACKGROUND) is None  # one runs: no second one
    dense_worker.wait_for(store, None)
    assert dense_worker.read_state(store)["status"] == "done", (
        index_dir / dense_worker.WORKER_LOG).read_text("utf-8")
    _, report = ensure_index(repo, BACKGROUND, index_dir=index_dir, dense="background")
    assert report.noop and report.dense_state is not None and report.dense_state["complete"]
    assert report.worker_pid is None
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "sync_home"))  # a cold cache
    sync = build_index(repo, BACKGROUND, index_dir=tmp_path / "sync_idx")
    assert sync.index_rev == report.index_rev


def test_stop_pauses_until_the_next_index(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_repo(tmp_path / "repo")
    index_dir = tmp_path / "idx"
    store = _store(index_dir)
    real_start = dense_worker.start
    monkeypatch.setattr(dense_worker, "start", lambda *a: None)
    ensure_index(repo, BACKGROUND, index_dir=index_dir, dense="background")  # lexical only
    with store.locked():  # the worker waits for this lock: it is stopped before it gets it
        pid = real_start(store, repo, BACKGROUND)
        assert pid is not None and dense_worker.running(store)
        deadline = time.monotonic() + WAIT_S
        while dense_worker.read_state(store).get("status") == "starting":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        stopped = dense_worker.stop(store, wait_s=WAIT_S)
    assert stopped["stopped"] == pid and not dense_worker.running(store)
    assert dense_worker.read_state(store)["status"] == "stopped"
    assert real_start(store, repo, BACKGROUND) is None  # paused: asks do not restart it
    monkeypatch.setattr(dense_worker, "start", real_start)
    _, report = ensure_index(repo, BACKGROUND, index_dir=index_dir, dense="background")
    assert report.worker_pid is None and report.dense_state is not None
    assert not report.dense_state["complete"]
    worker = index_status(repo, BACKGROUND, index_dir=index_dir).worker
    assert worker is not None and worker["paused"] and not worker["running"]
    # `helix index` lifts the pause and finishes the vectors (here: in the foreground)
    done = build_index(repo, BACKGROUND, index_dir=index_dir)
    assert done.dense_state is not None and done.dense_state["complete"]
    assert not dense_worker.paused(store)
