"""A failed model call is one line on stderr naming what failed and how to fix it, the
deterministic answer on stdout, and exit code 3 (answered without the model), with the reason
in --json too; a mistyped model name suggests the nearest known ones. The provider's failure
comes from a registered test model (`fake/error:rate_limited`); the missing key and the
mistyped name go through litellm itself (no request is made)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from helix.synthesis.llm import _short

REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "answer_repo"
QUESTION = "where is the retry policy decided?"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_SYNTHESIS__RETRY_BACKOFF_S", "0")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-sent")


def test_a_rate_limited_call_is_one_line_the_deterministic_answer_and_exit_3(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["ask", "--repo", str(REPO), "--model", "fake/error:rate_limited",
                          QUESTION], capsys)
    assert code == 3
    lines = [line for line in err.splitlines() if line.startswith("helix: the model call")]
    assert len(lines) == 1 and "rate_limited" in lines[0] and "try again later" in lines[0]
    assert out.startswith("Deterministic answer (the model's answer was not used: rate_limited)")
    code, out, _ = run(["ask", "--repo", str(REPO), "--model", "fake/error:rate_limited",
                        "--json", QUESTION], capsys)
    assert code == 3 and json.loads(out)["fallback_reason"] == "rate_limited"


def test_a_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    code, _, err = run(["ask", "--repo", str(REPO), "--model", "gpt-4o-mini", QUESTION], capsys)
    assert code == 3 and "OPENAI_API_KEY" in err and "auth_error" in err


def test_a_mistyped_model_suggests_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["ask", "--repo", str(REPO), "--model", "gpt-4o-mnii", QUESTION], capsys)
    assert code == 2 and "did you mean gpt-4o-mini" in err


def test_provider_text_is_never_cut_mid_word() -> None:
    text = "litellm.AuthenticationError: AuthenticationError: " + "credential " * 40
    short = _short(Exception(text))
    assert short.endswith(" ...") and short.split()[-2] == "credential"
    assert not short.startswith("litellm")


def test_a_dry_run_in_json_carries_its_citations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["ask", "--repo", str(REPO), "--dry-run", "--json", QUESTION], capsys)
    data = json.loads(out)
    assert code == 0 and data["citations"]
    assert data["citations"][0]["path"] == "fetchy/retry.py"
    assert {c["evidence_id"] for c in data["citations"]} <= {e["id"] for e in data["evidence"]}


def test_the_progress_bar_is_taken_down_once_the_index_is_ready() -> None:
    from helix.cli.progress import progress_bar
    from helix.core.config import load_config
    from helix.core.ports import PROGRESS_DONE
    from helix.service import ask

    calls: list[tuple[str, int, int]] = []
    config = load_config(REPO, flags={"index.embed_enabled": False})
    ask(QUESTION, root=REPO, config=config, dry_run=True, notify=lambda _: None,
        progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert calls[-1] == (PROGRESS_DONE, 1, 1)  # last: nothing is drawn while answering
    with progress_bar(True) as update:
        update("walk", 0, 0)
        update(PROGRESS_DONE, 1, 1)  # the bar stops here, not when the command ends
