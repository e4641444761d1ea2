"""The runner (with fake dry runs), the continuity dispatch, A/B gates and pinned baselines."""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path

import pytest

from evals.baseline_bm25 import BM25Files
from evals.gates import (
    GateSettings,
    evaluate_gates,
    list_baselines,
    load_baseline,
    load_named_config,
    pin_baseline,
)
from evals.metrics import aggregate
from evals.runner import (
    RunResult,
    SuiteResult,
    continuity_report,
    resolve_repo,
    run_cases,
)
from evals.suites import Case
from helix.core.errors import BadPathError, NotFoundError, UserError
from tests import eval_fakes as fakes

# a repository built under the same configuration as before this session is a copy of that
# build (tests/_index_cache.py): networkx is built once for this module and test_build.py
pytestmark = pytest.mark.usefixtures("cached_builds")

def mk_case(i: int, files=("a.py",), repo="self", **expect) -> Case:
    return Case.model_validate({"id": f"c{i}", "question": f"question {i}?", "repo": repo,
                                "expect": {"files": list(files), **expect}})


def ticking_timer(step: float = 0.01):
    ticks = count()
    return lambda: next(ticks) * step


def test_run_cases_asks_twice_times_and_scores():
    asked: list[str] = []

    def ask(question: str):
        asked.append(question)
        return fakes.envelope(question, [fakes.item("b.py"), fakes.item("a.py")])

    results = run_cases("s", [mk_case(1), mk_case(2, files=("z.py",))], lambda repo: ask,
                        timer=ticking_timer())
    assert asked == ["question 1?", "question 1?", "question 2?", "question 2?"]
    assert [r.file_rank for r in results] == [2, None]
    assert results[0].time_ms == pytest.approx(10.0) and results[0].checks["hashes_stable"]


def test_run_cases_turns_errors_into_failed_cases_and_goes_on():
    def ask_for(repo: str):
        if repo == "/nope":
            raise BadPathError(f"eval repository not found: {repo}")
        if repo == "/bug":
            return lambda q: [][0]
        return lambda q: fakes.envelope(q, [fakes.item("a.py")])

    cases = [mk_case(1, repo="/nope"), mk_case(2, repo="/bug"), mk_case(3)]
    missing, crashed, fine = run_cases("s", cases, ask_for)
    assert not missing.passed and "BadPathError" in (missing.error or "")
    assert not crashed.passed and "IndexError" in (crashed.error or "")
    assert fine.passed


def test_run_cases_detects_nondeterminism_between_the_two_runs():
    calls = count()

    def ask(question: str):
        return fakes.envelope(question, [fakes.item("a.py")], salt=str(next(calls)))

    [result] = run_cases("s", [mk_case(1)], lambda repo: ask)
    assert not result.checks["hashes_stable"] and not result.passed


def test_resolve_repo_specs(tmp_path):
    assert (resolve_repo("self") / "evals" / "runner.py").is_file()
    assert resolve_repo("fixture:matrix_repo").name == "matrix_repo"
    assert resolve_repo(str(tmp_path)) == tmp_path.resolve()
    with pytest.raises(BadPathError):
        resolve_repo("fixture:nope")
    with pytest.raises(BadPathError):
        resolve_repo(str(tmp_path / "missing"))


def test_networkx_is_copied_once_into_helix_home(helix_home):
    first = resolve_repo("networkx")
    assert first == helix_home / "eval-repos" / "networkx"
    assert (first / "algorithms" / "shortest_paths" / "weighted.py").is_file()
    assert not list(first.rglob("__pycache__"))
    marker = (first / ".helix-eval-source").stat().st_mtime_ns
    assert resolve_repo("networkx") == first
    assert (first / ".helix-eval-source").stat().st_mtime_ns == marker


