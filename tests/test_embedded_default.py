"""The embedded default needs neither engine of the scale-out (issue 33): with Ray and the
PostgreSQL client made unimportable (as on a machine without the `cluster` and `postgres`
extras), a fresh process indexes, asks, holds a conversation, lists the run log and the
registry, and indexes several repositories into a store root; nothing even tries to import
either (an import that failed and was caught would count too)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "data" / "fixtures"
ENGINES = ("ray", "psycopg", "psycopg_pool")
SCRIPT = """
import importlib.abc, json, sys

tried = []

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ENGINES:
            tried.append(name)
            raise ImportError(f"{name} is not installed here")
        return None

sys.meta_path.insert(0, Refuse())
from helix.cli.main import main

codes = []
for argv in COMMANDS:
    try:
        main(argv)
        codes.append(0)
    except SystemExit as exc:
        codes.append(int(exc.code or 0))
print("RESULT " + json.dumps({"codes": codes, "tried": tried}))
"""


def test_the_embedded_default_runs_without_ray_or_psycopg(tmp_path: Path,
                                                          helix_home: Path) -> None:
    repo, other = FIXTURES / "continuity_repo", FIXTURES / "answer_repo"
    commands = [
        ["index", str(repo), "--no-embed"],
        ["ask", "--repo", str(repo), "--dry-run", "where is the BM25 index built?"],
        ["ask", "--repo", str(repo), "--session", "s", "--dry-run",
         "how does the search engine rank documents?"],
        ["ask", "--repo", str(repo), "--session", "s", "--dry-run", "who calls it?"],
        ["log", "--json"],
        ["index", str(repo), str(other), "--no-embed", "--store-root",
         str(tmp_path / "store")],
        ["repos", "--json"],
        ["ask", "--repos", "all", "--dry-run", "where is the retry policy decided?"],
    ]
    script = f"ENGINES = {ENGINES!r}\nCOMMANDS = {commands!r}\n{SCRIPT}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HELIX_INDEX__EMBED_ENABLED": "false"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=600, cwd=tmp_path)
    result = next((line for line in done.stdout.splitlines() if line.startswith("RESULT ")),
                  None)
    assert result is not None, done.stderr[-3000:]
    outcome = json.loads(result.removeprefix("RESULT "))
    assert outcome["codes"] == [0] * len(commands), done.stderr[-3000:]
    assert outcome["tried"] == []
    assert (helix_home / "helix.sqlite").is_file()  # the state is the embedded file
