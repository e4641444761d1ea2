"""Secrets at rest and in flight, end to end, through the real CLI in a fresh process: a
repository planted with a secret in every syntax of `tests/secret_corpus.py` is indexed, asked
about (with the test model, so a prompt is built and logged; and in a session) and exported;
no planted value is in anything printed, in any file under $HELIX_HOME (index parts, run log,
sessions, caches), or in the export, and every file Helix wrote there is private to the user."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from helix.core.secrets import redact_text
from tests.index_fixtures import write
from tests.secret_corpus import CORPUS, EXTRA_VALUES, all_values

QUESTIONS = ("what is the database password?", "which api key does the client use?",
             "how do I log in to the registry with docker?")


def test_every_format_is_redacted() -> None:
    assert len(CORPUS) >= 60
    for name, text, value in CORPUS:
        clean, counts = redact_text(text)
        for planted in (value, *EXTRA_VALUES.get(name, ())):
            assert planted not in clean, (name, clean)
        assert counts, name
        assert clean.count("\n") == text.count("\n")  # line numbers stay true


def _helix(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false",
           "OPENAI_API_KEY": "test-key-not-sent"}
    return subprocess.run(
        [sys.executable, "-P", "-c", "import sys; from helix.cli.main import main; "
         "sys.exit(main(sys.argv[1:]))", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
        preexec_fn=lambda: os.umask(0o022))  # a permissive umask: Helix must tighten it


@pytest.mark.slow
def test_no_planted_secret_is_printed_stored_or_exported(tmp_path: Path) -> None:
    repo, home = tmp_path / "repo", tmp_path / "home"
    for name, text, _ in CORPUS:
        write(repo, f"conf/{name}", text)
    indexed = _helix(["index", str(repo), "--json"], home, tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["files_indexed"] >= 60
    outputs = [indexed.stdout, indexed.stderr]
    for question in QUESTIONS:
        # the echo model quotes the first evidence item back: a secret the redaction missed
        # would come back in the answer
        asked = _helix(["ask", "--repo", str(repo), "--model", "fake/echo", "--json",
                        question], home, tmp_path)
        assert asked.returncode in (0, 3), asked.stderr
        outputs += [asked.stdout, asked.stderr]
    for question in (*QUESTIONS[:1], "and which password does it use?"):  # a session's turns
        turn = _helix(["ask", "--repo", str(repo), "--session", "audit", "--dry-run", "--json",
                       question], home, tmp_path)
        assert turn.returncode == 0, turn.stderr
        outputs += [turn.stdout, turn.stderr]
    shown = _helix(["show", "last", "--json"], home, tmp_path)
    exported = _helix(["export", "--out", str(tmp_path / "out.jsonl"), "--include-diagnostic"],
                      home, tmp_path)
    outputs += [shown.stdout, exported.stdout, exported.stderr,
                (tmp_path / "out.jsonl").read_text(encoding="utf-8")]
    stored = [path for path in home.rglob("*") if path.is_file()]
    assert stored
    blobs = [path.read_bytes() for path in stored]
    leaks = [(value, path.relative_to(home).as_posix())
             for value in all_values() for path, blob in zip(stored, blobs, strict=True)
             if value.encode() in blob]
    leaks += [(value, "output") for value in all_values() for text in outputs if value in text]
    assert leaks == []
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    loose = [p.relative_to(home).as_posix() for p in home.rglob("*")
             if stat.S_IMODE(p.lstat().st_mode) & 0o077]
    assert loose == []
