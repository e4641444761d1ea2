"""Readers do not wait for the writer (issue 9, S1 item 6): while another process holds the
index lock, a reading command answers from the current generation with a one-line note; only
with no usable generation does it wait (bounded) or fail in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from helix.core.config import HelixConfig
from helix.core.errors import IndexLockedError
from helix.core.notices import collect
from helix.core.paths import index_dir_for
from helix.core.ports import FakeEmbedder
from indexers import build as build_mod
from indexers.build import build_index, ensure_index
from indexers.store import CURRENT, IndexStore
from tests.index_fixtures import write_repo

CONFIG = HelixConfig()
REPO_ROOT = Path(__file__).parent.parent
WAIT_S = 60.0


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo")


def test_reader_uses_the_current_generation_while_the_lock_is_held(repo: Path,
                                                                   tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    built = build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    (repo / "pkg" / "new.py").write_text("def added():\n    return 2\n", encoding="utf-8")
    started = time.monotonic()
    with IndexStore(index_dir).locked(), collect() as notes:
        index, report = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
        assert index.find_definitions("fetch")  # parts readable while the lock is held
    assert time.monotonic() - started < 2.0  # no 3 s lock wait, no failure
    assert report.stale and not report.refreshed and not report.noop
    assert report.index_rev == index.index_rev == built.index_rev
    assert not index.find_definitions("added")  # the generation as it was (possibly stale)
    assert len(notes) == 1
    assert notes[0].startswith(f"the index at {index_dir} is being rebuilt by another helix "
                               "process; answering from the generation built at ")
    assert notes[0].endswith("UTC (repo_rev nogit), without the changes since")
    assert report.warnings == (notes[0],)
    # the lock released, the next reader refreshes as usual
    fresh, after = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert after.refreshed and not after.stale and fresh.find_definitions("added")


def test_an_up_to_date_index_is_a_plain_no_op_under_another_holder(repo: Path,
                                                                   tmp_path: Path) -> None:
    """The lock holder may be another reader checking freshness: when the current generation
    is up to date there is nothing to say (no note, not stale)."""
    index_dir = tmp_path / "idx"
    built = build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    with IndexStore(index_dir).locked(), collect() as notes:
        index, report = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
        assert index.find_definitions("fetch")
    assert notes == [] and report.noop and not report.stale and not report.refreshed
    assert report.index_rev == built.index_rev and report.files_seen == built.files_seen


def test_no_generation_waits_for_the_writer_then_fails_in_one_line(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_mod, "READER_WAIT_S", 0.3)
    index_dir = tmp_path / "idx"
    with IndexStore(index_dir).locked(), collect() as notes, \
            pytest.raises(IndexLockedError) as caught:
        ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert str(caught.value) == (f"another helix process is writing the index at {index_dir} "
                                 "(waited 0.3 s); try again when it has finished")
    assert notes == [f"another helix process is building the index at {index_dir}; waiting "
                     "for it (up to 0.3 s)"]


def test_no_generation_waits_until_the_writer_is_done(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    holder = IndexStore(index_dir).locked()
    holder.__enter__()
    timer = threading.Timer(0.5, lambda: holder.__exit__(None, None, None))
    timer.start()
    try:
        with collect():
            index, report = ensure_index(repo, CONFIG, index_dir=index_dir,
                                         embedder=FakeEmbedder())
    finally:
        timer.join()
    assert report.refreshed and not report.stale and index.find_definitions("fetch")


def test_a_corrupt_generation_is_not_answered_from(repo: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A generation whose parts fail their digests is no generation to answer from: the
    reader waits for the writer instead."""
    monkeypatch.setattr(build_mod, "READER_WAIT_S", 0.2)
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    defs = index_dir / (index_dir / CURRENT).read_text().strip() / "rows.sqlite"
    time.sleep(0.02)
    defs.write_bytes(defs.read_bytes().replace(b"fetch", b"fetcH"))
    with IndexStore(index_dir).locked(), collect() as notes, pytest.raises(IndexLockedError):
        ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert notes and notes[0].startswith("another helix process is building the index")


HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from indexers.store import IndexStore

    with IndexStore(Path(sys.argv[1])).locked():
        Path(sys.argv[2]).write_text("locked")
        time.sleep(600)
""")


def _helix(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false"}
    return subprocess.run([sys.executable, "-m", "helix.cli.main", *args], capture_output=True,
                          text=True, env=env, check=False, cwd=REPO_ROOT)


def test_ask_answers_while_another_process_holds_the_lock(repo: Path, tmp_path: Path,
                                                          helix_home: Path) -> None:
    first = _helix(["index", str(repo)], helix_home)
    assert first.returncode == 0, first.stderr
    ready = tmp_path / "locked"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(index_dir_for(repo)),
                               str(ready)], cwd=REPO_ROOT, env=dict(os.environ))
    try:
        deadline = time.monotonic() + WAIT_S
        while not ready.exists() and holder.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), "the holder never took the lock"
        (repo / "pkg" / "new.py").write_text("def added():\n    return 2\n", encoding="utf-8")
        asked = _helix(["ask", "where is the retry policy decided?", "--repo", str(repo),
                        "--dry-run", "--json"], helix_home)
        found = _helix(["find", "fetch", str(repo)], helix_home)
    finally:
        holder.kill()
        holder.wait()
    assert asked.returncode == 0, asked.stderr
    envelope = json.loads(asked.stdout)
    assert envelope["index_refreshed"] is False
    assert any(e["path"] == "pkg/util.py" for e in envelope["evidence"])
    notes = [line for line in asked.stderr.splitlines() if "being rebuilt" in line]
    assert len(notes) == 1 and notes[0].startswith(
        f"helix: the index at {index_dir_for(repo)} is being rebuilt by another helix process; "
        "answering from the generation built at ")
    assert found.returncode == 0 and "pkg/client.py" in found.stdout, found.stderr
