"""`helix index`, `helix status`, `helix find` through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run

from tests.index_fixtures import write_repo


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")  # no model in CLI tests
    return write_repo(tmp_path / "repo")


def test_index_json_keys(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["index", str(repo), "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    for key in ("files_indexed", "files_skipped", "changed_files", "chunks", "symbols",
                "graph_nodes", "graph_edges", "repo_rev", "seconds", "index_rev", "noop",
                "embeddings", "files_seen"):
        assert key in data, key
    assert data["files_indexed"] == 5 and not data["noop"]
    assert set(data["seconds"]) >= {"walk", "parse", "bm25", "embed", "graph", "write", "total"}
    code, out, _ = run(["index", str(repo), "--json"], capsys)
    assert json.loads(out)["noop"] is True


def test_index_human_output(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["index", str(repo), "--no-embed"], capsys)
    assert code == 0
    assert "files: 5 seen, 5 indexed" in out and "graph:" in out and "seconds:" in out
    code, out, _ = run(["index", str(repo), "--no-embed"], capsys)
    assert "index is up to date (no changes)" in out


def test_status_after_edit(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["status", str(repo)], capsys)
    assert code == 0 and "not indexed" in out
    run(["index", str(repo)], capsys)
    code, out, _ = run(["status", str(repo)], capsys)
    assert "index: fresh" in out
    (repo / "pkg" / "util.py").write_text("A = 1\n", encoding="utf-8")
    code, out, _ = run(["status", str(repo)], capsys)
    assert "stale" in out and "modified: pkg/util.py" in out
    code, out, _ = run(["status", str(repo), "--json"], capsys)
    data = json.loads(out)
    assert data["fresh"] is False and data["changed_files"] == ["pkg/util.py"]
    assert data["size_bytes"] > 0 and data["built_repo_rev"] == "nogit"


def test_find_exact_fuzzy_json_nomatch(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["find", "retry_policy", str(repo)], capsys)
    assert code == 0
    assert "pkg/util.py:4  function retry_policy  (2 references: 2 calls; 1 imports)" in out
    code, out, _ = run(["find", "delay", str(repo)], capsys)
    assert "method Backoff.delay in Backoff" in out
    code, out, _ = run(["find", "retry_polcy", str(repo)], capsys)
    assert code == 0 and "fuzzy" in out and "retry_policy" in out
    code, out, _ = run(["find", "Backoff", str(repo), "--json"], capsys)
    data = json.loads(out)
    assert data["fuzzy"] is False and data["query"] == "Backoff"
    assert data["definitions"][0] == {
        "name": "Backoff", "qualname": "Backoff", "kind": "class", "path": "pkg/util.py",
        "line": 9, "end_line": 14, "scope": None, "references": 2, "calls": 2, "imports": 2}
    code, out, _ = run(["find", "backof", str(repo), "--json", "--limit", "1"], capsys)
    data = json.loads(out)
    assert data["fuzzy"] is True and len(data["definitions"]) == 1
    code, out, err = run(["find", "zzzqqqxxx", str(repo)], capsys)
    assert code == 1 and err.strip() == "helix: no definition matches 'zzzqqqxxx'"


def test_index_dir_option(repo: Path, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "elsewhere"
    code, out, _ = run(["index", str(repo), "--json", "--index-dir", str(target)], capsys)
    assert code == 0 and json.loads(out)["index_dir"] == str(target.resolve())
    assert (target / "CURRENT").is_file()
    code, out, _ = run(["status", str(repo), "--json", "--index-dir", str(target)], capsys)
    assert json.loads(out)["fresh"] is True


def test_helix_home_respected(repo: Path, helix_home: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    _code, out, _ = run(["index", str(repo), "--json"], capsys)
    assert Path(json.loads(out)["index_dir"]).is_relative_to(helix_home / "indexes")


MISSING_PATH_COMMANDS = (("index",), ("status",), ("find", "x"))
# `python -m helix.cli.main COMMAND... PATH` for each command, one after another in one fresh
# process (the module run as __main__ each time, as the interpreter runs it; an exception that
# escapes is printed as the interpreter would): exit code, stdout and stderr each
_RUN_EACH = """
import contextlib, io, json, runpy, sys, traceback
done = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        sys.argv = ["helix", *argv]
        try:
            runpy.run_module("helix.cli.main", run_name="__main__")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
            code = 1
    done.append({"code": code, "out": out.getvalue(), "err": err.getvalue()})
print(json.dumps(done))
"""


@pytest.fixture(scope="module")
def missing_path_runs(tmp_path_factory: pytest.TempPathFactory,
                      shared_models: Path) -> dict[str, dict[str, Any]]:
    """Each command given a path that does not exist, in one `helix` process (one start, not
    one a command), with a home of its own as every test has (conftest's helix_home)."""
    where = tmp_path_factory.mktemp("missing")
    missing = str(where / "does-not-exist")
    argvs = [[*command, missing] for command in MISSING_PATH_COMMANDS]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HELIX_")}
    env.update(HELIX_HOME=str(where / "home"), HELIX_MODELS_DIR=str(shared_models),
               HELIX_SYNTHESIS__MODEL_HELPER="off")
    done = subprocess.run([sys.executable, "-c", _RUN_EACH, json.dumps(argvs)],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return {" ".join(command): {**run, "missing": missing}
            for command, run in zip(MISSING_PATH_COMMANDS, json.loads(done.stdout), strict=True)}


@pytest.mark.parametrize("command", [" ".join(c) for c in MISSING_PATH_COMMANDS])
def test_missing_path_one_line_exit_2(command: str,
                                      missing_path_runs: dict[str, dict[str, Any]]) -> None:
    done = missing_path_runs[command]
    assert done["code"] == 2
    assert done["err"].strip() == f"helix: path does not exist: {done['missing']}"
    assert "Traceback" not in done["err"] and done["out"] == ""


def test_an_index_built_without_embeddings_is_answered_from(
        repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HELIX_INDEX__EMBED_ENABLED", raising=False)
    assert run(["index", str(repo), "--no-embed"], capsys)[0] == 0
    code, out, _ = run(["status", str(repo), "--json"], capsys)
    before = json.loads(out)
    assert code == 0 and before["fresh"] is True
    code, out, err = run(["ask", "--repo", str(repo), "--dry-run", "--json",
                          "where is the retry policy?"], capsys)
    assert code == 0 and "settings changed" not in err and "built without embeddings" in err
    assert json.loads(out)["index_rev"] == before["index_rev"]  # the same index, not rebuilt
