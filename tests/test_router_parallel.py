"""The router trainer's `--jobs`: the capture split by file over processes and the fits computed
ahead in processes are what the one-process trainer computes (the same model bytes)."""

from __future__ import annotations

import numpy as np

from controller.continuity.meaning import CLASSES
from evals import router_parallel
from evals import router_train as rt


def test_the_training_files_are_cut_in_order_into_at_most_jobs_runs():
    for jobs in (1, 2, 3, 7):
        runs = router_parallel.parts(rt.TRAIN_FILES, jobs)
        assert 1 <= len(runs) <= jobs and all(runs)
        assert tuple(name for run in runs for name in run) == rt.TRAIN_FILES
    assert len(router_parallel.parts(rt.TRAIN_FILES, 2)) == 2


def test_fits_computed_ahead_in_processes_are_the_fits():
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(size=(60, 4)), 3)
    y = rng.integers(0, len(CLASSES), 60)
    tasks = [(x, y), (x[:40], y[:40])]
    direct = [rt.fit(a, b) for a, b in tasks]
    try:
        router_parallel.prefit(tasks, 2)
        assert len(rt.FITTED) == 2
        for (a, b), (w, bias) in zip(tasks, direct, strict=True):
            got = rt.fit(a, b)
            assert got[0].tobytes() == w.tobytes() and got[1].tobytes() == bias.tobytes()
    finally:
        rt.FITTED.clear()


def test_a_capture_split_over_processes_is_the_one_process_capture(tmp_path, monkeypatch):
    files = ("T3.jsonl", "T4.jsonl", "T5.jsonl")
    flags = {"index.embed_enabled": False}
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    serial = rt.collect(flags, files)
    monkeypatch.setattr(rt, "TRAIN_FILES", files)
    split = router_parallel.collect(flags, 2)
    assert len(router_parallel.parts(files, 2)) == 2
    assert serial and split == serial
