"""scripts/installed: scripts/test skips its pip steps only when a stamp written after they
succeeded matches this Python and the install's inputs, and importlib.metadata finds every
locked package at its version and helix/helix-evals editable from the checkout; a fresh Python,
a changed lock or an upgraded package installs as before."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import venv
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "installed"


def _script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("installed_script", str(SCRIPT))
    spec = importlib.util.spec_from_loader("installed_script", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _dist(site: Path, name: str, version: str, editable_from: Path | None = None,
          command: str | None = None) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                                   encoding="utf-8")
    if editable_from is not None:
        (info / "direct_url.json").write_text(json.dumps(
            {"dir_info": {"editable": True}, "url": f"file://{editable_from}"}), encoding="utf-8")
    if command is not None:
        (info / "entry_points.txt").write_text(
            f"[console_scripts]\n{command} = {name}.cli:main\n", encoding="utf-8")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "requirements").mkdir(parents=True)
    (root / "evals").mkdir()
    (root / "scripts").mkdir()
    (root / "requirements" / "lock.txt").write_text(
        "# header\nalpha==1.0\nbeta-pkg==2.1\ntorch==2.13.0\n", encoding="utf-8")
    (root / "pyproject.toml").write_text("[project]\nname = 'helix'\n", encoding="utf-8")
    (root / "evals" / "pyproject.toml").write_text("[project]\nname = 'helix-evals'\n",
                                                   encoding="utf-8")
    (root / "scripts" / "test").write_text("#!/bin/sh\n", encoding="utf-8")
    return root


def _site(tmp_path: Path, checkout: Path, **versions: str) -> Path:
    site = tmp_path / "site"
    for name, version in versions.items():
        _dist(site, name.replace("_", "-"), version)
    _dist(site, "helix", "0.1.0", editable_from=checkout)
    _dist(site, "helix-evals", "0.1.0", editable_from=checkout / "evals")
    return site


def test_the_check_passes_only_with_the_stamp_and_every_locked_version(
        tmp_path: Path, checkout: Path) -> None:
    script = _script()
    site = _site(tmp_path, checkout, alpha="1.0", Beta_Pkg="2.1", torch="2.13.0+cpu")
    stamp = tmp_path / "stamp"
    path = [str(site)]
    # a checkout never stamped installs, even with every package there
    assert script.check(checkout, stamp, path) == ["no install stamp for this checkout"]
    script.write_stamp(checkout, stamp)
    assert script.check(checkout, stamp, path) == []  # torch's +cpu is the locked 2.13.0
    # a new lock (or pyproject, or scripts/test): installs again
    lock = checkout / "requirements" / "lock.txt"
    lock.write_text(lock.read_text(encoding="utf-8") + "gamma==3.0\n", encoding="utf-8")
    reasons = script.check(checkout, stamp, path)
    assert reasons[0].startswith("the lock, a pyproject") and "gamma: not installed" in reasons[1]
    script.write_stamp(checkout, stamp)
    _dist(site, "gamma", "3.0")
    assert script.check(checkout, stamp, path) == []
    (checkout / "evals" / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert script.check(checkout, stamp, path) == [
        "the lock, a pyproject, scripts/test or the Python changed since the stamp"]


def test_a_package_changed_since_the_stamp_is_named(tmp_path: Path, checkout: Path) -> None:
    script = _script()
    pins = script.read_lock((checkout / "requirements" / "lock.txt").read_text(encoding="utf-8"))
    assert pins == {"alpha": "1.0", "beta-pkg": "2.1", "torch": "2.13.0"}
    site = _site(tmp_path, checkout, alpha="1.1", torch="2.13.0")
    found = script.problems(pins, checkout, script.installed([str(site)], checkout))
    assert found == ["alpha: 1.1 installed, lock 1.0", "beta-pkg: not installed (lock 2.1)"]


def test_helix_must_be_editable_from_this_checkout_with_its_command(
        tmp_path: Path, checkout: Path) -> None:
    script = _script()
    pins: dict[str, str] = {}
    elsewhere = tmp_path / "site-elsewhere"
    _dist(elsewhere, "helix", "0.1.0", editable_from=tmp_path / "other-checkout")
    _dist(elsewhere, "helix-evals", "0.1.0")  # installed, but not editable
    assert script.problems(pins, checkout, script.installed([str(elsewhere)], checkout)) == [
        f"helix: not installed editable from {checkout.resolve()}",
        f"helix-evals: not installed editable from {(checkout / 'evals').resolve()}"]
    here = tmp_path / "site-here"
    _dist(here, "helix", "0.1.0", editable_from=checkout, command="helix")
    _dist(here, "helix-evals", "0.1.0", editable_from=checkout / "evals")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dists = script.installed([str(here)], checkout)
    assert script.problems(pins, checkout, dists, bin_dir) == [
        f"helix: no helix command in {bin_dir}"]
    (bin_dir / "helix").write_text("#!/bin/sh\n", encoding="utf-8")
    assert script.problems(pins, checkout, dists, bin_dir) == []
    # the metadata a build leaves in the checkout itself is not an installation
    _dist(checkout, "alpha", "1.0")
    assert "alpha" not in script.installed([str(checkout), str(here)], checkout)


def test_a_fresh_python_installs_everything(tmp_path: Path) -> None:
    """A Python with nothing installed (a new machine): the real script, the real lock."""
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=False, system_site_packages=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run([str(fresh / "bin" / "python"), str(SCRIPT), "--check"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "no install stamp" in done.stderr or "changed since the stamp" in done.stderr
    assert "not installed (lock" in done.stderr and "more)" in done.stderr
    # and it refuses to stamp that Python
    stamped = subprocess.run([str(fresh / "bin" / "python"), str(SCRIPT), "--stamp"], env=env,
                             capture_output=True, text=True, timeout=60)
    assert stamped.returncode == 1 and "not stamped" in stamped.stderr