def test_an_installed_package_is_copied_once_by_name(helix_home):
    first = resolve_repo("package:click")
    assert (first / "core.py").is_file() and first.name == "package-click"
    assert (first / ".helix-eval-source").read_text(encoding="utf-8").startswith("click ")
    assert resolve_repo("package:click") == first
    for bad in ("package:no_such_package_here", "package:not-an-identifier"):
        with pytest.raises(BadPathError):
            resolve_repo(bad)


def test_continuity_report_rates_per_transition_class():
    outcomes = {
        "a": {"id": "a", "passed": True, "per_turn": [], "transition_classes": ["T1", "T3"]},
        "b": {"id": "b", "passed": False, "per_turn": [], "transition_classes": ["T3", "T10"]},
        "c": {"id": "c", "passed": False, "per_turn": [],
              "transition_classes": {"T2": True, "T7": False}},
    }
    report = continuity_report([{"id": k} for k in ("a", "b", "c")], lambda c: outcomes[c["id"]])
    by = report["by_class"]
    assert list(by) == ["T1", "T2", "T3", "T7", "T10"]  # numeric class order
    assert by["T3"] == {"cases": 2, "passed": 1, "pass_rate": 0.5}
    assert by["T2"]["pass_rate"] == 1.0 and by["T7"]["pass_rate"] == 0.0
    assert report["pass_rate"] == round(1 / 3, 4)


def test_continuity_report_keeps_going_after_a_failing_scenario():
    def run_case(case):
        if case["id"] == "x":
            raise NotFoundError("unknown session")
        if case["id"] == "y":
            raise ValueError("a bug in the lane")
        return {"id": "z", "passed": True, "per_turn": [], "transition_classes": ["T4"]}

    cases = [{"id": "x", "transition_classes": ["T4"]},
             {"id": "y", "turns": [{"text": "a", "expect": {"transition": "T10"}},
                                   {"text": "b", "expect": {"transition": "T3"}}]},
             {"id": "z"}]
    report = continuity_report(cases, run_case)
    rows = {r["id"]: r for r in report["cases"]}
    assert rows["x"]["passed"] is False and "unknown session" in rows["x"]["error"]
    assert rows["y"]["passed"] is False and "ValueError: a bug" in rows["y"]["error"]
    assert rows["z"]["passed"] is True
    assert report["by_class"]["T4"] == {"cases": 2, "passed": 1, "pass_rate": 0.5}
    assert rows["y"]["transition_classes"] == ["T3", "T10"]  # from the turns' expectations
    assert report["by_class"]["T10"]["pass_rate"] == 0.0


def run_result(label: str, ranks: list[int | None], *, ms: float = 100.0,
               clarified: int = 0, wrong_routes: int = 0) -> RunResult:
    results = []
    for i, rank in enumerate(ranks):
        evidence = [fakes.item(f"other{j}.py") for j in range((rank or 20) - 1)]
        if rank is not None:
            evidence.append(fakes.item("a.py"))
        clar = (fakes.clarify([fakes.item("x.py")], [fakes.item("y.py")])
                if i < clarified else None)
        route = "definition" if i < wrong_routes else "location"
        env = fakes.envelope(f"q{i}", evidence, clarify=clar, route=route)
        results.extend(run_cases("s", [mk_case(i, route="location")], lambda repo, e=env: (
            lambda q: e), timer=ticking_timer(ms / 1000.0)))
    suite = SuiteResult(name="s", kind="retrieval", cases=tuple(results),
                        totals=aggregate(results))
    return RunResult(label=label, overrides={}, config_hash="sha256:x", no_embed=True,
                     suites=(suite,))


def test_gates_promote_only_an_improvement_that_holds_every_gate():
    base = run_result("base", [1, 3, None, 2])
    better = run_result("cand", [1, 1, 4, 2])
    decision = evaluate_gates(base, better)
    assert decision.decision == "promote", decision.reasons
    assert all(g.passed for g in decision.gates)


