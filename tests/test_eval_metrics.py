"""evals.metrics on hand-made envelopes: hit@k, MRR, checks, aggregates, edge cases."""

from __future__ import annotations

import pytest

from evals.metrics import (
    aggregate,
    error_result,
    first_rank,
    path_matches,
    percentile,
    ranked_items,
    score_case,
    symbol_matches,
)
from evals.suites import Case
from tests import eval_fakes as fakes


def case(files=(), symbols=(), **expect) -> Case:
    return Case.model_validate({"id": "c1", "question": "where is foo?", "repo": "self",
                                "expect": {"files": list(files), "symbols": list(symbols),
                                           **expect}})


def score(c: Case, env, repeat=None, ms: float = 10.0):
    return score_case(c, "suite", env, repeat or env, time_ms=ms, time_ms_repeat=ms)


EV = [fakes.item("a.py"), fakes.item("b.py", symbol="Foo.bar"), fakes.item("c.py"),
      fakes.item("d.py"), fakes.item("e.py"), fakes.item("f.py", text="def target(x):\n  pass")]


def test_path_matching_exact_and_directory_prefix():
    assert path_matches("pkg/a.py", "pkg/a.py")
    assert path_matches("./pkg/a.py", "pkg/a.py")
    assert not path_matches("pkg/a.py.bak", "pkg/a.py")
    assert not path_matches("xpkg/a.py", "pkg/a.py")
    assert path_matches("pkg/sub/a.py", "pkg/")
    assert not path_matches("pkgs/a.py", "pkg/")


def test_symbol_matching_by_qualname_suffix_and_by_definition_text():
    assert symbol_matches(EV[1], "Foo.bar")
    assert symbol_matches(EV[1], "bar")
    assert not symbol_matches(EV[1], "Foo")  # the method is not the class
    assert not symbol_matches(EV[1], "ar")
    assert symbol_matches(EV[5], "target")
    const = fakes.item("k.py", text="X = 1\nLIMIT: int = 5\n")
    assert symbol_matches(const, "LIMIT") and symbol_matches(const, "X")
    assert not symbol_matches(fakes.item("k.py", text="if LIMIT == 5: pass"), "LIMIT")


def test_first_rank_is_one_based_and_none_when_missing():
    assert first_rank(EV, ["c.py"], symbols=False) == 3
    assert first_rank(EV, ["zzz.py", "e.py"], symbols=False) == 5
    assert first_rank(EV, ["nope.py"], symbols=False) is None
    assert first_rank(EV, [], symbols=False) is None
    assert first_rank([], ["a.py"], symbols=False) is None
    assert first_rank(EV, ["target"], symbols=True) == 6


def test_hit_at_k_and_mrr_over_cases():
    env = fakes.envelope("q", EV)
    results = [
        score(case(files=["a.py"]), env),  # rank 1
        score(case(files=["c.py"]), env),  # rank 3
        score(case(files=["f.py"]), env),  # rank 6
        score(case(files=["missing.py"]), env),  # miss
    ]
    totals = aggregate(results)
    assert totals["hit@1"] == 0.25
    assert totals["hit@3"] == 0.5
    assert totals["hit@5"] == 0.5
    assert totals["hit@10"] == 0.75
    assert totals["mrr"] == round((1 + 1 / 3 + 1 / 6 + 0) / 4, 4)
    assert [r.passed for r in results] == [True, True, False, False]


def test_case_rank_is_the_first_hit_of_any_kind():
    result = score(case(files=["e.py"], symbols=["bar"]), fakes.envelope("q", EV))
    assert (result.file_rank, result.symbol_rank, result.rank) == (5, 2, 2)
    assert result.checks["file@5"] and result.checks["symbol@5"] and result.passed


def test_llm_steps_and_controller_steps_and_route_checks():
    c = case(files=["a.py"], route="location")
    bad = score(c, fakes.envelope("q", EV, llm_steps=1, steps=0, route="definition"))
    assert not bad.checks["llm_steps_zero"]
    assert not bad.checks["steps_present"]
    assert not bad.checks["route"]
    assert not bad.passed
    assert aggregate([bad])["wrong_route_rate"] == 1.0


def test_hash_instability_is_detected():
    c = case(files=["a.py"])
    first, second = fakes.envelope("q", EV), fakes.envelope("q", EV, salt="other")
    assert score(c, first, first).checks["hashes_stable"]
    unstable = score(c, first, second)
    assert not unstable.checks["hashes_stable"] and not unstable.passed
    reordered = fakes.envelope("q", list(reversed(EV)))
    assert not score(c, first, reordered).checks["hashes_stable"]


def test_clarify_expectation_needs_two_options_each_with_evidence():
    c = case(files=["opt.md", "pool.md"], stop_reason="dominance_split", clarify=True)
    good = fakes.envelope("what is a cavity?", (), stop_reason="dominance_split",
                          clarify=fakes.clarify([fakes.item("opt.md")], [fakes.item("pool.md")]))
    result = score(c, good)
    assert result.checks["clarify"] and result.checks["stop_reason"] and result.passed
    assert result.file_rank == 1  # option evidence counts when the evidence list is empty
    empty_side = fakes.envelope("q", (), stop_reason="dominance_split",
                                clarify=fakes.clarify([fakes.item("opt.md")], []))
    assert not score(c, empty_side).checks["clarify"]
    none = score(c, fakes.envelope("q", EV))
    assert not none.checks["clarify"] and not none.checks["stop_reason"]
    assert not score(case(clarify=False), good).checks["no_clarify"]


def test_ranked_items_appends_option_evidence_without_duplicates():
    shared = fakes.item("a.py")
    env = fakes.envelope("q", [shared], clarify=fakes.clarify([shared], [fakes.item("b.py")]))
    assert [i.path for i in ranked_items(env)] == ["a.py", "b.py"]


def test_answer_contains_is_case_insensitive():
    env = fakes.envelope("q", EV, answer="The default is WEIGHT.")
    assert score(case(answer_contains=["weight"]), env).checks["answer_contains"]
    assert not score(case(answer_contains=["alpha"]), env).checks["answer_contains"]


def test_aggregate_edge_cases_no_cases_and_no_targets():
    empty = aggregate([])
    assert empty["cases"] == 0 and empty["hit@5"] is None and empty["mrr"] is None
    assert empty["p95_ms"] == 0.0
    untargeted = aggregate([score(case(), fakes.envelope("q", EV))])
    assert untargeted["hit@1"] is None and untargeted["pass_rate"] == 1.0


def test_errors_count_as_misses_and_failures():
    err = error_result(case(files=["a.py"]), "suite", "BadPathError: nope")
    totals = aggregate([err, score(case(files=["a.py"]), fakes.envelope("q", EV))])
    assert totals["errors"] == 1 and totals["hit@1"] == 0.5 and totals["pass_rate"] == 0.5


def test_percentile_nearest_rank():
    assert percentile([], 50) == 0.0
    assert percentile([5.0], 95) == 5.0
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 95) == 95.0
    assert percentile(list(reversed(values)), 95) == 95.0


@pytest.mark.parametrize("ms", [1.0, 250.0])
def test_times_are_kept_per_case(ms):
    result = score(case(files=["a.py"]), fakes.envelope("q", EV), ms=ms)
    assert result.time_ms == ms and aggregate([result])["p50_ms"] == ms
