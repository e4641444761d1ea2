"""The README's `helix drift` and `helix stale-docs` examples are what the commands print on
the repository of tests/change_fixtures.py (turn ids and ask times aside)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import change_fixtures as cf
from tests.cli_helpers import run

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py

README = Path(__file__).resolve().parents[1] / "README.md"
VARYING = ((re.compile(r"turn [0-9a-f]{12}"), "turn T"),
           (re.compile(r"asked \d{4}-\d\d-\d\d \d\d:\d\d UTC"), "asked WHEN"))


def _example(command: str) -> str:
    text = README.read_text(encoding="utf-8")
    block = text.split(f"```\n$ {command}\n", 1)[1].split("```", 1)[0]
    return block


def _same(text: str) -> str:
    for pattern, shown in VARYING:
        text = pattern.sub(shown, text)
    return text.strip()


def test_the_readme_shows_real_output(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = cf.build(tmp_path)
    for question in (cf.QUESTIONS["default"], cf.QUESTIONS["headers"]):
        code, _, err = run(["ask", "--repo", str(repo), "--dry-run", question], capsys)
        assert code == 0, err
    cf.change(repo, shas)
    code, out, _ = run(["drift", "--repo", str(repo)], capsys)
    assert code == 0 and _same(out) == _same(_example("helix drift"))
    code, out, _ = run(["stale-docs", "--repo", str(repo)], capsys)
    assert code == 1 and _same(out) == _same(_example("helix stale-docs"))