def test_an_identical_candidate_holds_and_never_rolls_back_on_noise():
    base = run_result("base", [1, 3, None, 2])
    for noise in (100.0, 180.0, 340.0):  # the same answers, slower by up to 240 ms
        same = evaluate_gates(base, run_result("same", [1, 3, None, 2], ms=noise))
        assert same.decision == "hold" and "nothing improved" in same.reasons[0]


def test_each_contract_gate_rolls_back_past_its_threshold():
    base = run_result("base", [1, 3, None, 2])
    worse = evaluate_gates(base, run_result("worse", [2, None, None, 2]))
    assert worse.decision == "rollback"
    assert {g.metric for g in worse.gates if not g.passed} == {"hit@5", "mrr"}
    slow = evaluate_gates(base, run_result("slow", [1, 1, 1, 1], ms=400.0))  # +300 ms
    assert slow.decision == "rollback"
    assert [g.metric for g in slow.gates if not g.passed] == ["p95_ms"]
    p95 = next(g for g in slow.gates if g.metric == "p95_ms")
    assert p95.rule.startswith("rise <= 250 ms") and p95.candidate_ci is not None
    chatty = evaluate_gates(base, run_result("chatty", [1, 1, 1, 1], clarified=2))
    assert [g.metric for g in chatty.gates if not g.passed] == ["clarifier_rate"]
    misrouted = evaluate_gates(base, run_result("misrouted", [1, 1, 1, 1], wrong_routes=1))
    assert [g.metric for g in misrouted.gates if not g.passed] == ["wrong_route_rate"]


def test_clarifier_gate_is_relative_and_wrong_actions_absolute():
    base = run_result("base", [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], clarified=5)
    same_rate = evaluate_gates(base, run_result("c", [1] * 10, clarified=5))
    assert next(g for g in same_rate.gates if g.metric == "clarifier_rate").limit == 0.55
    one_more = evaluate_gates(base, run_result("c", [1] * 10, clarified=6))  # +20% relative
    assert not next(g for g in one_more.gates if g.metric == "clarifier_rate").passed


def _scenario_run(label: str, turns: list[tuple[bool, int, int]]) -> RunResult:
    rows = [{"turn": i, "passed": ok, "retries": r, "unchanged_retries": u}
            for i, (ok, r, u) in enumerate(turns, start=1)]
    suite = SuiteResult(name="continuity/T3", kind="continuity", continuity={
        "cases": [{"id": "c1", "passed": all(ok for ok, _, _ in turns), "per_turn": rows}],
        "by_class": {}})
    return RunResult(label=label, overrides={}, config_hash="sha256:x", no_embed=True,
                     suites=(suite,))


def test_continuity_gates_wrong_actions_and_unchanged_fingerprint_retries():
    base = _scenario_run("base", [(True, 1, 0)] * 10)
    wrong = evaluate_gates(base, _scenario_run("w", [(False, 1, 0)] + [(True, 1, 0)] * 9))
    assert wrong.decision == "rollback"
    assert [g.metric for g in wrong.gates if not g.passed] == ["wrong_action_rate"]
    looping = evaluate_gates(base, _scenario_run("l", [(True, 1, 1)] + [(True, 1, 0)] * 9))
    assert looping.decision == "halt"  # 10% of retries with an unchanged fingerprint
    fixed = evaluate_gates(_scenario_run("b", [(False, 1, 0)] + [(True, 1, 0)] * 9), base)
    assert fixed.decision == "promote" and "wrong_action_rate" in fixed.reasons[0]


def test_holdout_suites_are_gated_apart():
    main, holdout = run_result("m", [1, 1]), run_result("h", [1, 1])
    held = holdout.suites[0].model_copy(update={"name": "s_holdout"})
    base = main.model_copy(update={"suites": (main.suites[0], held)})
    worse_holdout = run_result("w", [None, None]).suites[0].model_copy(
        update={"name": "s_holdout"})
    cand = main.model_copy(update={"suites": (main.suites[0], worse_holdout)})
    decision = evaluate_gates(base, cand)
    assert decision.decision == "rollback"
    assert {g.metric for g in decision.gates if not g.passed} == {"hit@5 (holdout)",
                                                                  "mrr (holdout)"}


