"""tests/conftest.py runs the Ray modules as one xdist unit and stops the session's cluster as
soon as the next test of the worker does not ask for it (an idle cluster costs CPU for the
rest of the run; a second start ~11 CPU s)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.conftest import RAY_MODULES, RAY_UNIT, stop_unless_next_uses, xdist_unit


def test_the_ray_modules_are_one_unit_and_every_other_module_its_own() -> None:
    assert {xdist_unit(f"tests/{name}::test_x[a::b]") for name in RAY_MODULES} == {RAY_UNIT}
    assert xdist_unit("tests/test_http_api.py::test_the_http_api_end_to_end") == (
        "tests/test_http_api.py")
    assert xdist_unit("tests/test_cluster_index_bench.py::test_x") == (
        "tests/test_cluster_index_bench.py")


class _Cluster:
    def __init__(self) -> None:
        self.stopped = 0

    def __exit__(self, *exc: object) -> None:
        self.stopped += 1


def test_the_cluster_is_stopped_once_the_next_test_does_not_need_it() -> None:
    cluster = _Cluster()
    running: list[Any] = [cluster, "ray"]
    uses = SimpleNamespace(fixturenames=["tmp_path", "ray_session"])
    stop_unless_next_uses(running, uses)  # type: ignore[arg-type]
    assert running == [cluster, "ray"] and cluster.stopped == 0
    stop_unless_next_uses(running, SimpleNamespace(fixturenames=["tmp_path"]))  # type: ignore[arg-type]
    assert running == [] and cluster.stopped == 1
    stop_unless_next_uses(running, None)  # nothing runs: nothing to stop
    last = _Cluster()
    running[:] = [last, "ray"]
    stop_unless_next_uses(running, None)  # the worker's last test
    assert running == [] and last.stopped == 1
