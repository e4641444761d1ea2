"""Imports flow one way: helix.core <- indexers <- controller <- the helix roof <- evals
(`[tool.importlinter]` in pyproject.toml, checked by import-linter's own `lint-imports`)."""

from __future__ import annotations

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
    assert "1 kept, 0 broken" in result.stdout


def test_every_part_of_the_roof_is_in_a_layer() -> None:
    """A new module or package under helix/ is checked, not silently outside the contract."""
    parts = {f"helix.{p.stem}" for p in (ROOT / "helix").iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.name != "__init__.py"}
    assert parts <= set(_layers()), sorted(parts - set(_layers()))