def test_gate_tolerances_are_settings():
    base = run_result("base", [1, 1, 1, 1])
    cand = run_result("cand", [1, 1, 1, 1], ms=120.0)
    strict = GateSettings(p95_rise_ms=0.0)
    assert not next(g for g in evaluate_gates(base, cand, strict).gates
                    if g.metric == "p95_ms").passed
    assert next(g for g in evaluate_gates(base, cand).gates if g.metric == "p95_ms").passed


def test_runs_that_are_not_comparable_are_refused():
    base = run_result("base", [1])
    other = base.model_copy(update={"suites": (base.suites[0].model_copy(update={"name": "t"}),)})
    with pytest.raises(UserError, match="not comparable: suites s, t"):
        evaluate_gates(base, other)
    more = run_result("more", [1, 2])
    with pytest.raises(UserError, match="other cases"):
        evaluate_gates(base, more)
    embedded = base.model_copy(update={"no_embed": False})
    with pytest.raises(UserError, match="embeddings"):
        evaluate_gates(base, embedded)


def test_pinned_baseline_is_never_overwritten(helix_home):
    first = run_result("first", [1, 2])
    path = pin_baseline("main", first)
    before = path.read_bytes()
    with pytest.raises(UserError, match="never overwritten"):
        pin_baseline("main", run_result("second", [None, None]))
    assert path.read_bytes() == before
    assert load_baseline("main") == first
    assert list_baselines() == ["main"]
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    with pytest.raises(NotFoundError):
        load_baseline("nothing")
    with pytest.raises(UserError, match="bad baseline name"):
        pin_baseline("../escape", first)


def test_named_configurations_load_as_dotted_overrides(tmp_path):
    label, flags = load_named_config("lexical_router")
    assert label == "lexical_router" and flags["retrieval.w_dense"] == 0.0
    assert load_named_config("default") == ("default", {})
    custom = tmp_path / "mine.toml"
    custom.write_text("[retrieval]\nmax_steps = 2\n")
    assert load_named_config(str(custom)) == ("mine", {"retrieval.max_steps": 2})
    with pytest.raises(NotFoundError, match="unknown eval configuration"):
        load_named_config("nope")


def test_bm25_files_baseline_ranks_whole_files(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "retry.py").write_text("def retry_policy():\n    'backoff retry'\n")
    (tmp_path / "pkg" / "other.py").write_text("def unrelated():\n    return 1\n")
    (tmp_path / "README.md").write_text("# Project\nSee pkg.\n")
    baseline = BM25Files.build(tmp_path)
    assert baseline.paths == ["README.md", "pkg/other.py", "pkg/retry.py"]
    assert baseline.rank("where is the retry backoff?", 1) == ["pkg/retry.py"]
    assert baseline.file_rank("where is the retry backoff?", ["pkg/retry.py"]) == 1
    summary = BM25Files.summarize({"a": 1, "b": 4, "c": None})
    assert summary["file_hit@1"] == round(1 / 3, 4) and summary["file_hit@5"] == round(2 / 3, 4)
    assert summary["mrr"] == round((1 + 0.25) / 3, 4)


def test_cli_lists_suites_and_configs(helix_home):
    from click.testing import CliRunner

    from evals.cli.eval_cmd import command

    out = CliRunner().invoke(command, ["--list", "--json"])
    assert out.exit_code == 0, out.output
    listing = json.loads(out.output)
    assert "matrix" in listing["suites"] and "lexical_router" in listing["configs"]
    human = CliRunner().invoke(command, ["--list"]).output  # human text unless --json
    assert human.startswith("suites: ") and "configs: " in human and "{" not in human


# ---- end to end: the real index and controller, embeddings disabled --------------------------

