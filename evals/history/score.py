"""Scoring one ranked list of files against a case's gold files, and the aggregates (pure).

- A system's ranking is its list of *distinct* files, best first (Helix: the paths of its
  evidence in rank order, then any clarifier options' evidence, each path once).
- `first_rank`: the 1-based rank of the highest-ranked gold file; None when no gold file is
  ranked. `all_rank`: the rank at which the last gold file appears (so every gold file is in
  the top `all_rank`); None when some gold file is not ranked at all.
- Acc@k: the share of cases whose `all_rank <= k` (ALL gold files in the top k files).
- MRR: the mean over cases of 1 / `first_rank` (0 for a case with no gold file ranked).
- Time: p50 / p95 (nearest rank) and mean of the per-case seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evals.metrics import percentile
from helix.core.schemas import Frozen

KS: tuple[int, ...] = (1, 3, 5, 10)
TOP_FILES = 10  # files kept per case in the report


class SystemScore(Frozen):
    first_rank: int | None
    all_rank: int | None
    top: tuple[str, ...]  # the first TOP_FILES distinct files
    ranked: int = 0  # how many distinct files the system ranked in all
    seconds: float
    error: str | None = None


def distinct_files(paths: Iterable[str]) -> list[str]:
    """Paths in order, each kept at its first occurrence."""
    seen: set[str] = set()
    out: list[str] = []
    for path in paths:
        if path not in seen:
            seen.add(path)
            out.append(path)
    return out


def gold_ranks(ranked: Sequence[str], gold: Sequence[str]) -> tuple[int | None, int | None]:
    """(first_rank, all_rank) of `gold` in the distinct ranking `ranked`."""
    position = {path: i for i, path in enumerate(ranked, start=1)}
    wanted = set(gold)
    found = [position[g] for g in wanted if g in position]
    if not found:
        return None, None
    return min(found), (max(found) if len(found) == len(wanted) else None)


def score(ranked_paths: Iterable[str], gold: Sequence[str], seconds: float,
          error: str | None = None) -> SystemScore:
    ranked = distinct_files(ranked_paths)
    first, every = gold_ranks(ranked, gold)
    return SystemScore(first_rank=first, all_rank=every, top=tuple(ranked[:TOP_FILES]),
                       ranked=len(ranked), seconds=round(seconds, 4), error=error)


def _rate(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def summarize(scores: Sequence[SystemScore]) -> dict[str, float | int | None]:
    """cases, errors, acc@1/3/5/10, mrr, p50_s, p95_s, mean_s."""
    n = len(scores)
    out: dict[str, float | int | None] = {"cases": n,
                                          "errors": sum(1 for s in scores if s.error)}
    for k in KS:
        out[f"acc@{k}"] = _rate([s.all_rank is not None and s.all_rank <= k for s in scores])
    out["mrr"] = (round(sum(1.0 / s.first_rank for s in scores if s.first_rank) / n, 4)
                  if n else None)
    times = [s.seconds for s in scores]
    out["p50_s"] = round(percentile(times, 50), 4)
    out["p95_s"] = round(percentile(times, 95), 4)
    out["mean_s"] = round(sum(times) / n, 4) if n else 0.0
    return out
