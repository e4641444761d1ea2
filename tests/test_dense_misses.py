"""benchmarks/dense_misses.py (round 32): where the dense channel's hits are lost, one fate per
question, from the dense lists, the pool, the order before compaction and the evidence."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from dense_misses import dense_fate, merged, tally  # noqa: E402

GOLD = [("a.py", 10, 20)]
OTHER = [("b.py", 1, 5), ("c.py", 1, 5), ("d.py", 1, 5), ("e.py", 1, 5), ("f.py", 1, 5)]


def test_each_fate() -> None:
    hit = [("a.py", 12, 14), *OTHER]
    assert dense_fate(GOLD, hit, hit, hit, hit) == "hit"
    assert dense_fate(GOLD, OTHER, hit, hit, OTHER) == "dense_none"
    assert dense_fate(GOLD, hit, OTHER, OTHER, OTHER) == "not_admitted"
    assert dense_fate(GOLD, hit, hit, hit, OTHER) == "compaction"
    sibling = [("a.py", 40, 50), *OTHER[:4]]
    assert dense_fate(GOLD, hit, [*sibling, *hit], [*sibling, *OTHER, *hit],
                      sibling) == "wrong_span"
    assert dense_fate(GOLD, hit, [*OTHER, *hit], [*OTHER, *hit], OTHER) == "fused_below"


def test_merged_keeps_each_span_at_its_best_rank() -> None:
    one = [("x.py", 1, 2), ("y.py", 1, 2), ("z.py", 1, 2)]
    two = [("z.py", 1, 2), ("x.py", 1, 2)]
    assert merged([one, two]) == [("x.py", 1, 2), ("z.py", 1, 2), ("y.py", 1, 2)]
    assert merged([]) == []


def test_tally_bands_by_the_dense_rank() -> None:
    rows: list[dict[str, Any]] = [
        {"fate": "hit", "dense_rank": 2}, {"fate": "fused_below", "dense_rank": 3},
        {"fate": "fused_below", "dense_rank": 9}, {"fate": "dense_none", "dense_rank": None}]
    out = tally(rows)
    assert out["fates"]["fused_below"] == 2 and out["questions"] == 4
    assert out["by_dense_rank"] == {"1-5:fused_below": 1, "1-5:hit": 1,
                                    "6+:fused_below": 1, "none:dense_none": 1}
