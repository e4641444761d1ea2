"""`helix eval --html`: one self-contained page per result (suites with their gates, history,
natural questions, a comparison), loaded in a real headless Chromium: no script error, no
request leaves the page, and every chart has drawn marks. One browser for the module
(`tests/browser.py`): each page in a tab of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run

from evals.html_report import compare, render
from tests.browser import Browser

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "evals" / "qa" / "answer_repo_sample.jsonl"
ANSWER_REPO = ROOT / "data" / "fixtures" / "answer_repo"
HISTORY = ROOT / "benchmarks" / "results" / "history_bench_no_embed.json"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as started:
        yield started


def _assert_drawn(browser: Browser, page: Path, charts: int) -> None:
    shown = browser.load(page)
    assert shown.get("errors") == "0", shown.get("error-text")
    assert shown.get("charts") == str(charts) and shown.get("drawn") == str(charts), (
        {k: v for k, v in shown.items() if k != "log"})
    errors = [line for line in shown["log"].splitlines() if "rror" in line]
    assert not errors, errors


@pytest.mark.slow
def test_suites_report_with_gates_draws_every_chart(browser: Browser, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    out, page = tmp_path / "matrix.json", tmp_path / "matrix.html"
    code, _, err = run(["eval", "matrix", "continuity/T5", "--no-embed", "--out", str(out),
                        "--html", str(page), "--pin-baseline", "base"], capsys)
    assert code == 0, err
    gated = tmp_path / "gated.html"
    code, _, err = run(["eval", "matrix", "continuity/T5", "--no-embed", "--baseline", "base",
                        "--html", str(gated)], capsys)
    assert code == 0, err
    payload = json.loads(out.read_text())
    html = page.read_text()
    assert "<script src=" not in html and "https://" not in html.split("plotly.js v")[0]
    # hit@k, Helix vs BM25, hit@5 by kind, latency, stop reasons, routes, transition classes
    _assert_drawn(browser, page, 7)
    assert "A/B gates" in gated.read_text()
    _assert_drawn(browser, gated, 8)  # the seven above, and the gates table
    comparison = tmp_path / "compare.html"
    code, _, err = run(["eval", "--compare", str(out), str(out), "--html", str(comparison)],
                       capsys)
    assert code == 0, err
    _assert_drawn(browser, comparison, 4)  # hit@1, hit@5, mrr, pass_rate
    assert payload["summary"]["matrix"]["hit@5"] is not None


@pytest.mark.slow
def test_history_and_qa_reports_draw_every_chart(browser: Browser, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    history = tmp_path / "history.html"
    history.write_text(render(json.loads(HISTORY.read_text()), "history"))
    _assert_drawn(browser, history, 5)  # Acc@1/3/5/10, the tuning and held-out totals
    qa = tmp_path / "qa.html"
    code, _, err = run(["eval", "qa", str(SAMPLE), "--repo", str(ANSWER_REPO), "--no-embed",
                        "--html", str(qa)], capsys)
    assert code == 0, err
    _assert_drawn(browser, qa, 3)  # file@k, span/symbol/recall, by wording


def test_results_of_different_kinds_are_not_compared() -> None:
    history = json.loads(HISTORY.read_text())
    with pytest.raises(ValueError, match="cannot compare a history result"):
        compare(history, {"benchmark": "qa", "summary": {}}, ("a", "b"))


@pytest.mark.slow
def test_the_changes_page_draws_drift_and_stale_docs(browser: Browser, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from helix.core.config import load_config
    from helix.service import ask
    from tests import change_fixtures as cf

    repo, shas = cf.build(tmp_path)
    for question in cf.QUESTIONS.values():
        ask(question, root=repo, config=load_config(repo), dry_run=True)
    cf.change(repo, shas)
    page, out = tmp_path / "changes.html", tmp_path / "changes.json"
    code, text, err = run(["eval", "changes", "--repo", str(repo), "--html", str(page),
                           "--out", str(out)], capsys)
    assert code == 0, err
    assert "drift at" in text and "stale-docs at" in text
    payload = json.loads(out.read_text())
    assert payload["drift"]["counts"]["changed"] == 2 and len(payload["stale_docs"]["stale"]) == 2
    html = page.read_text()
    assert "timeout: 5.0 -\\u003e 10.0" in html or "timeout: 5.0 -> 10.0" in html
    assert "line 5 old-default timeout" in html  # each section's evidence
    _assert_drawn(browser, page, 4)  # severities, drifted questions, change kinds, stale docs
