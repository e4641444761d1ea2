"""requirements/lock.txt pins every package Helix needs, direct and transitive, at one version
each, and those versions satisfy pyproject.toml: what `scripts/test` and the README install."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep and name == canonicalize_name(name) and version, line
        assert name not in pins, f"{name} pinned twice"
        pins[name] = version
    assert list(pins) == sorted(pins)
    return pins


def test_the_lock_pins_every_direct_dependency_within_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = _pins()
    extras = project["optional-dependencies"]
    # the extras scripts/test installs: the scale-out tests run ray and psycopg for real
    for text in [*project["dependencies"], *extras["dev"], *extras["eval"], *extras["cluster"],
                 *extras["postgres"]]:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate():
            continue
        name = canonicalize_name(req.name)
        assert name in pins, f"{name} is not in requirements/lock.txt (run scripts/lock)"
        assert req.specifier.contains(pins[name], prereleases=True), (name, pins[name])


def test_the_lock_reaches_the_transitive_dependencies() -> None:
    pins = _pins()
    # a few that only other packages ask for: the lock is the whole tree, not pyproject's list
    assert {"openai", "httpx", "transformers", "pydantic-core", "starlette", "msgpack"} <= set(pins)


def test_scripts_lock_diff_names_what_differs() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "lock"), "--help"],
                          capture_output=True, text=True, check=True)
    assert "--check" in done.stdout and "--diff" in done.stdout
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("lock_script", str(ROOT / "scripts" / "lock"))
    spec = importlib.util.spec_from_loader("lock_script", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    assert module.diff({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "1"}) == [
        "b: 2 -> 3", "c: - -> 1"]
    text = module.render({"zeta": "1.0", "alpha": "2.0"})
    assert text.endswith("alpha==2.0\nzeta==1.0\n")
