"""A git source's work tree under the shared store root: `<store root>/checkouts/<name>`.

Cloned once (`git clone --no-checkout`), then set to the revision asked for (`checkout --force
--detach`). A revision that can move (a branch, a tag, the default `HEAD`: the remote's default
branch) is fetched again on every later run and read from the remote's refs (`origin/<branch>`,
`origin/HEAD`), so re-indexing after a push indexes what was pushed; a full commit id already
there is used without asking the remote. The clone is Helix's own: the source
cannot give it a config, hooks or filter drivers (none are copied by a clone), and git runs
here with the system and global configs off and every program-naming setting neutralised
(`helix.core.git.SAFE_CONFIG`), so no program of the repository's runs; submodules are never
fetched. Helix moves a checkout only when it made it: a directory there without Helix's marker
(`.git/helix-checkout`) is refused, never overwritten. Files are the owner's only (the
process's private umask).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

from helix.core.errors import BadPathError, ClusterError
from helix.core.git import SAFE_CONFIG, git_env

CHECKOUTS = "checkouts"
MARKER = "helix-checkout"
# clone and fetch may reach a remote: everything else SAFE_CONFIG neutralises still is
_CLONE_CONFIG = tuple(item for item in SAFE_CONFIG if not item.startswith("protocol."))
_COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1 or SHA-256: cannot move


def _git(args: list[str], cwd: Path | None, timeout_s: float) -> str:
    config = [part for item in _CLONE_CONFIG for part in ("-c", item)]
    env = {**git_env(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    try:
        done = subprocess.run(["git", *config, *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=timeout_s, stdin=subprocess.DEVNULL,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClusterError(f"git {args[0]} failed: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ClusterError(f"git {args[0]} failed: {last}")
    return done.stdout.strip()


def _commit(tree: Path, rev: str, timeout_s: float) -> str | None:
    """The commit `rev` names: the remote's branch (or default branch) before a local ref of
    that name (the clone's own branch and HEAD never move), then a tag or a commit."""
    for candidate in (("origin/HEAD",) if rev == "HEAD" else (f"origin/{rev}", rev)):
        try:
            return _git(["rev-parse", "--verify", "--quiet", "--end-of-options",
                         f"{candidate}^{{commit}}"], tree, timeout_s)
        except ClusterError:
            continue
    return None


def checkout(name: str, url: str, rev: str, store_root: Path, timeout_s: float
             ) -> tuple[Path, str]:
    """(work tree, commit) of `url` at `rev`, under `store_root`/checkouts/`name`."""
    tree = store_root / CHECKOUTS / name
    marker = tree / ".git" / MARKER
    if tree.exists() and not marker.is_file():
        raise BadPathError(f"{tree} exists and was not made by Helix; move it away or give "
                           "this repository another name")
    fresh = not tree.exists()
    if fresh:
        tree.parent.mkdir(parents=True, exist_ok=True)
        staging = tree.with_name(f".{name}.tmp-{uuid.uuid4().hex[:12]}")
        try:
            _git(["clone", "--no-checkout", "--quiet", "--no-recurse-submodules",
                  "--end-of-options", url, str(staging)], None, timeout_s)
            (staging / ".git" / MARKER).write_text(url + "\n", encoding="utf-8")
            os.replace(staging, tree)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    commit = _commit(tree, rev, timeout_s) if fresh or _COMMIT_ID.fullmatch(rev) else None
    if commit is None:  # a moving revision, or one not fetched yet: ask the remote
        _git(["fetch", "--quiet", "--no-recurse-submodules", "--prune", "--tags", "--force",
              "origin"], tree, timeout_s)
        commit = _commit(tree, rev, timeout_s)
    if commit is None:
        raise ClusterError(f"{url} has no revision {rev!r}")
    _git(["checkout", "--quiet", "--force", "--detach", commit], tree, timeout_s)
    return tree, commit
