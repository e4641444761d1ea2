"""A written tree's own git directory, so that Helix reads its history at R and no later.

`helix eval corpus trees` writes each repository's tree at R from git objects, without a
checkout or a `.git`. `point_head` gives the tree a minimal git directory: `HEAD` detached at
R (a full commit id), no ref at all, and the snapshot's object store borrowed through
`objects/info/alternates`. Git then sees R's ancestors from HEAD and nothing after R: no ref
names a later commit, and Helix's history reader (`indexers.history`) walks from HEAD only.
The tree's files are R's, so the work tree is clean at HEAD (`repo_rev` is R).
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from helix.core.errors import ConfigError

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def point_head(tree: Path, gitdir: Path, revision: str) -> Path:
    """Write (or move) `tree`/.git: HEAD = `revision`, objects borrowed from `gitdir`."""
    if not _SHA.match(revision):
        raise ConfigError(f"a tree's HEAD is a full commit id, not {revision!r}")
    objects = (gitdir / "objects").resolve()
    if not objects.is_dir():
        raise ConfigError(f"no object store at {objects}")
    dot = tree / ".git"
    (dot / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (dot / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    (dot / "objects" / "info" / "alternates").write_text(f"{objects}\n", encoding="utf-8")
    tmp = dot / "HEAD.tmp"
    tmp.write_text(f"{revision}\n", encoding="ascii")
    tmp.replace(dot / "HEAD")
    return dot


def drop_head(tree: Path) -> None:
    """Remove what `point_head` wrote in `tree`/.git (HEAD, the alternates file and the
    directories it made, when empty); anything else there stays."""
    dot = tree / ".git"
    if dot.is_symlink() or not dot.is_dir():
        return
    for name in ("HEAD", "HEAD.tmp", "objects/info/alternates"):
        path = dot / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
    for name in ("objects/info", "objects", "refs/heads", "refs", ""):
        with contextlib.suppress(OSError):  # not empty: someone else's files
            (dot / name).rmdir()
