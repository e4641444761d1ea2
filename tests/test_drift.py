"""`helix drift`: recorded questions re-run at HEAD on a repository with known changes (a
changed default, a renamed function, a moved file, a reformatted body; issue 34)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helix.core.changes import QuestionDrift, SpanDrift
from helix.core.config import load_config
from helix.drift import run as drift_run
from helix.drift import spans
from helix.drift.compare import compare_question
from helix.drift.records import Recorded
from helix.service import ask, prepare
from tests import change_fixtures as cf
from tests.cli_helpers import run
from tests.history_helpers import git

# tests/conftest.py; a repository built before under the same inputs is a copy of that build
pytestmark = pytest.mark.usefixtures("shared_embeddings", "cached_builds")


def _asked(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo, shas = cf.build(tmp_path)
    config = load_config(repo)
    for question in cf.QUESTIONS.values():
        ask(question, root=repo, config=config, dry_run=True)
    return repo, shas


def _by_question(questions: tuple[QuestionDrift, ...]) -> dict[str, QuestionDrift]:
    return {q.question: q for q in questions}


def _span(q: QuestionDrift, path: str) -> SpanDrift:
    return next(s for s in q.spans if s.path == path)


def test_drift_names_each_known_change(tmp_path: Path) -> None:
    repo, shas = _asked(tmp_path)
    cf.change(repo, shas)
    report = drift_run.drift(repo, load_config(repo))
    found = _by_question(report.questions)
    assert len(found) == 4 and not report.pinned and not report.failed

    default = found[cf.QUESTIONS["default"]]
    assert default.severity == "changed"
    client = _span(default, "src/client.py")
    assert client.status == "changed" and (client.now_start, client.now_end) == (7, 9)
    assert "-    def __init__(self, timeout=5.0, retries=3):" in client.diff
    assert "+    def __init__(self, timeout=10.0, retries=3):" in client.diff
    assert [(c.kind, c.detail) for c in client.changes] == [("defaults",
                                                             "timeout: 5.0 -> 10.0")]

    renamed = _span(found[cf.QUESTIONS["backoff"]], "src/backoff.py")
    assert renamed.status == "renamed" and renamed.now_symbol == "backoff_delay"
    assert renamed.similarity is not None and renamed.similarity >= 0.75

    headers = found[cf.QUESTIONS["headers"]]
    assert headers.severity == "moved"  # followed, not reported as gone
    moved = _span(headers, "src/util/headers.py")
    assert (moved.status, moved.now_path, moved.now_symbol) == (
        "moved", "src/http/headers.py", "merge_headers")

    render = found[cf.QUESTIONS["render"]]
    assert render.severity == "moved"
    body = _span(render, "src/render.py")
    assert body.status == "reformatted" and not body.diff and (body.now_start,
                                                                body.now_end) == (4, 14)
    # worst first: the changed questions lead
    assert [q.severity for q in report.questions] == ["changed", "changed", "moved", "moved"]
    assert report.files_read == 0  # every earlier text was in the run log whole


def test_unchanged_evidence_is_neither_followed_nor_read(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    repo, _ = _asked(tmp_path)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an unchanged span was followed or read")

    import helix.service

    real_ask = helix.service.ask
    monkeypatch.setattr(spans, "successor", never)
    monkeypatch.setattr(drift_run, "blob_at", never)
    monkeypatch.setattr(helix.service, "ask", never)  # the same index: nothing re-run
    report = drift_run.drift(repo, load_config(repo))
    assert report.counts["unchanged"] == 4 and report.files_read == 0
    assert {q.note for q in report.questions} == {"answered from this very index: not re-run"}
    (repo / "NOTES.txt").write_text("an unrelated file\n", encoding="utf-8")
    monkeypatch.setattr(helix.service, "ask", real_ask)
    report = drift_run.drift(repo, load_config(repo))  # a new index: re-run, not followed
    assert {q.note for q in report.questions} == {""}
    assert report.counts["changed"] == report.counts["moved"] == 0
    # the new file entered some answers' evidence: the cited lines hold, the ranking moved
    assert report.counts["ranking"] >= 1
    assert all(s.status == "same" for q in report.questions for s in q.spans)


def test_an_excerpt_reads_the_file_at_its_revision_from_git(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    repo, shas = cf.build(tmp_path)
    config = load_config(repo)
    envelope = ask(cf.QUESTIONS["default"], root=repo, config=config, dry_run=True,
                   runlog=_memory()).envelope
    pin = Recorded.of(envelope).pin()
    pin["evidence"] = [{**e, "text": "..."} for e in pin["evidence"]]  # compacted: no text
    pins = tmp_path / "pins.jsonl"
    pins.write_text(json.dumps(pin) + "\n", encoding="utf-8")
    cf.change(repo, shas)
    code, out, err = run(["drift", "--repo", str(repo), "--question-file", str(pins),
                          "--json"], capsys)
    assert code == 1, err  # a pinned question drifted
    report = json.loads(out)
    assert report["failed"] and report["files_read"] == 1
    client = next(s for s in report["questions"][0]["spans"] if s["path"] == "src/client.py")
    assert client["old_text"] == "git" and client["status"] == "changed"
    assert "+    def __init__(self, timeout=10.0, retries=3):" in client["diff"]


def _memory() -> Any:
    import sqlite_utils

    from helix.runlog import RunLog

    return RunLog(sqlite_utils.Database(memory=True))


def test_pinned_questions_fail_ci_only_at_the_threshold(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    repo, shas = _asked(tmp_path)
    pinned = tmp_path / "questions.txt"
    pinned.write_text(f"# pinned\n{cf.QUESTIONS['headers']}\n\nnever asked here?\n",
                      encoding="utf-8")
    code, out, _ = run(["drift", "--repo", str(repo), "--question-file", str(pinned)], capsys)
    assert code == 0 and "0 changed, 0 moved" in out and "1 unrecorded" in out
    cf.change(repo, shas)
    code, out, _ = run(["drift", "--repo", str(repo), "--question-file", str(pinned)], capsys)
    assert code == 1 and "MOVED" in out and "src/http/headers.py" in out
    assert "pinned questions drifted (moved or worse): exit 1" in out
    code, _, _ = run(["drift", "--repo", str(repo), "--question-file", str(pinned),
                      "--fail-on", "changed"], capsys)
    assert code == 0  # moved is below "changed"


def test_write_pins_then_hold_the_repository_to_them(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = _asked(tmp_path)
    questions = tmp_path / "questions.txt"
    questions.write_text(cf.QUESTIONS["default"] + "\n", encoding="utf-8")
    pins = tmp_path / "pins.jsonl"
    code, _, _ = run(["drift", "--repo", str(repo), "--question-file", str(questions),
                      "--write-pins", str(pins)], capsys)
    assert code == 0
    (line,) = pins.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["question"] == cf.QUESTIONS["default"]
    code, out, _ = run(["drift", "--repo", str(repo), "--question-file", str(pins), "--all"],
                       capsys)
    assert code == 0 and "1 unchanged" in out and "same" in out
    cf.change(repo, shas)
    # the run log is not needed: the pin carries its evidence
    from helix.core.paths import runlog_path

    runlog_path().unlink()
    code, out, _ = run(["drift", "--repo", str(repo), "--question-file", str(pins)], capsys)
    assert code == 1 and "CHANGED" in out and "timeout: 5.0 -> 10.0" in out


def test_only_the_ranking_moved(tmp_path: Path) -> None:
    repo, _ = cf.build(tmp_path)
    config = load_config(repo)
    prepared = prepare(repo, config)
    now = ask(cf.QUESTIONS["headers"], root=repo, config=config, dry_run=True,
              runlog=_memory(), prepared=prepared).envelope
    lead = [e for e in now.evidence if not e.context_only]
    assert len(lead) >= 3
    then = Recorded.of(now).model_copy(update={
        "evidence": (lead[0], lead[2], lead[1], *lead[3:]), "citations": now.citations[:1]})
    drifted = compare_question(then, now, prepared.index, lambda r, i: (None, "none"),
                               config.drift)
    assert drifted.severity == "ranking" and [s.status for s in drifted.spans] == ["same"]
    assert drifted.was[1:3] == drifted.now[2:0:-1]


def test_since_selects_the_questions_and_bad_input_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = _asked(tmp_path)
    code, out, _ = run(["drift", "--repo", str(repo), "--since", "2999-01-01"], capsys)
    assert code == 0 and "0 question(s)" in out
    code, out, _ = run(["drift", "--repo", str(repo), "--since", shas["v1"][:10], "--json"],
                       capsys)
    assert code == 0 and len(json.loads(out)["questions"]) == 4  # asked after v1's commit
    for argv, says in ((["--since", "not-a-rev"], "neither a date"),
                       (["--question-file", str(tmp_path / "missing.txt")], "not found"),
                       (["--question-file", str(tmp_path)], "is a directory")):
        code, out, err = run(["drift", "--repo", str(repo), *argv], capsys)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": 3}\n', encoding="utf-8")
    code, _, err = run(["drift", "--repo", str(repo), "--question-file", str(bad)], capsys)
    assert code == 2 and "line 1" in err and len(err.strip().splitlines()) == 1


def test_files_added_and_removed_between_revisions_are_indexed_anew(tmp_path: Path) -> None:
    """The index is brought to HEAD before the questions run again: an added file is read
    (the moved definition is followed into it), a removed one is dropped (never cited)."""
    repo, _ = _asked(tmp_path)
    (repo / "src" / "retry").mkdir()
    (repo / "src" / "retry" / "policy.py").write_text(cf.BACKOFF, encoding="utf-8")
    git(repo, "add", "src/retry/policy.py")
    git(repo, "rm", "-q", "src/backoff.py", "src/render.py")
    git(repo, "commit", "-q", "-m", "backoff into retry/, rendering gone")
    report = drift_run.drift(repo, load_config(repo))
    found = _by_question(report.questions)
    moved = _span(found[cf.QUESTIONS["backoff"]], "src/backoff.py")
    assert (moved.status, moved.now_path, moved.now_symbol) == (
        "moved", "src/retry/policy.py", "compute_backoff")
    gone = found[cf.QUESTIONS["render"]]
    assert gone.severity == "changed" and _span(gone, "src/render.py").status == "vanished"
    index = prepare(repo, load_config(repo)).index
    paths = {f.path for f in index.files()}
    assert "src/retry/policy.py" in paths and not {"src/backoff.py", "src/render.py"} & paths
