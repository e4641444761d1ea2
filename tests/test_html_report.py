"""`helix eval --html`: one self-contained page per result (suites with their gates, history,
natural questions, a comparison), loaded in a real headless Chromium: no script error, no
request leaves the page, and every chart has drawn marks."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import run

from evals.html_report import compare, render

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "evals" / "qa" / "answer_repo_sample.jsonl"
ANSWER_REPO = ROOT / "data" / "fixtures" / "answer_repo"
HISTORY = ROOT / "benchmarks" / "results" / "history_bench_no_embed.json"


def _load_in_chromium(page: Path) -> dict[str, str]:
    """The page's <html> data attributes after its scripts ran, and the browser's log."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "Chromium is needed (scripts/test installs Debian's chromium)"
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--virtual-time-budget=20000", "--enable-logging=stderr", "--v=0",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180)
    head = re.search(r"<html[^>]*>", done.stdout)
    assert head, done.stderr[-2000:]
    attributes = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', head.group()))
    attributes["log"] = done.stderr
    return attributes


def _assert_drawn(page: Path, charts: int) -> None:
    shown = _load_in_chromium(page)
    assert shown.get("errors") == "0", shown.get("error-text")
    assert shown.get("charts") == str(charts) and shown.get("drawn") == str(charts), (
        {k: v for k, v in shown.items() if k != "log"})
    console = [line for line in shown["log"].splitlines() if "CONSOLE" in line]
    assert not [line for line in console if "rror" in line], console


@pytest.mark.slow
def test_suites_report_with_gates_draws_every_chart(tmp_path: Path,
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
    _assert_drawn(page, 7)
    assert "A/B gates" in gated.read_text()
    _assert_drawn(gated, 8)  # the seven above, and the gates table
    comparison = tmp_path / "compare.html"
    code, _, err = run(["eval", "--compare", str(out), str(out), "--html", str(comparison)],
                       capsys)
    assert code == 0, err
    _assert_drawn(comparison, 4)  # hit@1, hit@5, mrr, pass_rate
    assert payload["summary"]["matrix"]["hit@5"] is not None


@pytest.mark.slow
def test_history_and_qa_reports_draw_every_chart(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    history = tmp_path / "history.html"
    history.write_text(render(json.loads(HISTORY.read_text()), "history"))
    _assert_drawn(history, 5)  # Acc@1/3/5/10, the tuning and held-out totals
    qa = tmp_path / "qa.html"
    code, _, err = run(["eval", "qa", str(SAMPLE), "--repo", str(ANSWER_REPO), "--no-embed",
                        "--html", str(qa)], capsys)
    assert code == 0, err
    _assert_drawn(qa, 3)  # file@k, span/symbol/recall, by wording


def test_results_of_different_kinds_are_not_compared() -> None:
    history = json.loads(HISTORY.read_text())
    with pytest.raises(ValueError, match="cannot compare a history result"):
        compare(history, {"benchmark": "qa", "summary": {}}, ("a", "b"))


@pytest.mark.slow
def test_the_changes_page_draws_drift_and_stale_docs(tmp_path: Path,
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
    _assert_drawn(page, 4)  # severities, drifted questions, change kinds, stale sections
