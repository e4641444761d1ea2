"""'Who calls it?' lists real callers only (issue 10, section 4): a click-style CLI command
`index` and a module calling `list.index` on lists. Through the real CLI: the usage answer of
`helix ask "who calls index?"` and the session's graph follow-up on the opened definition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from helix.cli.main import cli

FILES = {
    "cli.py": '"""The command line."""\nimport click\n\n\n@click.group()\ndef main():\n'
              '    """Entry point."""\n\n\n@main.command()\ndef index(path):\n'
              '    """Index a repository at path."""\n    return path\n',
    "lists.py": "def position(names):\n    first = [1, 2].index(1)\n"
                "    return names.index('a') + first\n",
    "run_a.py": "import cli\n\n\ndef rebuild():\n    return cli.index('x')\n",
    "run_b.py": "from cli import index\n\n\ndef refresh():\n    return index('y')\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / ".git").mkdir()  # a repository root; git is never run on an empty .git
    return root


def _run(*args: str) -> dict:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_who_calls_lists_importing_callers_not_list_methods(repo: Path) -> None:
    env = _run("ask", "who calls index?", "--repo", str(repo), "--dry-run", "--json")
    answer = env["answer"]
    assert "run_a.py:5" in answer and "run_b.py:5" in answer, answer
    assert "lists.py" not in answer, answer


def test_the_session_follow_up_lists_the_same_callers(repo: Path) -> None:
    _run("ask", "where is the index command defined?", "--repo", str(repo), "--session", "S",
         "--json")
    opened = _run("ask", "open the first one", "--repo", str(repo), "--session", "S", "--json")
    assert opened["opened"]["target"]["id"] == "def:cli.py::index", opened["opened"]
    turn = _run("ask", "who calls it?", "--repo", str(repo), "--session", "S", "--json")
    assert turn["lane"] == "graph", turn["lane"]
    listed = json.dumps(turn["shown"])
    assert "run_a.py" in listed and "run_b.py" in listed, listed
    assert "lists.py" not in listed, listed
