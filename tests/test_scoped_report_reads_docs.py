"""A question retrieved like a report (the `issue` route: source code only, file by file) and
narrowed to a folder of documentation ("--scope docs/", or a follow-up "only in the docs")
reads that folder's documentation, like a long question: before, its seed searched source
code only, found nothing under docs/ and answered "Nothing in the repository matched"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from controller.dominance import scoped
from controller.route import route_question
from helix.core.policy import RoutingPolicy

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
QUESTION = "finesse round trips impl"


@pytest.fixture(autouse=True)
def _lexical(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")


def test_a_scoped_report_runs_the_long_question_policy_and_keeps_its_route() -> None:
    plan = route_question(QUESTION, routing=RoutingPolicy())
    assert plan.policy_name == "issue"
    narrowed, prefixes = scoped(route_question(QUESTION, routing=RoutingPolicy(),
                                               scope="docs/"))
    assert prefixes == ("docs/",)
    assert narrowed.policy_name == "long_question" and narrowed.intent.route == "issue"
    assert scoped(plan) == (plan, ())  # unscoped: the report's own policy


def test_a_report_narrowed_to_the_docs_finds_the_docs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["ask", QUESTION, "--repo", str(FIXTURE), "--scope", "docs/",
                          "--dry-run", "--json"], capsys)
    assert code == 0, err
    answer = json.loads(out)
    assert answer["route"] == "issue"
    paths = [item["path"] for item in answer["evidence"]]
    assert paths and all(p.startswith("docs/") for p in paths)
    assert "docs/optics/optical-cavity.md" in paths
