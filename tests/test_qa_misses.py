"""benchmarks/qa_misses.py: each natural-question miss is put down to the first stage that lost
it (pure classification over spans)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from qa_misses import classify, file_shape, recall_stage

GOLD = [("a.py", 40, 50)]
CLASS = ("a.py", 10, 90)
METHOD = ("a.py", 40, 50)
SIBLING = ("a.py", 60, 70)
OTHERS = [("b.py", 1, 5), ("c.py", 1, 5), ("d.py", 1, 5), ("e.py", 1, 5), ("f.py", 1, 5)]


def test_a_hit_in_the_first_five_is_no_miss() -> None:
    assert classify(GOLD, True, [METHOD], [METHOD], [METHOD]) is None


def test_unhittable_gold_is_counted_apart() -> None:
    assert classify(GOLD, False, [], [], OTHERS) == ("gold_odd", {})
    assert recall_stage(GOLD, False, [], [], OTHERS) == "gold_odd"


def test_compaction_is_blamed_when_the_order_before_it_had_the_hit() -> None:
    cut = ("a.py", 10, 20)  # the method's excerpt, cut to lines outside the stated range
    stage, detail = classify(GOLD, True, [METHOD], [METHOD, *OTHERS], [cut, *OTHERS])
    assert stage == "compaction" and detail == {"rank_before": 1, "kept_at": None}


def test_the_right_file_with_the_wrong_span() -> None:
    stage, detail = classify(GOLD, True, [SIBLING, *OTHERS, METHOD],
                             [SIBLING, *OTHERS, METHOD], [SIBLING, *OTHERS, METHOD])
    assert stage == "span_in_file"
    assert detail == {"shape": "sibling", "gold_in_pool": True, "rank": 7}
    assert file_shape(CLASS, GOLD) == "container"
    assert file_shape(("a.py", 42, 44), [("a.py", 30, 60)]) == "inside"


def test_a_candidate_ranked_too_low_and_one_never_found() -> None:
    assert classify(GOLD, True, [*OTHERS, METHOD], [*OTHERS, METHOD], [*OTHERS, METHOD]) == (
        "rank", {"rank": 6})
    assert classify(GOLD, True, [*OTHERS, SIBLING], [*OTHERS], OTHERS) == (
        "pool", {"file_in_pool": True})
    assert recall_stage(GOLD, True, [*OTHERS, SIBLING], OTHERS, OTHERS) == "pool"
    assert recall_stage(GOLD, True, [METHOD], [METHOD], OTHERS) == "compaction"


def test_a_candidate_cut_with_the_evidence_list_is_the_budgets() -> None:
    assert classify(GOLD, True, [*OTHERS, METHOD], OTHERS, OTHERS) == ("budget", {})
    assert recall_stage(GOLD, True, [*OTHERS, METHOD], OTHERS, OTHERS) == "budget"
