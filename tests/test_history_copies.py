"""`helix eval history` leaves no clear copy of a repository (issue 28: the whole tracked tree
stayed under $HELIX_HOME/history/, world-readable, private keys included).

While its cases run the tree holds no secret-bearing file and no binary, every other file
with its secrets masked, files 0600 and directories 0700; when they end (normally, on an
error, on Ctrl-C or SIGTERM) it is removed, and one a killed run left is removed at the next
start.
"""

from __future__ import annotations

import base64
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run

import evals.history.run as history_run
from evals.history.run import RepoSpec, run_repo, tree_dir
from evals.history.trees import TreeWriter
from tests.history_helpers import CACHE, DAY, EPOCH, build_history_repo, commit, git

KEY_BODY = [base64.b64encode(bytes([n] * 48)).decode() for n in range(1, 6)]
PEM = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(KEY_BODY)
       + "\n-----END RSA PRIVATE KEY-----\n")
PASSWORD = "Zq9vT7pLm2xRk4"
ENV_TOKEN = "envtoken-7f3a9c2e"
SECRETS = {"deploy/id_rsa": PEM, ".env": f"API_TOKEN={ENV_TOKEN}\n",
           "proj/settings.py": f'KEY = """{PEM}"""\nDB_PASSWORD = "{PASSWORD}"\n'}
PLANTED = [KEY_BODY[2].encode(), PASSWORD.encode(), ENV_TOKEN.encode()]


def secret_repo(root: Path) -> Path:
    """The history repository, then secrets and a binary committed, then one more case."""
    repo, _ = build_history_repo(root)
    commit(repo, "Add deployment settings", SECRETS, EPOCH + 7 * DAY)
    (repo / "logo.bin").write_bytes(b"\x89PNG\0\0" + PASSWORD.encode())
    git(repo, "add", "logo.bin")
    commit(repo, "ExpiringCache.get now forgets expired items when they are read",
           {"proj/cache.py": CACHE.replace("raise KeyError(key)",
                                           "del self.items[key]\n            raise KeyError(key)")},
           EPOCH + 8 * DAY)
    return repo


def files_under(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*")
            if p.is_file() and not p.is_symlink()}


def test_the_tree_is_masked_private_and_gone_after_the_run(tmp_path: Path, helix_home: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    repo = secret_repo(tmp_path)
    seen: list[dict[str, Any]] = []
    real = history_run.run_case

    def look(case: Any, gold: Any, writer: TreeWriter, *args: Any) -> Any:
        tree = writer.target
        seen.append({
            "files": {str(p.relative_to(tree)): p.read_bytes() for p in tree.rglob("*")
                      if p.is_file()},
            "modes": {stat.S_IMODE(p.stat().st_mode) for p in [tree, *tree.rglob("*")]
                      if p.is_dir()},
            "file_modes": {stat.S_IMODE(p.stat().st_mode) for p in tree.rglob("*")
                           if p.is_file()} | {stat.S_IMODE(os.stat(writer.state_path).st_mode)},
        })
        return real(case, gold, writer, *args)

    monkeypatch.setattr(history_run, "run_case", look)
    code, _, err = run(["eval", "history", "--repo", str(repo), "--no-embed"], capsys)
    assert code == 0, err
    last = seen[-1]["files"]
    assert "proj/settings.py" in last and "proj/cache.py" in last
    assert not {"deploy/id_rsa", ".env", "logo.bin"} & set(last)
    assert b"[REDACTED:" in last["proj/settings.py"]
    for snapshot in seen:
        assert snapshot["modes"] == {0o700} and snapshot["file_modes"] == {0o600}
        for data in snapshot["files"].values():
            assert not any(value in data for value in PLANTED)
    tree = tree_dir(repo / ".git", helix_home)
    assert not tree.exists() and not tree.with_name("tree.state.json").exists()
    for name, data in files_under(helix_home).items():  # the index is masked at rest too
        assert not any(value in data for value in PLANTED), name


@pytest.mark.parametrize("failure", [RuntimeError("boom"), KeyboardInterrupt()])
def test_the_tree_is_removed_on_an_error_or_an_interrupt(tmp_path: Path, helix_home: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        failure: BaseException) -> None:
    repo = secret_repo(tmp_path)
    written: list[Path] = []

    def fail(case: Any, gold: Any, writer: TreeWriter, *args: Any) -> Any:
        written.extend(p for p in writer.target.rglob("*") if p.is_file())
        raise failure

    monkeypatch.setattr(history_run, "run_case", fail)
    with pytest.raises(type(failure)):
        run_repo(RepoSpec(path=str(repo)), no_embed=True)
    assert written and not any(p.exists() for p in written)
    assert not tree_dir(repo / ".git", helix_home).exists()


def test_a_tree_a_killed_run_left_is_removed_and_foreign_files_stay(tmp_path: Path,
                                                                   helix_home: Path) -> None:
    repo = secret_repo(tmp_path)
    target = tree_dir(repo / ".git", helix_home)
    left = TreeWriter(repo / ".git", target)
    left.move_to(git(repo, "rev-parse", "HEAD").strip())  # as a killed run left it
    (target / "notes.txt").write_text("the user's own\n", encoding="utf-8")
    written = [p for p in target.rglob("*") if p.is_file() and p.name != "notes.txt"]
    assert written
    mid: list[set[str]] = []
    real = history_run.run_case

    def look(case: Any, gold: Any, writer: TreeWriter, *args: Any) -> Any:
        mid.append({str(p.relative_to(writer.target)) for p in writer.target.rglob("*")})
        return real(case, gold, writer, *args)

    history_run.run_case = look  # type: ignore[assignment]
    try:
        run_repo(RepoSpec(path=str(repo)), no_embed=True)
    finally:
        history_run.run_case = real  # type: ignore[assignment]
    assert mid and not any(p.exists() for p in written)
    assert (target / "notes.txt").read_text(encoding="utf-8") == "the user's own\n"
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]
    # the state still names the directory Helix's, so the next run may use it
    assert TreeWriter(repo / ".git", target).files == {}
    run_repo(RepoSpec(path=str(repo)), no_embed=True)


def test_sigterm_removes_the_tree(tmp_path: Path, helix_home: Path) -> None:
    repo = secret_repo(tmp_path)
    ready = tmp_path / "ready"
    script = (
        "import sys, time\n"
        "import evals.history.run as r\n"
        "def slow(case, gold, writer, *args):\n"
        f"    open({str(ready)!r}, 'w').write(str(writer.target))\n"
        "    time.sleep(120)\n"
        "r.run_case = slow\n"
        "from helix.cli.main import main\n"
        f"main(['eval', 'history', '--repo', {str(repo)!r}, '--no-embed'])\n")
    env = {**os.environ, "HELIX_HOME": str(helix_home)}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.exists(), proc.communicate(timeout=5)
        time.sleep(0.2)
        target = Path(ready.read_text(encoding="utf-8"))
        assert any(target.rglob("*.py"))
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert not target.exists() and not target.with_name("tree.state.json").exists()