def test_matrix_suite_runs_end_to_end_without_embeddings(helix_home):
    from evals.runner import Runner
    from evals.suites import load_suite

    run = Runner(no_embed=True).run([load_suite("matrix")])
    [suite] = run.suites
    cases = {c.id: c for c in suite.cases}
    assert all(c.error is None for c in cases.values()), [c.error for c in cases.values()]
    for case in cases.values():
        assert case.llm_steps == 0 and case.checks["llm_steps_zero"], case.id
        assert case.steps > 0 and case.checks["steps_present"], case.id
        assert case.checks["hashes_stable"], case.id
    split = cases["matrix-cavity-split"]
    assert split.stop_reason == "dominance_split", split
    assert split.checks["clarify"], "two options, each with evidence"
    assert suite.totals["llm_steps_zero_rate"] == 1.0 and suite.totals["hash_stable_rate"] == 1.0
    assert suite.bm25_files is not None and suite.bm25_files["cases"] == len(suite.cases)


def test_three_networkx_questions_without_embeddings(helix_home, tmp_path):
    """Asked of networkx without its tests (the tree test_build.py's smoke test indexes: one
    build a session between them, tests/_index_cache.py); the copy the suite names is
    test_networkx_is_copied_once_into_helix_home's."""
    from evals.runner import Runner
    from evals.suites import load_suite
    from tests._index_cache import networkx_tree

    picked = {"nx-dijkstra-path-where", "nx-pagerank-alpha", "nx-read-graphml"}
    suite = load_suite("networkx")
    root = str(networkx_tree(tmp_path))
    small = suite.model_copy(update={"cases": tuple(
        c.model_copy(update={"repo": root}) for c in suite.cases if c.id in picked)})
    assert len(small.cases) == 3 and {c.repo for c in suite.cases} == {"networkx"}
    [result] = Runner(no_embed=True).run([small]).suites
    assert {c.id for c in result.cases} == picked
    for case in result.cases:
        assert case.error is None and case.checks["llm_steps_zero"] and case.checks["hashes_stable"]
    assert result.totals["hit@10"] is not None
    assert result.bm25_files is not None and result.bm25_files["cases"] == 3


def test_report_pools_transition_classes_across_continuity_suites():
    from evals.report import pooled_classes, result_json

    def suite(name, classes):
        rows = {k: {"cases": n, "passed": p, "pass_rate": p / n} for k, (n, p) in classes.items()}
        return SuiteResult(name=name, kind="continuity", continuity={"by_class": rows})

    run = RunResult(label="x", overrides={}, config_hash="sha256:x", no_embed=True,
                    suites=(suite("continuity/T1", {"T1": (2, 2), "T10": (1, 0)}),
                            suite("continuity/T3", {"T1": (1, 0), "T3": (3, 3)})))
    pooled = pooled_classes(run)
    assert list(pooled) == ["T1", "T3", "T10"]
    assert pooled["T1"] == {"cases": 3, "passed": 2, "pass_rate": round(2 / 3, 4)}
    assert result_json(run)["continuity_by_class"]["T10"]["pass_rate"] == 0.0


def _timed_by_the_test(monkeypatch):
    """Every question of a Runner timed by a ticking clock (10 ms an ask): the gates compare
    the evidence; the p95 gate itself is tested on fake times above, and latency is measured
    by benchmarks, not by a test (on a busy machine the second run of the same configuration
    can be 250 ms slower than the first at p95, and "hold" becomes "rollback")."""
    import evals.runner

    real = evals.runner.run_cases
    monkeypatch.setattr(evals.runner, "run_cases",
                        lambda *args, **kw: real(*args, timer=ticking_timer(), **kw))


