"""Where the parallel work runs: in this process one item after another (`Serial`), or as Ray
tasks (`OnRay`): `--cluster local` starts a Ray cluster on this machine (its CPUs, loopback
only, no dashboard), `--cluster ADDRESS` joins a running one (`ray start --head` / workers,
docs/deploy.md). Both map a function over items and give the outcomes back in the items'
order, each a value or the one-line error that ended it: what was asked decides the result,
never which task finished first.
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from helix.core.errors import ClusterError, HelixError

LOCAL = "local"
AUTO = "auto"  # Ray's own: the cluster a `ray start` on this machine recorded
_ADDRESS = re.compile(r"(?:ray://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})")


@dataclass(frozen=True)
class Outcome:
    value: Any = None
    error: str | None = None


def _error_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return first if isinstance(exc, HelixError) else f"{type(exc).__name__}: {first}"


class Serial:
    name = "serial"

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], *,
            timeout_s: float | None = None) -> list[Outcome]:
        out = []
        for item in items:
            try:
                out.append(Outcome(fn(item)))
            except Exception as exc:  # one repository's failure is its own, the run goes on
                out.append(Outcome(error=_error_line(exc)))
        return out


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ClusterError("--cluster needs Ray: pip install 'helix[cluster]'") from None
    return ray


def check_reachable(address: str, timeout_s: float) -> None:
    """A one-line ClusterError unless `address` is `local`, `auto` or a HOST:PORT (optionally
    ray://) that accepts a connection within `timeout_s`: Ray would retry a dead address for
    minutes, logging as it goes."""
    if address in (LOCAL, AUTO):
        return
    match = _ADDRESS.fullmatch(address)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise ClusterError(f"--cluster {address!r} is not a Ray address (HOST:PORT, "
                           "ray://HOST:PORT, auto or local)")
    host = match["host"].strip("[]")
    try:
        socket.create_connection((host, int(match["port"])), timeout=timeout_s).close()
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise ClusterError(f"cannot reach the Ray cluster at {address}: {why}") from None


def connect(address: str) -> Any:
    """The ray module, connected to the cluster at `address` (or a local one started for this
    process: `local`); a Ray already initialised in this process is used as it is."""
    from helix.core.config import resolve_config

    ray = _ray()
    check_reachable(address, resolve_config(None)[0].cluster.connect_timeout_s)
    if ray.is_initialized():
        return ray
    options: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    try:
        if address == LOCAL:  # a cluster of its own: never one RAY_ADDRESS or a running
            # `ray start` points at (Ray's address=None would join those)
            ray.init(address=LOCAL, num_cpus=os.cpu_count() or 1, include_dashboard=False,
                     _node_ip_address="127.0.0.1", **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Ray cluster at {address}: {_error_line(exc)}"
                           ) from None
    return ray


class OnRay:
    """Each item one Ray task (one CPU each)."""

    name = "ray"

    def __init__(self, ray: Any) -> None:
        self.ray = ray

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], *,
            timeout_s: float | None = None) -> list[Outcome]:
        ray = self.ray
        task = ray.remote(num_cpus=1, max_retries=0)(fn)
        refs = [task.remote(item) for item in items]
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        out = []
        for ref in refs:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                out.append(Outcome(ray.get(ref, timeout=left)))
            except ray.exceptions.GetTimeoutError:
                ray.cancel(ref, force=True)
                out.append(Outcome(error=f"the task ran past {timeout_s:g} s"))
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                out.append(Outcome(error=_error_line(cause if cause is not None else exc)))
            except ray.exceptions.RayError as exc:  # a worker or node died
                out.append(Outcome(error=_error_line(exc)))
        return out


def executor(cluster: str | None) -> Serial | OnRay:
    """The serial loop without a cluster, Ray tasks with one."""
    return Serial() if cluster is None else OnRay(connect(cluster))


def map_values(runner: Serial | OnRay, fn: Callable[[Any], Any], items: Sequence[Any]
               ) -> list[Any]:
    """Like `map`, the first error raised as a ClusterError (for work that is all or nothing:
    the shards of one repository)."""
    values = []
    for outcome in runner.map(fn, items):
        if outcome.error is not None:
            raise ClusterError(outcome.error)
        values.append(outcome.value)
    return values
