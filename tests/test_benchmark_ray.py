"""benchmarks/_ray.py: Ray's own per-task cost, measured one way for cluster_index_bench and
corpus_cluster_bench (a stand-in for Ray here: starting it is the benchmarks' job)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import _ray  # noqa: E402

USERS = ("cluster_index_bench", "corpus_cluster_bench")


class FakeRay:
    """`ray.remote(num_cpus=1)(fn).remote(x)` and `ray.get(refs)`; every batch after the first
    takes `pause` seconds."""

    def __init__(self, pause: float) -> None:
        self.pause = pause
        self.batches: list[list[Any]] = []

    def remote(self, **options: Any) -> Callable[[Callable[[int], int]], Any]:
        assert options == {"num_cpus": 1}

        def wrap(fn: Callable[[int], int]) -> Any:
            return type("Remote", (), {"remote": staticmethod(fn)})

        return wrap

    def get(self, refs: list[Any]) -> list[Any]:
        if self.batches:
            time.sleep(self.pause)
        self.batches.append(list(refs))
        return refs


def test_empty_task_ms_warms_up_then_times_the_batch_per_task() -> None:
    ray = FakeRay(pause=0.2)
    ms = _ray.empty_task_ms(ray, tasks=4, warm=3)
    assert ray.batches == [[0, 1, 2], [0, 1, 2, 3]]
    assert 50.0 <= ms < 50.0 * 20  # 200 ms over 4 tasks, whatever the machine's load adds


def test_local_ray_connects_locally_and_reports_startup(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import helix.cluster.runtime as runtime

    ray = FakeRay(pause=0.0)
    addresses: list[str] = []

    def connect(address: str) -> FakeRay:
        addresses.append(address)
        time.sleep(0.05)
        return ray

    monkeypatch.setattr(runtime, "connect", connect)
    got, startup, ms = _ray.local_ray(tasks=2, warm=1)
    assert got is ray and addresses == ["local"]
    assert startup >= 0.05 and ms >= 0.0 and ray.batches == [[0], [0, 1]]


def test_the_cluster_benchmarks_measure_through_it() -> None:
    for name in USERS:
        text = (BENCHMARKS / f"{name}.py").read_text(encoding="utf-8")
        assert "from _ray import local_ray" in text and "ray.remote" not in text, name