def test_cli_runs_pins_and_compares_through_main(helix_home, tmp_path, capsys, monkeypatch):
    from helix.cli.main import main

    _timed_by_the_test(monkeypatch)
    out = tmp_path / "result.json"
    main(["eval", "matrix", "--no-embed", "--pin-baseline", "b1", "--json", "--out", str(out)])
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(out.read_text())
    assert printed == saved and saved["pinned_baseline"].endswith("b1.json")
    assert saved["summary"]["matrix"]["p95_ms"] == 10.0  # the test's clock
    assert saved["summary"]["matrix"]["llm_steps_zero_rate"] == 1.0
    assert "bm25_files" in saved["summary"]["matrix"]["helix_vs_bm25_files"]["file_hit@5"]

    main(["eval", "matrix", "--no-embed", "--baseline", "b1", "--candidate-config", "deep_loop",
          "--json"])
    decision = json.loads(capsys.readouterr().out)["decision"]
    gates = {g["metric"]: g for g in decision["gates"]}
    improved = any(gates[m]["candidate"] > gates[m]["baseline"] for m in ("hit@5", "mrr"))
    held = all(g["passed"] for g in decision["gates"])
    assert decision["decision"] == ("promote" if held and improved else
                                    "hold" if held else "rollback")
    assert decision["reasons"]
    # the baseline's own configuration again: the same evidence, nothing improved: hold
    main(["eval", "matrix", "--no-embed", "--baseline", "b1", "--candidate-config", "default",
          "--json"])
    same = json.loads(capsys.readouterr().out)["decision"]
    assert same["decision"] == "hold", same["reasons"]
    assert [(g["baseline"], g["candidate"]) for g in same["gates"][:2]] == [
        (g["baseline"], g["baseline"]) for g in same["gates"][:2]]
    assert [g["metric"] for g in decision["gates"]] == [
        "hit@5", "mrr", "clarifier_rate", "wrong_route_rate", "p95_ms"]
    assert decision["baseline_label"] == "b1 (default)"

    with pytest.raises(SystemExit) as exc:
        main(["eval", "matrix", "--no-embed", "--pin-baseline", "b1"])
    assert exc.value.code == 2
    assert "never overwritten" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["eval", "no-such-suite"])
    assert exc.value.code == 2 and "unknown eval suite" in capsys.readouterr().err


def test_answerer_variants_gate_answer_level_metrics(helix_home, capsys):
    """Two answerers compared with test models: one that cites its evidence, one that claims
    there is none: the second's fallback and contract-violation rates roll it back."""
    from helix.cli.main import main

    main(["eval", "matrix", "--no-embed", "--answerer", "fake/echo", "--pin-baseline", "echo",
          "--json"])
    pinned = json.loads(capsys.readouterr().out)["summary"]["matrix"]
    assert pinned["answered"] > 0 and pinned["fallback_rate"] == 0.0
    assert pinned["citation_validity"] == 1.0
    main(["eval", "matrix", "--no-embed", "--baseline", "echo", "--answerer",
          "fake/say:There is no evidence about this in the repository.", "--json"])
    decision = json.loads(capsys.readouterr().out)["decision"]
    failed = {g["metric"] for g in decision["gates"] if not g["passed"]}
    assert decision["decision"] == "rollback"
    assert {"fallback_rate", "contract_violation_rate"} <= failed


def test_a_changed_index_is_not_comparable_unless_the_candidate_changed_it():
    base = run_result("base", [1]).model_copy(update={"index_revs": {"/r": "sha256:a"}})
    moved = base.model_copy(update={"index_revs": {"/r": "sha256:b"}})
    with pytest.raises(UserError, match="index of /r changed"):
        evaluate_gates(base, moved)
    reindexed = moved.model_copy(update={"overrides": {"index.max_chunk_lines": 40}})
    assert evaluate_gates(base, reindexed).decision in ("promote", "hold")
    # a baseline run with an index setting of its own (hand_ranker.toml: no history field)
    # against today's default: its indexes differ by that setting, not by an edit
    old_default = base.model_copy(update={"overrides": {"index.history_commits": 0}})
    assert evaluate_gates(old_default, moved).decision in ("promote", "hold")
