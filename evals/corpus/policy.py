"""Helix's policy on the corpus: each case's message asked of Helix's index of the tree at R.

Each repository's tree at its revision R (`helix eval corpus trees`) is indexed once (lexical:
`index.embed_enabled = false`; with `embed`, the default embeddings, every vector embedded before
the first case as `helix ask --wait` does), then every case's message goes through
`helix.service.ask` with `dry_run=True`, the entry point `helix ask --dry-run` uses. `capped` takes
a seeded, order-free share of a repository's cases when a run cannot afford them all. Scored from
the envelope's evidence, in order (every item counts, whatever its kind):

- function rank: the position of the last target definition to appear (all targets within
  the top k: the LocAgent / SweRank unit); an item is a target when its path and symbol are
  the target's and its lines overlap the target's (a long definition is several windows);
- file rank: the same over the evidence's distinct files, in order of first appearance.

None: never listed. Pure scoring apart from `run_repo` (index + ask).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.corpus.mine import CorpusCase, Target
from helix.core.envelope import EvidenceItem
from helix.core.hashing import hash_obj

KS = (1, 5, 10)
CAP_SEED = "adapt32-cap"
Progress = Callable[[str], None]


def is_target(item: EvidenceItem | Any, target: Target) -> bool:
    return (item.path == target.path and item.symbol == target.qualname
            and item.start_line <= target.end and item.end_line >= target.start)


def case_ranks(case: CorpusCase, items: Sequence[Any]) -> dict[str, int | None]:
    """{function_rank, file_rank} of one case from the evidence items, in order."""
    found: list[int | None] = []
    for target in case.targets:
        found.append(next((n for n, item in enumerate(items, start=1)
                           if is_target(item, target)), None))
    function_rank = None if None in found else max(f for f in found if f is not None)
    files: dict[str, int] = {}
    for item in items:
        files.setdefault(item.path, len(files) + 1)
    file_found = [files.get(t.path) for t in case.targets]
    file_rank = None if None in file_found else max(f for f in file_found if f is not None)
    return {"function_rank": function_rank, "file_rank": file_rank}


def summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Acc@1/5/10 at function and file level (a share of the cases)."""
    if not rows:
        return {"cases": 0}
    out: dict[str, Any] = {"cases": len(rows)}
    for level in ("function", "file"):
        for k in KS:
            hits = sum(1 for r in rows if r[f"{level}_rank"] is not None
                       and r[f"{level}_rank"] <= k)
            out[f"{level}_acc@{k}"] = round(hits / len(rows), 4)
    return out


def capped(cases: Sequence[CorpusCase], cap: int | None,
           seed: str = CAP_SEED) -> list[CorpusCase]:
    """At most `cap` of one repository's cases: the first by `hash_obj([seed, case id])`, then
    back in their given order (None: all of them). The same cases whatever their order."""
    if cap is None or len(cases) <= cap:
        return list(cases)
    chosen = {c.id for c in sorted(cases, key=lambda c: (hash_obj([seed, c.id]), c.id))[:cap]}
    return [c for c in cases if c.id in chosen]


def index_flags(overrides: Mapping[str, Any], embed: bool = False) -> dict[str, Any]:
    """The settings the tree is indexed and asked with: lexical, or with `embed` the default
    embeddings, all embedded before the first ask (no background worker); then `overrides`."""
    base: dict[str, Any] = ({"index.background_dense": False} if embed
                            else {"index.embed_enabled": False})
    return {**base, **overrides}


def index_tree(root: Path, overrides: Mapping[str, Any],
               embed: bool = False) -> tuple[Any, Any, float]:
    """(index, config, seconds): Helix's index of `root` (lexical unless `embed`), built or
    refreshed."""
    from helix.core.config import load_config
    from indexers.build import ensure_index

    config = load_config(root, flags=index_flags(overrides, embed))
    started = time.perf_counter()
    index, _report = ensure_index(root, config)
    return index, config, time.perf_counter() - started


def run_repo(root: Path, cases: Sequence[CorpusCase], overrides: Mapping[str, Any],
             progress: Progress | None = None,
             embed: bool = False) -> tuple[list[dict[str, Any]], float]:
    """(one row per case, index seconds): every case asked through `helix.service.ask`."""
    import sqlite_utils

    from helix.runlog import RunLog
    from helix.service import ask

    _index, config, index_s = index_tree(root, overrides, embed)
    runlog = RunLog(sqlite_utils.Database(memory=True))  # thousands of runs: not kept
    rows: list[dict[str, Any]] = []
    for number, case in enumerate(cases, start=1):
        started = time.perf_counter()
        error = None
        items: Sequence[Any] = ()
        try:
            result = ask(case.message, root=root, config=config, dry_run=True, runlog=runlog,
                         notify=lambda _line: None)
            items = result.envelope.evidence
        except Exception as exc:  # a crashing case is a miss, reported; the run goes on
            error = f"{type(exc).__name__}: {exc}"
        rows.append({"id": case.id, "targets": len(case.targets),
                     "names_target": case.names_target, **case_ranks(case, items),
                     "items": len(items), "seconds": round(time.perf_counter() - started, 4),
                     **({"error": error} if error else {})})
        if progress is not None and number % 50 == 0:
            progress(f"{case.repo} {number}/{len(cases)}")
    runlog.close()
    return rows, index_s
