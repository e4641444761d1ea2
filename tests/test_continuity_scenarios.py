"""The scenario regression family per transition class (data/evals/continuity/T1..T10.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.scenarios import SUITE_DIR, check_turn, load_cases, resolve_repo, run_case
from helix.core.config import load_config
from helix.core.errors import ConfigError

SUITES = sorted(SUITE_DIR.glob("T*.jsonl"), key=lambda p: int(p.stem[1:]))
# the fixture repository, built once under each configuration (tests/_index_cache.py)
pytestmark = pytest.mark.usefixtures("cached_builds")


def test_there_is_one_suite_per_transition_class():
    assert [p.stem for p in SUITES] == [f"T{n}" for n in range(0, 11)]


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: p.stem)
def test_scenario_family_passes(suite: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    produced: set[str] = set()
    for case in load_cases(suite):
        root = resolve_repo(case["repo"])
        result = run_case(case, root=root, config=load_config(root))
        failed = [(t["text"], t["failures"]) for t in result["per_turn"] if not t["passed"]]
        assert result["passed"], (case["id"], failed)
        produced |= {t["transition"] for t in result["per_turn"]
                     if t["expected_transition"] and t["transition"] == t["expected_transition"]}
    # the suite exercises its own class: some turn expected it and the router produced it
    assert suite.stem in produced, (suite.stem, sorted(produced))


def test_a_wrong_expectation_fails(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    case = {"id": "wrong", "repo": "fixture:continuity_repo", "turns": [
        {"text": "where is the BM25 index built?", "expect": {"transition": "T8"}},
        {"text": "open the second one", "expect": {"lane": "selection"}}]}
    root = resolve_repo(case["repo"])
    result = run_case(case, root=root, config=load_config(root))
    assert not result["passed"]
    assert result["per_turn"][0]["failures"] == ["transition: expected T8, got T1"]
    assert result["per_turn"][1]["passed"]
    # a turn's class: the one it was expected to take, else the one it took
    assert result["transition_classes"] == ["T8", "T3"]
    assert result["per_turn"][1]["transition"] == "T3"


def test_bad_suite_lines_are_one_line_errors(tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:1"):
        load_cases(bad)
    bad.write_text(json.dumps({"id": "x", "turns": [{"text": "a", "expect": {"nope": 1}}]}),
                   encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown expect keys"):
        load_cases(bad)
    bad.write_text("not json\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not JSON"):
        load_cases(bad)


def test_check_turn_reports_each_failed_expectation():
    from controller.continuity.turn import TurnResult

    turn = TurnResult(session="s", session_id="s-1", turn_id=1, text="x", lane="meta",
                      transition="T8", intent="meta_answer", answer="Only one place.",
                      answer_mode="continuity", retrieval=False)
    assert check_turn(turn, {"lane": "meta", "answer_contains": ["ONE place"]}) == []
    assert check_turn(turn, {"retrieval": True, "answer_not_contains": ["only"]}) == [
        "retrieval: expected True, got False", "answer contains 'only'"]
