"""One storage interface, two backends: sessions, continuity events, the run log and the
repository registry behave the same on the embedded SQLite file and on a real PostgreSQL
(`tests.engines`: initdb + pg_ctl in a temporary directory), each with numbered migrations.
The shared database is the user's choice only (HELIX_DATABASE_URL), an unusable one is one
line with its password hidden, and a pending run of a process that is gone reads as
interrupted from any process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from helpers_synthesis import envelope

from helix.core.errors import StateDatabaseError
from helix.runlog import RunLog
from helix.session.eventlog import read_events
from helix.session.store import get_session, list_sessions, load_turns, reset_session
from helix.store.backend import open_backend
from helix.store.repos import Registry, RepoRow
from tests.talk_fixtures import Q, copy_fixture
from tests.talk_fixtures import config as _config


@pytest.fixture(params=["sqlite", "postgres"])
def backend_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres":
        request.getfixturevalue("database_url")
    return str(request.param)


def _talk(repo: Path, name: str, texts: list[str]) -> list[Any]:
    from helix.session.runner import run_turn

    config = _config(repo)
    return [run_turn(name, text, root=repo, config=config, dry_run=True) for text in texts]


def _comparable(turn: Any) -> dict[str, Any]:
    data = turn.model_dump(mode="json")
    for key in ("session", "session_id", "created_at", "events", "state_after_hash",
                "timings_ms", "run_id"):
        data.pop(key, None)
    return data


def test_sessions_and_events_read_back_alike_on_both_backends(
        tmp_path: Path, backend_kind: str) -> None:
    repo = copy_fixture(tmp_path)
    turns = _talk(repo, "s", [Q, "open the second one", "who calls it?"])
    db = open_backend()
    assert db.kind == backend_kind
    record = get_session(db, "s")
    assert record is not None and record.turn_count == 3
    assert [t.turn_id for t in load_turns(db, record.id)] == [1, 2, 3]
    assert [_comparable(t) for t in load_turns(db, record.id)] == [_comparable(t) for t in turns]
    events = read_events(db, session_id=record.id)
    assert {e.turn_id for e in events} == {1, 2, 3}
    assert next(e.name for e in events if e.turn_id == 1) == "turn_routed"
    assert [s.name for s in list_sessions(db)] == ["s"]
    reset_session(db, "s")
    assert get_session(db, "s") is None and read_events(db, session_id=record.id) == []
    if backend_kind == "postgres":
        assert not (Path(os.environ["HELIX_HOME"]) / "helix.sqlite").exists()


def test_the_run_log_and_its_scopes_on_both_backends(backend_kind: str) -> None:
    log = RunLog()
    one = log.start(envelope(question="first?").model_copy(update={"repo_root": "/r/a"}),
                    created=1.0, dry_run=False, session_id="s1")
    log.set_prompt(one, [{"role": "user", "content": "x"}], "sha256:p", updated=1.5)
    both = envelope(question="both?").model_copy(update={"repo_root": "/r/a; /r/b"})
    two = log.record(both, created=2.0, updated=2.5)
    assert log.get(one).status == "pending" and log.get(one).prompt == (
        {"role": "user", "content": "x"},)
    log.finish(one, envelope(question="first?").model_copy(update={"repo_root": "/r/a"}),
               updated=3.0, prompt_tokens=7)
    assert [r.id for r in log.recent()] == [two, one]
    assert [r.id for r in log.recent(roots=["/r/a"])] == [one]
    assert [r.id for r in log.recent(roots=["/r/a", "/r/b"])] == [two, one]
    assert log.resolve("last", roots=["/r/a"]) == one and log.resolve(one[:5]) == one
    assert [r.id for r in log.records()] == [one, two]
    assert log.get(one).prompt_tokens == 7 and log.for_session("s1")[0].turn_number == 1


def test_the_registry_on_both_backends(backend_kind: str) -> None:
    registry = Registry()
    row = RepoRow(name="b", group="web", source="path:/src/b", rev="r1", root="/src/b",
                  index_dir="/store/b", index_rev="sha256:1", summary={"headings": ["B"]})
    registry.put(row)
    registry.put(row.model_copy(update={"name": "a", "group": "data"}))
    registry.put(row.model_copy(update={"rev": "r2"}))  # replaced whole
    assert [r.name for r in registry.rows()] == ["a", "b"]
    assert [r.name for r in registry.rows("web")] == ["b"] and registry.get("b").rev == "r2"
    assert registry.groups() == ["data", "web"] and registry.get("a").summary == row.summary


def test_postgres_migrations_are_numbered_and_applied_once(database_url: str) -> None:
    import psycopg

    RunLog()
    Registry()
    open_backend().ensure(__import__("helix.session.store", fromlist=["SCHEMAS"]).SCHEMAS)
    from helix.store import postgres

    postgres.drop_process_state()  # a new process would check again: nothing left to apply
    RunLog()
    with psycopg.connect(database_url) as conn:
        steps = conn.execute("SELECT namespace, step FROM _migrations ORDER BY 1, 2").fetchall()
    assert steps == [("events", 1), ("registry", 1), ("runlog", 1), ("sessions", 1)]


def test_a_later_migration_step_upgrades_a_database_in_place_on_both_backends(
        backend_kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step appended to a namespace is applied once to a database holding the earlier ones
    (its rows kept), recorded under its number, and never again (a second ALTER would fail)."""
    from helix.store import pg_schema, postgres, repos

    registry = Registry()
    registry.put(RepoRow(name="kept", group="g", source="path:/k", rev="r", root="/k",
                         index_dir="/i", index_rev="sha256:1", summary={}))
    registry.close()
    step = "ALTER TABLE repos ADD COLUMN owner_team TEXT NOT NULL DEFAULT 'none'"
    monkeypatch.setattr(repos, "SCHEMA", repos.Schema(
        repos.NAMESPACE, (*repos.MIGRATIONS, step), repos.SCHEMA.tables))
    monkeypatch.setitem(pg_schema.PG_MIGRATIONS, "registry",
                        (*pg_schema.PG_MIGRATIONS["registry"], step))
    for _ in range(2):  # a new process each time: checks again, applies nothing the 2nd time
        postgres.drop_process_state()
        registry = Registry()
        assert [r.name for r in registry.rows()] == ["kept"]
        assert registry.backend.rows("SELECT owner_team FROM repos") == [("none",)]
        steps = registry.backend.rows(
            "SELECT step FROM _migrations WHERE namespace = 'registry' ORDER BY step")
        registry.close()
        assert [tuple(row) for row in steps] == [(1,), (2,)]


