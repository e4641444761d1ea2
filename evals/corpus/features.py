"""The learned ranker's training rows: every case's candidates and features, labelled.

Each case's message goes through `helix.service.ask` (dry run) with the learned ranker on and
a `Recorder` in the model's place: it keeps the candidates and their feature rows (computed by
the very code that ranks at question time) and keeps the hand order. A candidate is relevant
(label 1) when it is a target definition (`evals.corpus.policy.is_target`). Written per
repository as an `.npz` (X float64, y, group sizes) and a JSON sidecar (case ids, each
candidate's path, symbol and lines, pool recall).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from controller.rank_features import FEATURES, Pooled
from controller.rank_matrix import Rows
from evals.corpus.mine import CorpusCase
from evals.corpus.policy import index_tree, is_target

Progress = Callable[[str], None]


def learned(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`overrides` with the learned ranker on (the rest of `retrieval.ranker` kept)."""
    ranker = dict(overrides.get("retrieval.ranker", {}))
    return {**overrides, "retrieval.ranker": {**ranker, "mode": "learned"}}


@dataclass
class Recorder:
    """A scorer that keeps what it was asked to score and answers with the hand order."""

    pooled: list[Pooled] = field(default_factory=list)
    rows: list[list[float]] = field(default_factory=list)
    routes: frozenset[str] | None = None  # it records every route's candidates
    wide: bool = False  # with the question model's bridging columns (`QUESTION_FEATURES`)

    def score(self, pooled: Sequence[Pooled], rows: Rows) -> list[float]:
        self.pooled = list(pooled)
        # Python floats either way (the learned step hands in a float64 matrix)
        self.rows = (rows.tolist() if isinstance(rows, np.ndarray)
                     else [list(r) for r in rows])
        return [-float(n) for n in range(len(pooled))]


@dataclass
class CaseRows:
    case_id: str
    rows: list[list[float]]
    labels: list[int]
    candidates: list[tuple[str, str, int, int]]  # path, symbol, start, end
    targets: int
    targets_in_pool: int


def label_case(case: CorpusCase, pooled: Sequence[Pooled], rows: Sequence[Sequence[float]]
               ) -> CaseRows:
    labels = [1 if any(is_target(p.chunk, t) for t in case.targets) else 0 for p in pooled]
    found = sum(1 for t in case.targets if any(is_target(p.chunk, t) for p in pooled))
    return CaseRows(case.id, [list(r) for r in rows], labels,
                    [(p.chunk.path, p.chunk.symbol or "", p.chunk.start_line, p.chunk.end_line)
                     for p in pooled], len(case.targets), found)


def collect_repo(root: Path, cases: Sequence[CorpusCase], overrides: Mapping[str, Any],
                 progress: Progress | None = None, wide: bool = False
                 ) -> tuple[list[CaseRows], float]:
    """(one CaseRows per case, index seconds); `wide`: rows of `QUESTION_FEATURES`."""
    import sqlite_utils

    from helix.runlog import RunLog
    from helix.service import ask

    _index, config, index_s = index_tree(root, learned(overrides))
    runlog = RunLog(sqlite_utils.Database(memory=True))
    out: list[CaseRows] = []
    for number, case in enumerate(cases, start=1):
        recorder = Recorder(wide=wide)
        ask(case.message, root=root, config=config, dry_run=True, runlog=runlog,
            notify=lambda _line: None, ranker=recorder)
        out.append(label_case(case, recorder.pooled, recorder.rows))
        if progress is not None and number % 100 == 0:
            progress(f"{case.repo} {number}/{len(cases)}")
    runlog.close()
    return out, index_s


def save(rows: Sequence[CaseRows], path: Path, meta: Mapping[str, Any],
         features: Sequence[str] = FEATURES) -> None:
    """`path`.npz and `path`.json, written whole or not at all (no measured time in either:
    the same cases give the same bytes); `features`: the rows' columns."""
    x = np.asarray([r for c in rows for r in c.rows], dtype=np.float64).reshape(
        -1, len(features))
    y = np.asarray([v for c in rows for v in c.labels], dtype=np.int32)
    group = np.asarray([len(c.labels) for c in rows], dtype=np.int64)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")  # names hold dots (chart.js): no with_suffix
    np.savez_compressed(tmp, x=x, y=y, group=group)  # zip entries dated 1980: same bytes
    side = {**meta, "features": list(features),
            "cases": [{"id": c.case_id, "targets": c.targets, "in_pool": c.targets_in_pool,
                       "candidates": c.candidates} for c in rows]}
    tmp_json = path.with_name(path.name + ".tmp.json")
    tmp_json.write_text(json.dumps(side, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path.with_name(path.name + ".npz"))
    tmp_json.replace(path.with_name(path.name + ".json"))


def load(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    with np.load(path.with_name(path.name + ".npz")) as data:
        x, y, group = data["x"], data["y"], data["group"]
    side = json.loads(path.with_name(path.name + ".json").read_text(encoding="utf-8"))
    return x, y, group, side


@dataclass(frozen=True)
class RepoJob:
    """One repository's rows to collect: its cases asked over trees/<name>, written to
    out/<name>.* (paths every worker sees when it runs as a Ray task)."""

    trees: str
    out: str
    name: str
    split: str
    cases: tuple[CorpusCase, ...]
    overrides: Mapping[str, Any]


def collect_one(job: RepoJob, progress: Progress | None = None) -> dict[str, Any]:
    """Collect and write one repository's rows; its summary (cases, pool recall, seconds)."""
    started = time.monotonic()
    rows, index_s = collect_repo(Path(job.trees) / job.name, job.cases, job.overrides,
                                 progress=progress)
    save(rows, Path(job.out) / job.name, {"repo": job.name, "split": job.split})
    recall = sum(c.targets_in_pool == c.targets for c in rows) / len(rows)
    return {"cases": len(rows), "pool_recall": round(recall, 4),
            "index_s": round(index_s, 2), "seconds": round(time.monotonic() - started, 1)}


# The repositories collected elsewhere (`evals.cluster.rows_fan_out`: one Ray task each):
# jobs -> collect_one's summaries, in the jobs' order.
CollectMap = Callable[[Sequence[RepoJob]], list[dict[str, Any]]]


def collect(trees: Path, out: Path, repos: Sequence[tuple[str, str]],
            cases: Sequence[CorpusCase], overrides: Mapping[str, Any],
            progress: Progress | None = None,
            collect_map: CollectMap | None = None) -> dict[str, Any]:
    """Collect every (name, split) repository not collected yet into `out`/<name>.*, here one
    after another or through `collect_map` (the same files either way: a repository's rows
    depend only on its tree and cases)."""
    done: dict[str, Any] = {}
    jobs: list[RepoJob] = []
    for name, split in repos:
        if (out / name).with_name(name + ".json").is_file():
            done[name] = "kept"
            continue
        mine = tuple(c for c in cases if c.repo == name)
        if mine:
            jobs.append(RepoJob(str(trees), str(out), name, split, mine, dict(overrides)))
    if collect_map is None:
        summaries = []
        for job in jobs:
            summaries.append(collect_one(job, progress))
            if progress is not None:
                progress(f"{job.name} [{job.split}]: {json.dumps(summaries[-1])}")
    else:
        summaries = collect_map(jobs)
    done.update((job.name, summary) for job, summary in zip(jobs, summaries, strict=True))
    return {name: done[name] for name, _ in repos if name in done}
