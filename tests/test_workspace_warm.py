"""What a serving process keeps between questions (`helix.servers.workspace`): run-log
connections, and a walk a watch says is still true; neither ever answers from stale state."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helix.core.paths import runlog_path
from helix.runlog import RunLog
from helix.servers.workspace import Workspace
from indexers import walker

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "answer_repo"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    return Path(shutil.copytree(FIXTURE, tmp_path / "repo"))


def _walks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The directories walks visit from now on."""
    listed: list[object] = []
    real = walker._visit_dir
    monkeypatch.setattr(walker, "_visit_dir", lambda state, here: listed.append(here) or real(
        state, here))
    return listed


def test_questions_share_one_run_log_connection_and_every_row_is_written(repo: Path) -> None:
    ws = Workspace([repo])
    first = ws.ask("where is the retry policy decided?")
    kept = [log for log, _ in ws._runlogs]
    second = ws.ask("where is the retry policy decided?")
    assert len(kept) == 1 and [log for log, _ in ws._runlogs] == kept
    rows = {r.id: r for r in RunLog().records()}
    assert {first["run_id"], second["run_id"]} <= set(rows)
    assert rows[second["run_id"]].status == "done"
    logged = rows[second["run_id"]].envelope.model_dump(mode="json")
    assert logged["item_hashes"] == second["item_hashes"]
    ws.close()
    assert ws._runlogs == []


def test_a_run_log_moved_aside_is_opened_anew(repo: Path) -> None:
    ws = Workspace([repo])
    ws.ask("where is the retry policy decided?")
    path = runlog_path()
    path.rename(path.with_name("moved-aside.sqlite"))
    for extra in ("-wal", "-shm"):
        path.with_name(path.name + extra).unlink(missing_ok=True)
    answer = ws.ask("where is the retry policy decided?")
    assert [r.id for r in RunLog().records()] == [answer["run_id"]]  # in the new file


def test_an_edit_between_questions_is_answered_from(repo: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace([repo])
    ws.ask("where is the retry policy decided?")
    listed = _walks(monkeypatch)
    ws.ask("where is the retry policy decided?")
    assert listed == []  # nothing changed: not walked
    target = repo / "fetchy" / "retry.py"
    target.write_text(target.read_text() + "\n\ndef give_up_quietly():\n    return None\n")
    answer = ws.ask("where is give_up_quietly defined?")
    assert any(item["path"] == "fetchy/retry.py" and "give_up_quietly" in item["text"]
               for item in answer["envelope"]["evidence"])


def test_no_watch_walks_before_every_question(repo: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_NO_WATCH", "1")
    ws = Workspace([repo])
    ws.ask("where is the retry policy decided?")
    listed = _walks(monkeypatch)
    ws.ask("where is the retry policy decided?")
    assert listed  # walked again
