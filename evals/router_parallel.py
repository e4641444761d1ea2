"""The router trainer's work over several processes (`python -m evals.router_train --jobs N`):
the capture split by training file, the fits by what each leaves out. Every part is what the
one-process trainer computes, in its order: a session's turns run in a session of their own
(a worker captures its files in a HELIX_HOME of its own, removed when it is done), and a fit is
deterministic given its arrays; so the model is the same bytes (`--check` compares them).

    collect(flags, jobs) -> samples          `router_train.collect`, files split over jobs
    prefit(tasks, jobs)                      fits computed ahead, looked up by `router_train.fit`
    masks(samples)                           the rows of every fit the trainer makes
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from evals.router_train import Sample


def parts(files: tuple[str, ...], jobs: int) -> list[tuple[str, ...]]:
    """`files` in order, cut into at most `jobs` runs of about equal size (bytes)."""
    from evals.router_train import SUITE_DIR

    sizes = [(SUITE_DIR / f).stat().st_size for f in files]
    total, filled = sum(sizes), 0
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    for name, size in zip(files, sizes, strict=True):
        run.append(name)
        filled += size
        if filled * jobs >= total * (len(out) + 1) and len(out) < jobs - 1:
            out.append(tuple(run))
            run = []
    return [*out, tuple(run)] if run else out


def _collect_part(args: tuple[tuple[str, ...], dict[str, Any]]) -> list[Sample]:
    from evals import router_train as rt

    files, flags = args
    home = tempfile.mkdtemp(prefix="helix-router-train-part-")
    os.environ["HELIX_HOME"] = home
    try:
        return rt.collect(flags, files)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _pool(jobs: int) -> Any:
    # spawned, not forked: a worker starts from a clean interpreter (no HELIX_HOME or cache of
    # the parent's); it inherits sys.path
    return multiprocessing.get_context("spawn").Pool(jobs)


def collect(flags: dict[str, Any], jobs: int) -> list[Sample]:
    from evals.router_train import TRAIN_FILES

    with _pool(jobs) as pool:
        captured = pool.map(_collect_part, [(p, flags) for p in parts(TRAIN_FILES, jobs)])
    return [s for part in captured for s in part]


def _fit(args: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    from threadpoolctl import threadpool_limits

    from evals import router_train as rt

    with threadpool_limits(limits=1, user_api="blas"):
        return rt.fit(*args)


def prefit(tasks: list[tuple[np.ndarray, np.ndarray]], jobs: int) -> None:
    """Fit every (x, y) of `tasks` in `jobs` processes; `router_train.fit` then finds them."""
    from evals import router_train as rt

    with _pool(jobs) as pool:
        for (x, y), result in zip(tasks, pool.map(_fit, tasks, chunksize=1), strict=True):
            rt.FITTED[rt.fit_key(x, y)] = result


def masks(samples: list[Sample]) -> list[np.ndarray]:
    """The training rows of every fit `router_train.train` makes: each cross-validation
    fold's, all of them, and each writer's left out."""
    from evals import router_train as rt

    folds = np.array([rt.fold_of(s.group) for s in samples])
    sources = np.array([s.source for s in samples])
    return [*(folds != k for k in range(rt.FOLDS)), np.ones(len(samples), dtype=bool),
            *(sources != w for w in rt.WRITER_FILES if (sources == w).any())]
