"""`helix eval history|qa|SUITES --cluster ADDRESS|local`: the evaluation's work as Ray tasks.

    history     one task per repository (its cases share one tree, moved commit to commit,
                and one incrementally refreshed index: splitting them would rebuild both)
    qa          one task per chunk of `cluster.cases_per_task` questions, over the one tree
                and index the run prepared first
    suites      (matrix, networkx, ...) one task per chunk of a retrieval suite's cases, over
                the indexes the run prepared first; continuity suites run here as before
    corpus      (`helix eval corpus build`) one task per repository of the list, each mining
                its history into its per-repository file under the build's work directory
    ranker rows (`helix eval corpus ranker-rows`) one task per repository, each asking its
                cases through helix.service.ask over its tree and writing its row files
                under --out
    ranker      (`helix eval corpus train-ranker`) one task per grid point
                (`evals.corpus.ranker_train.grid_task`), the rows put in the object store once

Every task runs under the run's HELIX_HOME (set for its duration: the trees, indexes and
copies the run prepared are found where they are, on a file system every worker sees). The
results are merged in the serial order, so the report is the serial run's, measured times
aside; `cluster` in the report (and one line on stderr) gives the wall time, the tasks' own
time and their ratio, the speed-up.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from helix.cluster.index_job import helix_home as run_under

CASES_PER_TASK = "cluster.cases_per_task"


class FanOut:
    """Maps task functions over items on the cluster (or here, with `cluster=None`) and keeps
    the time books: wall time and the tasks' own seconds."""

    def __init__(self, cluster: str | None) -> None:
        from helix.cluster.runtime import executor
        from helix.core.config import helix_home, resolve_config

        self.cluster = cluster
        self.runner = executor(cluster)
        self.home = str(helix_home())
        self.chunk = resolve_config(None)[0].cluster.cases_per_task
        self.tasks = 0
        self.task_s = 0.0
        self.wall_s = 0.0

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        from helix.cluster.runtime import map_values

        started = time.perf_counter()
        timed = map_values(self.runner, _timed, [(fn, self.home, item) for item in items])
        self.wall_s += time.perf_counter() - started
        self.tasks += len(items)
        self.task_s += sum(seconds for _, seconds in timed)
        return [value for value, _ in timed]

    def chunks(self, items: Sequence[Any]) -> list[list[Any]]:
        return [list(items[i:i + self.chunk]) for i in range(0, len(items), self.chunk)]

    def report(self) -> dict[str, Any]:
        return {"executor": self.runner.name, "cluster": self.cluster, "tasks": self.tasks,
                "wall_s": round(self.wall_s, 3), "task_s": round(self.task_s, 3),
                "speedup": round(self.task_s / self.wall_s, 3) if self.wall_s > 0 else None}

    def line(self) -> str:
        r = self.report()
        speed = f", {r['speedup']:.2f}x" if r["speedup"] else ""
        return (f"{r['tasks']} tasks on {self.cluster}: wall {r['wall_s']:.1f} s, tasks' own "
                f"time {r['task_s']:.1f} s{speed}")


def _timed(item: tuple[Callable[[Any], Any], str, Any]) -> tuple[Any, float]:
    fn, home, arg = item
    started = time.perf_counter()
    with run_under(home):
        value = fn(arg)
    return value, time.perf_counter() - started


# ---- history: one task per repository ----------------------------------------------------

def history_task(item: tuple[Any, dict[str, Any], bool]) -> Any:
    from evals.history.run import run_repo

    spec, overrides, no_embed = item
    return run_repo(spec, overrides=overrides, no_embed=no_embed)


def history_runs(specs: Sequence[Any], fan: FanOut, overrides: Mapping[str, Any],
                 no_embed: bool) -> list[Any]:
    return fan.map(history_task, [(spec, dict(overrides), no_embed) for spec in specs])


# ---- qa: one task per chunk of questions -------------------------------------------------

def qa_task(item: tuple[str, list[Any], dict[str, Any], bool]) -> list[Any]:
    from evals.qa.run import score_cases

    root, cases, overrides, no_embed = item
    return score_cases(Path(root), cases, overrides, no_embed)


def qa_fan_out(fan: FanOut, overrides: Mapping[str, Any], no_embed: bool
               ) -> Callable[[Path, Sequence[Any]], list[Any]]:
    def run(root: Path, cases: Sequence[Any]) -> list[Any]:
        chunks = fan.chunks(cases)
        done = fan.map(qa_task, [(str(root), c, dict(overrides), no_embed) for c in chunks])
        return [outcome for chunk in done for outcome in chunk]

    return run


# ---- retrieval suites: one task per chunk of cases ---------------------------------------

def suite_task(item: tuple[str, list[Any], dict[str, Any], bool, str | None]) -> list[Any]:
    from evals.runner import Runner, run_cases

    name, cases, overrides, no_embed, answerer = item
    runner = Runner(overrides, no_embed=no_embed, answerer=answerer)
    return run_cases(name, cases, runner.ask_for,
                     answer_for=(lambda spec: runner.prepared(spec).answer)
                     if answerer is not None else None)


def suite_fan_out(fan: FanOut, overrides: Mapping[str, Any], no_embed: bool,
                  answerer: str | None) -> Callable[[str, Sequence[Any]], list[Any]]:
    # the Runner's own overrides carry `synthesis.model` for an answerer: passed as given
    def run(name: str, cases: Sequence[Any]) -> list[Any]:
        chunks = fan.chunks(cases)
        done = fan.map(suite_task, [(name, c, dict(overrides), no_embed, answerer)
                                    for c in chunks])
        return [result for chunk in done for result in chunk]

    return run


# ---- the training corpus: one task per repository --------------------------------------

def corpus_task(item: tuple[Any, str, str, Any]) -> tuple[Any, float, bool]:
    from evals.corpus.build import repo_cases

    entry, mirrors, work, limits = item
    return repo_cases(entry, Path(mirrors), Path(work), limits)


def corpus_fan_out(fan: FanOut) -> Callable[[Sequence[Any], Path, Path, Any],
                                            list[tuple[Any, float, bool]]]:
    """`evals.corpus.build.MineMap` on the cluster: `mirrors` and `work` must be paths every
    worker sees (a local cluster: this machine's)."""
    def run(entries: Sequence[Any], mirrors: Path, work: Path, limits: Any
            ) -> list[tuple[Any, float, bool]]:
        return fan.map(corpus_task, [(entry, str(mirrors), str(work), limits)
                                     for entry in entries])

    return run


# ---- the ranker's rows: one task per repository ------------------------------------------

def rows_task(job: Any) -> dict[str, Any]:
    from evals.corpus.features import collect_one

    return collect_one(job)


def rows_fan_out(fan: FanOut) -> Callable[[Sequence[Any]], list[dict[str, Any]]]:
    """`evals.corpus.features.CollectMap` on the cluster: the jobs' trees and out directories
    must be paths every worker sees (a local cluster: this machine's)."""
    def run(jobs: Sequence[Any]) -> list[dict[str, Any]]:
        return fan.map(rows_task, list(jobs))

    return run


def without_times(value: Any) -> Any:
    """A report with its measured times (and the cluster's own books) left out: what a
    cluster run and a serial run have identical."""
    timed = ("seconds", "time_ms", "time_ms_repeat", "wall_s", "task_s", "index_s")
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items()
                if k != "cluster" and k not in timed and not k.endswith(("_ms", "_s"))
                and "time" not in k}
    if isinstance(value, list | tuple):
        return [without_times(v) for v in value]
    return value