def test_a_pending_run_of_a_killed_process_is_interrupted_for_every_reader(
        database_url: str) -> None:
    script = ("import sys, time\n"
              "from helpers_synthesis import envelope\n"
              "from helix.runlog import RunLog\n"
              "log = RunLog()\n"
              "print(log.start(envelope(question='killed?'), created=1.0, dry_run=False),"
              " flush=True)\n"
              "time.sleep(600)\n")
    tests = str(Path(__file__).parent)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                [tests, os.environ.get("PYTHONPATH", "")])})
    try:
        assert proc.stdout is not None
        run_id = proc.stdout.readline().strip()
        assert RunLog().get(run_id).status == "pending"  # its writer runs: another process
        mine = RunLog().start(envelope(question="mine"), created=2.0, dry_run=False)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        deadline = time.monotonic() + 30  # the server notices the closed connection
        while RunLog().get(run_id).status == "pending" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert RunLog().get(run_id).status == "interrupted"
        assert RunLog().get(mine).status == "pending"
    finally:
        if proc.poll() is None:
            proc.kill()


def test_an_unusable_database_is_one_line_without_its_password(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-server"
    missing.mkdir()
    monkeypatch.setenv("HELIX_DATABASE_URL",
                       f"postgresql://helix:s3cret-pw@/helix?host={missing}")
    # the pool retries until this deadline (a socket directory with no server fails each
    # attempt at once): the refusal is the same after half a second as after two
    monkeypatch.setenv("HELIX_STATE__CONNECT_TIMEOUT_S", "0.5")
    with pytest.raises(StateDatabaseError) as caught:
        RunLog()
    assert "s3cret" not in str(caught.value) and "***" in str(caught.value)
    code, _out, err = run(["log"], capsys)
    assert code == 1 and err.count("\n") == 1 and "s3cret" not in err
    assert "state database" in err and "Traceback" not in err


def test_a_repository_cannot_choose_the_database(tmp_path: Path) -> None:
    from helix.core.config import resolve_config

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".helix.toml").write_text(
        '[helix.state]\ndatabase_url = "postgresql://attacker@evil/db"\n', encoding="utf-8")
    config, notices = resolve_config(repo)
    assert config.state.database_url is None
    assert any("state.database_url" in n for n in notices)


def test_postgres_binaries_are_found_off_the_path_and_a_missing_one_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian puts initdb and pg_ctl under /usr/lib/postgresql/*/bin, off the PATH; without
    them the shared-state tests fail with the install command (CI never skips them)."""
    from tests import engines

    monkeypatch.setenv("PATH", str(tmp_path))
    found = engines.pg_bin("initdb")
    assert found.startswith("/usr/lib/postgresql/") and found.endswith("/bin/initdb")
    monkeypatch.setattr(engines, "PG_DIRS", (str(tmp_path / "none" / "*"),))
    with pytest.raises(RuntimeError, match="apt-get install -y postgresql"):
        engines.pg_bin("pg_ctl")
