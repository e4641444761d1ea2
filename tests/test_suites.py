"""The shipped suites validate, and every expectation points at real files and definitions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evals.runner import SELF_ROOT, networkx_source, stdlib_source
from evals.suites import FIXTURES_DIR, default_suites, list_suites, load_suite, suite_path
from helix.core.errors import ConfigError, NotFoundError

RETRIEVAL = ("helix_self", "networkx", "matrix", "stdlib_bench")
MIN_CASES = {"helix_self": 15, "networkx": 30, "matrix": 10, "stdlib_bench": 50}


def repo_dir(spec: str) -> Path:
    if spec == "self":
        return SELF_ROOT
    if spec == "networkx":
        return networkx_source()
    if spec == "stdlib":
        return stdlib_source()
    assert spec.startswith("fixture:"), spec
    return FIXTURES_DIR / spec.split(":", 1)[1]


def defines(text: str, name: str) -> bool:
    bare = re.escape(name.rsplit(".", 1)[-1])
    return re.search(rf"^\s*(?:async\s+def|def|class)\s+{bare}\b|^\s*{bare}\s*(?::[^=\n]*)?=", text,
                     re.MULTILINE) is not None


def test_shipped_suites_are_listed():
    names = list_suites()
    for name in RETRIEVAL:
        assert name in names
    assert "stdlib_bench" not in default_suites()


@pytest.mark.parametrize("name", RETRIEVAL)
def test_suite_validates_and_is_big_enough(name):
    suite = load_suite(name)
    assert suite.kind == "retrieval"
    assert len(suite.cases) >= MIN_CASES[name]
    assert len({c.id for c in suite.cases}) == len(suite.cases)
    for case in suite.cases:
        assert case.notes, f"{case.id}: say where the answer was verified"
        assert case.expect.files or case.expect.clarify is not None, case.id


@pytest.mark.parametrize("name", RETRIEVAL)
def test_expected_files_exist_and_define_expected_symbols(name):
    for case in load_suite(name).cases:
        root = repo_dir(case.repo)
        texts = []
        for rel in case.expect.files:
            path = root / rel
            assert path.exists(), f"{case.id}: {rel} not in {root}"
            if path.is_file():
                texts.append(path.read_text(encoding="utf-8"))
        for symbol in case.expect.symbols:
            assert any(defines(t, symbol) for t in texts), f"{case.id}: {symbol} not defined"


def test_networkx_suite_has_value_and_docs_questions():
    cases = load_suite("networkx").cases
    assert sum(c.expect.route == "value_check" for c in cases) >= 5
    assert any("documentation" in c.question for c in cases)


def test_matrix_suite_covers_the_plan_matrix_and_both_dominance_outcomes():
    cases = {c.id: c for c in load_suite("matrix").cases}
    routes = {c.expect.route for c in cases.values()}
    assert {"definition", "value_check", "relation", "doc_summary", "explanation"} <= routes
    cavity = [c for c in cases.values() if c.question == "What is a cavity?"]
    assert {c.expect.clarify for c in cavity} == {True, False}
    split = next(c for c in cavity if c.expect.clarify)
    assert split.expect.stop_reason == "dominance_split"


def test_fixture_declares_its_tree_json_in_helix_toml():
    from helix.core.config import load_config

    root = FIXTURES_DIR / "matrix_repo"
    config = load_config(root, env={})
    assert config.index.trees == ("trees/*.json",)
    tree = json.loads((root / "trees" / "lumen-tree.json").read_text(encoding="utf-8"))
    assert tree["rootId"] == tree["nodes"][0]["id"]
    for node in tree["nodes"]:
        assert {"id", "title", "bodyMD", "children", "links", "evidence"} <= set(node)
        for ev in node["evidence"]:
            assert (root / ev["path"]).is_file()


def test_bad_suites_give_one_line_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "question": "q", "repo": "self", "expect": {"filez": []}}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:1: expect.filez"):
        load_suite(str(bad))
    dup = tmp_path / "dup.jsonl"
    row = json.dumps({"id": "x", "question": "q", "repo": "self", "expect": {}})
    dup.write_text(row + "\n\n" + row + "\n")
    with pytest.raises(ConfigError, match=r"dup\.jsonl:3: duplicate case id 'x'"):
        load_suite(str(dup))
    notjson = tmp_path / "nj.jsonl"
    notjson.write_text("{oops\n")
    with pytest.raises(ConfigError, match=r"nj\.jsonl:1: not JSON"):
        load_suite(str(notjson))
    with pytest.raises(NotFoundError, match="unknown eval suite"):
        suite_path("no-such-suite", tmp_path)


def test_continuity_suites_are_kept_raw(tmp_path):
    (tmp_path / "continuity").mkdir()
    (tmp_path / "continuity" / "t1.jsonl").write_text(
        json.dumps({"id": "s1", "turns": [{"say": "hi"}]}) + "\n")
    suite = load_suite("continuity/t1", tmp_path)
    assert suite.kind == "continuity" and suite.raw_cases[0]["id"] == "s1"
    assert list_suites(tmp_path) == ["continuity/t1"]


def test_suite_answer_keys_are_never_indexed_as_evidence():
    from helix.core.config import load_config
    from indexers.walker import walk

    walked = walk(SELF_ROOT, load_config(SELF_ROOT, env={}).index)
    indexed = {f.record.path for f in walked.files}
    assert "evals/metrics.py" in indexed
    assert not [p for p in indexed if p.startswith("data/evals/") and p.endswith(".jsonl")]
