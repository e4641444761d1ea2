"""Imports flow one way: helix.core <- indexers <- controller <- the helix roof <- evals
(`[tool.importlinter]` in pyproject.toml, checked by import-linter's own `lint-imports`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers")
    return [name.strip() for layer in contract["layers"] for name in layer.split(":")]


def test_imports_flow_one_way() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
         "sys.exit(lint_imports_command())", "--no-cache"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 kept, 0 broken" in result.stdout


def test_every_part_of_the_roof_is_in_a_layer() -> None:
    """A new module or package under helix/ is checked, not silently outside the contract."""
    parts = {f"helix.{p.stem}" for p in (ROOT / "helix").iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.name != "__init__.py"}
    assert parts <= set(_layers()), sorted(parts - set(_layers()))


def test_a_broken_rule_fails_the_check(tmp_path: Path) -> None:
    """Both contracts bite: a controller module reaching into the session store (the roof), and
    a continuity module holding a port instead of yielding a request."""
    for part in ("helix", "indexers", "controller", "evals"):
        shutil.copytree(ROOT / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "controller" / "upward.py").write_text("import helix.session.store\n")
    (tmp_path / "controller" / "continuity" / "holds_port.py").write_text(
        "from helix.core import ports\n")
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
         "sys.exit(lint_imports_command())", "--no-cache"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert result.returncode != 0
    assert "0 kept, 2 broken" in result.stdout, result.stdout[-3000:]
    assert "controller.upward -> helix.session.store" in result.stdout
    assert "controller.continuity.holds_port -> helix.core.ports" in result.stdout
