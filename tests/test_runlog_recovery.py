"""A run log that cannot be read never stops a command, and nothing in it is lost.

A garbled, truncated, non-SQLite or foreign-schema `helix.sqlite` is moved aside (with its side
files) with one stderr line and a fresh one is created; commands that do not need the run log
never touch it; a bad row (runs or sessions) is skipped and counted, never fatal."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import run
from helpers_synthesis import envelope

from helix.core.config import load_config
from helix.core.errors import RunLogDamagedError, UnreadableSessionError
from helix.runlog import RunLog
from helix.session.runner import run_turn
from helix.session.store import ensure_schema, get_session, list_sessions, load_turns, reset_session
from helix.store.db import _move_aside, open_db

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"


def _db_path(home: Path) -> Path:
    return home / "helix.sqlite"


def _aside(home: Path) -> list[Path]:
    return sorted(p for p in home.iterdir() if ".corrupt-" in p.name)


def _log_runs(n: int) -> list[str]:
    log = RunLog()
    ids = []
    for i in range(n):
        env = envelope(question=f"question number {i}")
        run_id = log.start(env, created=float(i + 1), dry_run=True)
        log.finish(run_id, env.model_copy(update={"answer_mode": "llm"}), updated=float(i + 1))
        ids.append(run_id)
    log.db.conn.close()
    return ids


def _moved_aside_notice(err: str) -> str:
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 1, err
    assert lines[0].startswith("helix: the run log ") and "could not be read" in lines[0]
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


def _garble(path: Path) -> bytes:
    data = os.urandom(4096 * 3)
    # a new file (new inode), without side files: else SQLite would read page 1 back from the
    # old write-ahead log, or from a connection an earlier in-process command left open
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(data)
    return data


def _truncate(path: Path) -> bytes:
    _log_runs(60)
    data = path.read_bytes()[: path.stat().st_size // 2]
    path.write_bytes(data)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return data


def _not_sqlite(path: Path) -> bytes:
    data = b"these are my notes, not a database\n" * 50
    path.write_bytes(data)
    return data


def _foreign_schema(path: Path) -> bytes:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('ada', '555')")
    conn.commit()
    conn.close()
    return path.read_bytes()


def _runs_missing_columns(path: Path) -> bytes:
    _log_runs(1)
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE runs")
    conn.execute("CREATE TABLE runs (id TEXT PRIMARY KEY)")
    conn.commit()
    conn.close()
    return path.read_bytes()


DAMAGE = {"garbled": _garble, "truncated": _truncate, "not_sqlite": _not_sqlite,
          "foreign_schema": _foreign_schema, "runs_missing_columns": _runs_missing_columns}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_unreadable_run_log_is_moved_aside_and_replaced(
        kind: str, helix_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _db_path(helix_home)
    original = DAMAGE[kind](path)
    code, out, err = run(["log"], capsys)
    assert code == 0, err
    notice = _moved_aside_notice(err)
    (aside,) = _aside(helix_home)
    assert aside.name in notice and aside.name.startswith("helix.sqlite.corrupt-")
    assert aside.read_bytes() == original  # nothing lost: the old file is kept as it was
    assert "no runs yet" in out
    # the fresh run log works, and the next command says nothing more
    _log_runs(1)
    code, out, err = run(["log"], capsys)
    assert code == 0 and err == "" and "question number 0" in out


def test_side_files_move_with_the_database(tmp_path: Path) -> None:
    # whatever side files exist at recovery move with it, under the same new name, so the
    # pair can still be opened together; a fresh database never meets the old log
    path = tmp_path / "helix.sqlite"
    path.write_bytes(b"main")
    Path(f"{path}-wal").write_bytes(b"wal")
    Path(f"{path}-shm").write_bytes(b"shm")
    first = _move_aside(path)
    path.write_bytes(b"second")
    second = _move_aside(path)
    assert first != second and first.name.startswith("helix.sqlite.corrupt-")
    assert first.read_bytes() == b"main" and second.read_bytes() == b"second"
    assert Path(f"{first}-wal").read_bytes() == b"wal"
    assert Path(f"{first}-shm").read_bytes() == b"shm"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [first.name, f"{first.name}-wal", f"{first.name}-shm", second.name])


def test_every_run_log_command_recovers(helix_home: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["log"], ["show", "last"], ["events"],
                 ["export", "--out", str(tmp_path / "x.jsonl")]):
        for leftover in _aside(helix_home):
            leftover.unlink()
        _garble(_db_path(helix_home))
        code, _, err = run(argv, capsys)
        assert "Traceback" not in err and "internal error" not in err, argv
        assert len(_aside(helix_home)) == 1, argv
        helix_lines = [line for line in err.splitlines() if line.startswith("helix: ")]
        # `show last` then says the (fresh) log is empty: one notice + one error, exit 2
        assert code == (2 if argv[0] == "show" else 0), (argv, err)
        assert len(helix_lines) == (2 if argv[0] == "show" else 1), (argv, err)


def _small_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "mod.py").write_text("def foo():\n    return 1\n", encoding="utf-8")
    (repo / "README.md").write_text("# Title\n\nAbout foo.\n", encoding="utf-8")
    return repo


def test_commands_that_do_not_need_the_run_log_never_touch_it(
        helix_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    repo = _small_repo(tmp_path)
    path = _db_path(helix_home)
    original = _garble(path)
    before = os.stat(path)
    for argv in (["index", str(repo)], ["status", str(repo)], ["find", "foo", str(repo)],
                 ["search", "foo", str(repo), "--channel", "bm25"],
                 ["chunks", str(repo / "mod.py")]):
        code, _, err = run(argv, capsys)
        assert code == 0, (argv, err)
        assert "run log" not in err
    assert path.read_bytes() == original and os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert _aside(helix_home) == []
    assert not Path(f"{path}-wal").exists()


# ------------------------------------------------------------------ bad rows in runs

def _spoil_rows(path: Path, ids: list[str]) -> dict[str, str]:
    """One kind of damage per run: what each was given."""
    conn = sqlite3.connect(path, isolation_level=None)
    spoiled = {
        ids[0]: "UPDATE runs SET envelope_json = '{not json' WHERE id = ?",
        ids[1]: "UPDATE runs SET question = CAST(x'61ff62' AS TEXT) WHERE id = ?",
        ids[2]: "UPDATE runs SET created = 'yesterday' WHERE id = ?",
        ids[3]: "UPDATE runs SET envelope_json = json_remove(envelope_json, '$.question')"
                " WHERE id = ?",
        ids[4]: "UPDATE runs SET timings_json = '[1, 2' WHERE id = ?",
    }
    for run_id, sql in spoiled.items():
        conn.execute(sql, (run_id,))
    conn.close()
    return spoiled


def test_bad_rows_are_skipped_and_counted_by_log_show_and_export(
        helix_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = _log_runs(7)
    spoiled = _spoil_rows(_db_path(helix_home), ids)
    good = [i for i in ids if i not in spoiled]

    # `helix log` reads the summary columns only: the two rows bad there are skipped
    summary_bad = {ids[1], ids[2]}
    code, out, err = run(["log", "--json"], capsys)
    assert code == 0, err
    assert sorted(r["id"] for r in json.loads(out)) == sorted(set(ids) - summary_bad)
    assert err.count("\n") == 1 and "skipped 2 unreadable rows" in err
    assert "internal error" not in err

    code, out, err = run(["show", good[0]], capsys)
    assert code == 0 and good[0] in out
    for bad in spoiled:
        code, out, err = run(["show", bad], capsys)
        assert code == 1, err
        assert err.count("\n") == 1 and err.startswith(f"helix: turn {bad} cannot be read back")
        assert "Traceback" not in err and "internal error" not in err

    out_file = tmp_path / "records.jsonl"
    code, out, err = run(["export", "--out", str(out_file), "--include-diagnostic", "--json"],
                         capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["skipped"]["unreadable_row"] == len(spoiled)
    assert report["diagnostic"] == len(good)  # every readable run still exported
    assert len(out_file.read_text(encoding="utf-8").splitlines()) == len(good)
    assert f"skipped {len(spoiled)} unreadable rows" in err


def test_damage_found_mid_command_moves_the_file_aside(
        helix_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _log_runs(80)
    path = _db_path(helix_home)
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    (root_page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'runs'"
                                ).fetchone()
    conn.close()
    with open(path, "r+b") as handle:  # the runs table's root page: only reads of runs see it
        handle.seek((root_page - 1) * page_size)
        handle.write(os.urandom(page_size))
    with pytest.raises(RunLogDamagedError):
        RunLog().recent()
    code, _, err = run(["log"], capsys)
    assert code == 0 and "Traceback" not in err
    assert len(_aside(helix_home)) == 1


# ------------------------------------------------------------------ bad rows in sessions

@pytest.fixture
def session_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


def _turn(root: Path, text: str, name: str = "s") -> None:
    run_turn(name, text, root=root, config=load_config(root, flags={
        "index.embed_enabled": False}), dry_run=True)


def test_a_bad_turn_row_is_skipped_and_the_session_goes_on(
        session_repo: Path, helix_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _turn(session_repo, "where is the BM25 index built?")
    _turn(session_repo, "open the second one")
    conn = sqlite3.connect(_db_path(helix_home), isolation_level=None)
    conn.execute("UPDATE turns SET turn_json = '{broken' WHERE turn_id = 1")
    conn.close()
    capsys.readouterr()
    db = open_db()
    ensure_schema(db)
    record = get_session(db, "s")
    assert record is not None
    assert [t.turn_id for t in load_turns(db, record.id)] == [2]
    assert "skipped 1 unreadable turn row(s)" in capsys.readouterr().err
    _turn(session_repo, "who calls it?")  # not fatal: the session continues
    assert get_session(open_db(), "s").turn_count == 3  # type: ignore[union-attr]


def test_a_bad_session_row_is_one_line_and_new_starts_it_afresh(
        session_repo: Path, helix_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _turn(session_repo, "where is the BM25 index built?", name="broken")
    _turn(session_repo, "where is the BM25 index built?", name="fine")
    conn = sqlite3.connect(_db_path(helix_home), isolation_level=None)
    conn.execute("UPDATE sessions SET state_json = '{}' WHERE name = 'broken'")
    conn.close()
    db = open_db()
    ensure_schema(db)
    capsys.readouterr()
    assert [s.name for s in list_sessions(db)] == ["fine"]
    assert "skipped 1 unreadable session row(s)" in capsys.readouterr().err
    with pytest.raises(UnreadableSessionError, match="session 'broken' cannot be read back"):
        get_session(db, "broken")
    code, _, err = run(["ask", "where is the BM25 index built?", "--session", "broken",
                        "--repo", str(session_repo), "--dry-run"], capsys)
    assert code == 1 and err.count("\n") == 1 and "session 'broken'" in err
    assert "Traceback" not in err and "internal error" not in err
    reset_session(db, "broken")  # what /new does
    assert get_session(db, "broken") is None
    _turn(session_repo, "where is the BM25 index built?", name="broken")


def test_a_garbled_run_log_does_not_stop_a_session(
        session_repo: Path, helix_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _garble(_db_path(helix_home))
    _turn(session_repo, "where is the BM25 index built?")
    _moved_aside_notice(capsys.readouterr().err)
    assert get_session(open_db(), "s") is not None


def test_a_bad_event_row_is_skipped_and_counted(
        session_repo: Path, helix_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _turn(session_repo, "where is the BM25 index built?")
    code, out, _ = run(["events", "--json"], capsys)
    total = len(json.loads(out))
    conn = sqlite3.connect(_db_path(helix_home), isolation_level=None)
    conn.execute("UPDATE continuity_events SET data_json = '{no' WHERE seq = 1")
    conn.execute("UPDATE continuity_events SET name = CAST(x'ff' AS TEXT) WHERE seq = 2")
    conn.close()
    code, out, err = run(["events", "--json"], capsys)
    assert code == 0, err
    assert len(json.loads(out)) == total - 2
    assert err.count("\n") == 1 and "skipped 2 unreadable event row(s)" in err
