"""What ships: the product distribution (helix, indexers, controller) holds no evals and needs
none of the benchmark-only packages; the evaluation tools are their own distribution
(helix-evals, evals/pyproject.toml, which declares `helix eval`), installed with the `eval`
extra from a checkout by scripts/test; the lock covers both."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
# imported by evals/, benchmarks/ and scripts/ only (pint: scripts/units_from_pint.py, whose
# output controller/units_library.toml the product reads as data)
BENCHMARK_ONLY = {"plotly", "bm25s", "pint"}


def _project(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _imported(package: str) -> set[str]:
    names: set[str] = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return names


def test_the_product_ships_no_evals_and_no_benchmark_only_dependency() -> None:
    config = _project(ROOT / "pyproject.toml")
    project = config["project"]
    assert not any(p.startswith("evals") for p in
                   config["tool"]["setuptools"]["packages"]["find"]["include"])
    assert "helix.commands" not in project.get("entry-points", {})
    needs = {Requirement(r).name for r in project["dependencies"]}
    assert not needs & BENCHMARK_ONLY
    assert {Requirement(r).name for r in project["optional-dependencies"]["eval"]} \
        == BENCHMARK_ONLY
    for package in ("helix", "indexers", "controller"):  # nothing shipped needs them
        assert not _imported(package) & (BENCHMARK_ONLY | {"evals", "benchmarks"}), package


def test_helix_evals_holds_every_evals_package_and_the_eval_command() -> None:
    project = _project(ROOT / "evals" / "pyproject.toml")
    assert project["project"]["name"] == "helix-evals"
    assert project["project"]["entry-points"]["helix.commands"] == {
        "eval": "evals.cli.eval_cmd:command"}
    setuptools = project["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"evals": "."}
    found = sorted(".".join(("evals", *p.parent.relative_to(ROOT / "evals").parts))
                   for p in (ROOT / "evals").rglob("__init__.py"))
    assert sorted(setuptools["packages"]) == found  # a new sub-package is listed, not lost
    assert "configs/*.toml" in setuptools["package-data"]["evals"]


def test_scripts_test_installs_the_eval_extra_and_helix_evals() -> None:
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert "-e '.[dev,eval]' -e ./evals" in script
