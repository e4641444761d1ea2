"""One question across two repositories (`--repo A --repo B`, a list in HTTP and MCP): the
evidence of both, fused deterministically, each item naming its repository, citations written
`repo:path:line`, one run-log row naming both; a one-repository envelope is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from helix.servers.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
A, B = FIXTURES / "answer_repo", FIXTURES / "continuity_repo"
QUESTION = "where is the retry policy decided and where is the BM25 index built?"


@pytest.fixture(autouse=True)
def _lexical(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")


def _ask(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    code, out, err = run(["ask", QUESTION, "--repo", str(A), "--repo", str(B), "--dry-run",
                          "--json", *extra], capsys)
    assert code == 0, err
    return json.loads(out)


def test_a_question_across_two_repositories_cites_both(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    env = _ask(capsys)
    repos = {item["repo"] for item in env["evidence"]}
    assert repos == {"answer_repo", "continuity_repo"}
    assert all(item["path"].startswith(item["repo"] + ":") for item in env["evidence"])
    cited = {c["path"].split(":", 1)[0] for c in env["citations"]}
    assert cited == {"answer_repo", "continuity_repo"}
    assert "answer_repo:fetchy/retry.py:9" in env["answer"]
    assert "continuity_repo:search/bm25.py:42" in env["answer"]
    assert env["repo_root"] == f"{A}; {B}"
    again = _ask(capsys)
    assert again["item_hashes"] == env["item_hashes"]  # deterministic fusion
    code, shown, _ = run(["show", "last", "--json"], capsys)
    assert code == 0 and json.loads(shown)["repo_root"] == f"{A}; {B}"  # the run log keeps both


def test_one_repository_keeps_its_envelope(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["ask", QUESTION, "--repo", str(A), "--dry-run", "--json"], capsys)
    assert code == 0, err
    assert all("repo" not in item for item in json.loads(out)["evidence"])


def test_single_repository_options_are_refused_across_several(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["ask", QUESTION, "--repo", str(A), "--repo", str(B), "--scope",
                        "src/", "--dry-run"], capsys)
    assert code == 2 and "--scope do not combine with several --repo" in err


def test_the_workspace_asks_across_served_repositories_only() -> None:
    workspace = Workspace([A, B])
    answer = workspace.ask(QUESTION, ["answer_repo", "continuity_repo"])
    assert {c["path"].split(":", 1)[0] for c in answer["citations"]} == {
        "answer_repo", "continuity_repo"}
    with pytest.raises(Exception, match="not served"):
        workspace.ask(QUESTION, ["answer_repo", "/etc"])


def test_one_synthesis_call_answers_across_repositories(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["ask", QUESTION, "--repo", str(A), "--repo", str(B), "--model",
                          "fake/echo", "--json"], capsys)
    assert code == 0, err
    env = json.loads(out)
    assert env["answer_mode"] == "llm" and env["llm_steps"] == 1
    assert env["citations"] and env["citations"][0]["path"].split(":", 1)[0] in {
        "answer_repo", "continuity_repo"}
