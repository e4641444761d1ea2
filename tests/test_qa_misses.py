"""benchmarks/qa_misses.py: each natural-question miss is put down to the first stage that lost
it (pure classification over spans)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from qa_misses import Recorder, classify, file_shape, recall_stage

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


def test_the_learned_order_is_the_ranked_stage(tmp_path: Path) -> None:
    """Under the learned ranker the order compaction reads is the model's: the recorder keeps
    it as `ranked`, and the hand order's candidates stay in the pool."""
    from collections.abc import Sequence
    from typing import Any

    from golden_files import real_index

    from controller.driver import run_controller
    from controller.evidence import evidence_id
    from controller.question import read_question
    from helix.core.ports import FakeClock

    class Reversed:
        routes = None

        def score(self, pooled: Sequence[Any], rows: Sequence[Sequence[float]]
                  ) -> Sequence[float]:
            return [float(n) for n in range(len(pooled))]

    repo = real_index({"a.py": "def backoff(attempt):\n    return 2 ** attempt\n",
                       "b.py": "def retry(request):\n    return backoff(1)\n"},
                      tmp_path, embed=False)
    retrieval = repo.config.retrieval.model_copy(update={
        "ranker": repo.config.retrieval.ranker.model_copy(update={"mode": "learned"})})
    config = repo.config.model_copy(update={"retrieval": retrieval})
    recorder = Recorder()
    with recorder.installed():
        env = run_controller(read_question("retry backoff attempt fails", config.retrieval),
                             repo.index, config, query_embedder=None, clock=FakeClock(),
                             ranker=Reversed())
    ranked = [evidence_id(c.chunk) for c in recorder.ranked]
    sent = [e.id for e in env.evidence]
    assert len(sent) > 1 and sent == [i for i in ranked if i in set(sent)]
    assert ranked[0] != evidence_id(recorder.pool[0].chunk)  # the model's order, not the hand's
    assert {evidence_id(c.chunk) for c in recorder.pool} >= set(ranked)


def test_a_ranked_symbol_or_path_naming_a_reserved_project_is_not_written() -> None:
    from types import SimpleNamespace

    from qa_misses import ranked_item

    from evals.reserved import RESERVED_NAME, RESERVED_PATH

    def item(path: str, symbol: str | None) -> SimpleNamespace:
        chunk = SimpleNamespace(path=path, start_line=3, end_line=9, kind="code_def",
                                symbol=symbol)
        return SimpleNamespace(chunk=chunk, reasons=[SimpleNamespace(code="bm25", channel="")])

    assert ranked_item(item("src/tracer.py", "JinjaAnalyzer.slice")) == {
        "span": "src/tracer.py:3-9", "kind": "code_def", "symbol": RESERVED_NAME, "why": "bm25"}
    assert ranked_item(item("src/templaters/jinja.py", None))["span"] == f"{RESERVED_PATH}:3-9"
    assert ranked_item(item("src/tracer.py", "Tracer.slice"))["symbol"] == "Tracer.slice"


def test_symbol_misses_are_put_down_to_their_stage_too() -> None:
    from qa_misses import _counts

    def row(stage: str | None, symbol_stage: str | None, hit: bool) -> dict[str, object]:
        return {"stage": stage, "class": None, "recall_stage": None, "gold_shapes": [],
                "detail": {"file_in_pool": False}, "with_symbols": True, "symbol_hit": hit,
                "symbol_stage": symbol_stage}

    counts = _counts([row(None, None, True), row(None, "rank", False),
                      row("pool", "pool", False)])
    assert counts["symbol_hits"] == 1 and counts["with_symbols"] == 3
    assert counts["symbol_stages"]["rank"] == 1 and counts["symbol_stages"]["pool"] == 1
    assert counts["stages"]["pool"] == 1 and counts["stages"]["rank"] == 0
