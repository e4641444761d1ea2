"""Secrets at rest and in flight, end to end, through the real CLI in a fresh process: a
repository planted with a secret in every syntax of `tests/secret_corpus.py` is indexed, asked
about (with the test model, so a prompt is built and logged; and in a session) and exported;
no planted value is in anything printed, in any file under $HELIX_HOME (index parts, run log,
sessions, caches), or in the export, and every file Helix wrote there is private to the user.
The commands run through the entry point one after another in one fresh process."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

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


# every command through the real entry point, one after another in one fresh process (a
# `helix` process each cost ~1.7 CPU s): what each printed, its exit code, and what the
# process itself wrote to its descriptors (checked too)
_DRIVER = """
import contextlib, io, json, sys
from helix.cli.main import main
done = []
for argv in json.loads(sys.argv[2]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    done.append({"code": code, "out": out.getvalue(), "err": err.getvalue()})
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    json.dump(done, handle)
"""


def _helix(commands: list[list[str]], home: Path, cwd: Path) -> tuple[list[dict[str, Any]],
                                                                       list[str]]:
    env = {**os.environ, "HELIX_HOME": str(home), "HELIX_INDEX__EMBED_ENABLED": "false",
           "OPENAI_API_KEY": "test-key-not-sent"}
    results = cwd / "results.json"
    process = subprocess.run(
        [sys.executable, "-P", "-c", _DRIVER, str(results), json.dumps(commands)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
        preexec_fn=lambda: os.umask(0o022))  # a permissive umask: Helix must tighten it
    assert process.returncode == 0, process.stderr
    done = json.loads(results.read_text(encoding="utf-8"))
    results.unlink()
    return done, [process.stdout, process.stderr]


@pytest.mark.slow
def test_no_planted_secret_is_printed_stored_or_exported(tmp_path: Path) -> None:
    repo, home = tmp_path / "repo", tmp_path / "home"
    for name, text, _ in CORPUS:
        write(repo, f"conf/{name}", text)
    # the echo model quotes the first evidence item back: a secret the redaction missed
    # would come back in the answer; then a session's turns, the run shown and exported
    commands = [["index", str(repo), "--json"],
                *(["ask", "--repo", str(repo), "--model", "fake/echo", "--json", question]
                  for question in QUESTIONS),
                *(["ask", "--repo", str(repo), "--session", "audit", "--dry-run", "--json",
                   question] for question in (*QUESTIONS[:1], "and which password does it use?")),
                ["show", "last", "--json"],
                ["export", "--out", str(tmp_path / "out.jsonl"), "--include-diagnostic"]]
    done, outputs = _helix(commands, home, tmp_path)
    indexed, asked, turns = done[0], done[1:1 + len(QUESTIONS)], done[1 + len(QUESTIONS):-2]
    assert indexed["code"] == 0, indexed["err"]
    assert json.loads(indexed["out"])["files_indexed"] >= 60
    assert all(a["code"] in (0, 3) for a in asked), asked
    assert len(turns) == 2 and all(t["code"] == 0 for t in turns), turns
    assert done[-1]["code"] == 0 and done[-2]["code"] == 0, done[-2:]
    outputs += [text for result in done for text in (result["out"], result["err"])]
    outputs.append((tmp_path / "out.jsonl").read_text(encoding="utf-8"))
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
