"""`helix ask --dry-run` through the CLI, on a small fixture repo indexed for real."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from fakes import write_repo

FILES = {
    "README.md": "# Demo\n\nDemo computes a retry backoff. See docs/retry.md.\n",
    "docs/retry.md": "# Retry policy\n\nThe retry policy is decided by `compute_backoff`.\n",
    "client/__init__.py": "",
    "client/backoff.py": "def compute_backoff(attempt):\n    \"\"\"Seconds to wait.\"\"\"\n"
                         "    return 2 ** attempt\n",
    "tests/test_backoff.py": "from client.backoff import compute_backoff\n\n\n"
                             "def test_backoff():\n    assert compute_backoff(2) == 4\n",
}
KEYS = {"question", "repo_rev", "config_hash", "route", "slots", "controller_steps",
        "stop_reason", "items", "item_hashes", "evidence", "clarify", "tree_walk",
        "answer_mode", "answer", "llm_steps", "timings_ms"}


def _helix(args: list[str], home: Path,
           stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """A real `helix` process (what a cold process does is what such a test is about)."""
    env = {"HELIX_HOME": str(home), "PATH": "/usr/bin:/bin", "HELIX_INDEX__EMBED_ENABLED": "false",
           "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "helix.cli.main", *args], input=stdin,
                          capture_output=True, text=True, env=env, check=False)


@pytest.fixture
def helix(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
          ) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`helix` in this process (its entry point, `helix.cli.main.main`), with the environment
    `_helix` gives a process: what is printed and the exit code are what these tests read, and
    a process costs a second or two of imports each (test_dry_run_json_envelope and
    test_cold_dry_run_imports_no_heavy_modules keep real processes)."""
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")

    def call(args: list[str], home: Path,
             stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        assert os.environ["HELIX_HOME"] == str(home)
        with monkeypatch.context() as m:
            m.setattr(sys, "stdin", io.StringIO(stdin or ""))
            code, out, err = run(args, capsys)
        return subprocess.CompletedProcess(args, code, out, err)

    return call


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_repo(tmp_path_factory.mktemp("askrepo"), FILES)


def test_dry_run_json_envelope(repo: Path, helix_home: Path) -> None:
    run = _helix(["ask", "where is the retry policy decided?", "--repo", str(repo),
                  "--dry-run", "--json"], helix_home)
    assert run.returncode == 0, run.stderr
    env = json.loads(run.stdout)
    assert set(env) >= KEYS
    assert env["llm_steps"] == 0 and env["answer_mode"] == "dry_run"
    assert env["controller_steps"]
    assert any(e["path"] == "client/backoff.py" for e in env["evidence"])
    for e in env["evidence"]:
        assert {"path", "start_line", "end_line", "kind", "score", "content_hash", "node_id",
                "reasons"} <= set(e)
    assert set(env["item_hashes"]) >= {"intent", "selected_trees", "doc_section_hits",
                                       "repo_search_hits", "proof_spans",
                                       "slot_coverage_report"}


def test_question_from_file_and_stdin(repo: Path, helix_home: Path,
                                      helix: Callable[..., Any], tmp_path: Path) -> None:
    qfile = tmp_path / "q.txt"
    qfile.write_text("where is the retry policy decided?\n", encoding="utf-8")
    a = helix(["ask", "--question-file", str(qfile), "--repo", str(repo), "--dry-run",
              "--json"], helix_home)
    b = helix(["ask", "-", "--repo", str(repo), "--dry-run", "--json"], helix_home,
              stdin="where is the retry policy decided?")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert ja["question"] == jb["question"] == "where is the retry policy decided?"
    assert ja["item_hashes"] == jb["item_hashes"]


def test_human_rendering_and_errors(repo: Path, helix_home: Path,
                                    helix: Callable[..., Any]) -> None:
    run = helix(["ask", "where is the retry policy decided?", "--repo", str(repo),
                "--dry-run"], helix_home)
    assert run.returncode == 0, run.stderr
    for word in ("route", "step 0", "stop", "tree walk", "answer", "client/backoff.py:"):
        assert word in run.stdout
    as_json = json.loads(helix(["ask", "where is the retry policy decided?", "--repo",
                               str(repo), "--dry-run", "--json"], helix_home).stdout)
    covered = as_json["controller_steps"][0]["covered_slots"]
    assert covered and f"covered=[{', '.join(covered)}]" in run.stdout  # not eaten as markup
    bad = helix(["ask", "x", "--repo", str(repo / "missing"), "--dry-run"], helix_home)
    assert bad.returncode == 2 and bad.stderr.startswith("helix: ")
    assert "Traceback" not in bad.stderr
    empty = helix(["ask", "--repo", str(repo), "--dry-run"], helix_home, stdin="")
    assert empty.returncode == 2 and "no question" in empty.stderr


def test_trace_streams_json_lines_to_stderr(repo: Path, helix_home: Path,
                                            helix: Callable[..., Any]) -> None:
    run = helix(["ask", "where is the retry policy decided?", "--repo", str(repo), "--dry-run",
                "--json", "--trace"], helix_home)
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    names = [e["event"] for e in events]
    assert names[0] == "controller_step" and "stop" in names and "tree_walk" in names
    envelope = json.loads(run.stdout)  # stdout stays the envelope alone
    assert names.count("tree_walk_node") == len(envelope["tree_walk"]["nodes"])
    with_session = helix(["ask", "why?", "--repo", str(repo), "--session", "s", "--trace"],
                         helix_home)
    assert with_session.returncode == 2 and "--trace does not combine" in with_session.stderr
    assert "Traceback" not in with_session.stderr


def test_without_dry_run_is_deterministic_mode(repo: Path, helix_home: Path,
                                               helix: Callable[..., Any]) -> None:
    run = helix(["ask", "where is the retry policy decided?", "--repo", str(repo), "--json"],
                helix_home)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["answer_mode"] in ("deterministic", "llm", "fallback")


def test_cold_dry_run_imports_no_heavy_modules(repo: Path, helix_home: Path,
                                               helix: Callable[..., Any]) -> None:
    code = (
        "import sys\n"
        "from helix.cli.main import main\n"
        "try:\n"
        f"    main(['ask', 'where is the retry policy decided?', '--repo', {str(repo)!r},"
        " '--dry-run', '--json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'litellm', 'ssl')"
        " if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
    )
    helix(["ask", "warm", "--repo", str(repo), "--dry-run"], helix_home)  # index first
    env = {"HELIX_HOME": str(helix_home), "PATH": "/usr/bin:/bin",
           "HELIX_INDEX__EMBED_ENABLED": "false"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=False)
    assert "HEAVY=\n" in run.stderr or run.stderr.rstrip().endswith("HEAVY="), run.stderr


def test_the_dry_run_table_never_cuts_a_path_off_a_terminal(tmp_path, capsys, monkeypatch):
    """Piped output keeps every `path:line` whole (no 80-column ellipsis)."""
    deep = tmp_path / "a_rather_long_directory_name" / "with_more_levels_below_it" / "and_more"
    deep.mkdir(parents=True)
    (deep / "the_retry_policy_module.py").write_text(
        "def decide_retry(attempt):\n    \"\"\"Decide whether to retry.\"\"\"\n"
        "    return attempt < 5\n", encoding="utf-8")
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    code, out, err = run(["ask", "--repo", str(tmp_path), "--dry-run",
                          "where is decide_retry?"], capsys)
    assert code == 0, err
    whole = ("a_rather_long_directory_name/with_more_levels_below_it/and_more/"
             "the_retry_policy_module.py:1-3")
    assert whole in out and "…" not in out
