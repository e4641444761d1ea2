"""Where things live on disk: repository roots, index directories, caches, the run log."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

from helix.core.errors import BadPathError, UserError
from helix.core.hashing import short_id
from helix.core.home import PRIVATE_UMASK, embeddings_dir, helix_home

# helix_home from helix.core.home, the settings (pydantic models, ~0.2 CPU s) imported only in
# the functions that read them: every `helix` process imports this module at start


def private_files() -> None:
    """Make every file and directory this process creates private to the user. Indexes and
    the run log hold the repository's text and the questions asked; other users of the
    machine have no business reading them."""
    os.umask(PRIVATE_UMASK)


def user_path(value: Path | str) -> Path:
    """A path the user typed, `~` and `~user` expanded; an unknown user is a BadPathError."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        raise BadPathError(f"cannot expand {str(value)!r}: no such user's home directory"
                           ) from None


def find_repo_root(start: Path | str | None = None) -> Path:
    """The enclosing git repository's root, else the directory itself."""
    path = user_path(start or ".")
    if not path.exists():
        raise BadPathError(f"path does not exist: {path}")
    path = path.resolve()
    if not path.is_dir():
        raise BadPathError(f"not a directory: {path}")
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return candidate
    return path


def _special_dirs() -> dict[Path, str]:
    """Directories that are never a repository by accident: the filesystem root, the home
    directory, the temporary directory."""
    named = {Path("/"): "the filesystem root"}
    with contextlib.suppress(RuntimeError, OSError):
        named[Path.home().resolve()] = "your home directory"
    with contextlib.suppress(OSError):
        named[Path(tempfile.gettempdir()).resolve()] = "the temporary directory"
    return named


def count_files(root: Path, limit: int) -> int:
    """Regular files under `root` (`.git` skipped, links not followed), counted up to
    `limit` at most: cheap on any directory, however large."""
    count = 0
    stack = [root]
    while stack and count < limit:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != ".git":
                            stack.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        count += 1
                        if count >= limit:
                            break
        except OSError:
            continue  # unreadable: the walker will say so if it comes to indexing
    return count


def implicit_root_problem(root: Path, max_files: int) -> str | None:
    """Why the directory a command was run in should not be indexed without being named
    (`--repo`, PATH): it is the filesystem root, the home directory or the temporary
    directory, or it is outside any git repository and holds more than `max_files` files
    (0: no limit). None: index it."""
    special = _special_dirs().get(root)
    if special is not None:
        return f"{root} is {special}, not a repository"
    if (root / ".git").exists() or max_files <= 0:
        return None
    if count_files(root, max_files + 1) > max_files:
        return (f"{root} is not inside a git repository and holds more than {max_files:,} "
                "files")
    return None


def refuse_implicit_root(root: Path, max_files: int, how: str = "--repo PATH") -> None:
    """A UserError (one line, exit 2) asking for the repository when `implicit_root_problem`
    finds one; `how` says how to name it."""
    problem = implicit_root_problem(root, max_files)
    if problem is not None:
        raise UserError(f"{problem}; say which repository to index ({how}), or pass --yes "
                        "to index it anyway (index.max_files sets the limit)")


def refuse_dangerous_root(root: Path) -> None:
    """A UserError when a named repository is the filesystem root, the home directory or the
    temporary directory: indexing one runs for minutes over everything on the machine; --yes
    says it is meant."""
    special = _special_dirs().get(root)
    if special is not None:
        raise UserError(f"{root} is {special}, not a repository; name the repository's own "
                        "directory, or pass --yes to index it anyway")


def user_max_files() -> int:
    """`index.max_files` as the user set it (a repository's config may not: it is what
    decides whether that directory is indexed at all)."""
    from helix.core.config import resolve_config

    return resolve_config(None)[0].index.max_files


def in_home(*parts: str, env: Mapping[str, str] | None = None) -> Path:
    """`$HELIX_HOME/<parts...>`, refused in one line when one of them is a symbolic link:
    Helix never writes (or deletes) through a link it did not make, and it makes none (a
    link at `indexes` would send every index, and the removal of old generations, to the
    directory it points to). `$HELIX_HOME` itself may be a link: it is the user's setting."""
    path = helix_home(env)
    for position, part in enumerate(parts):
        path = path / part
        try:
            linked = path.is_symlink()
        except OSError:  # cannot be looked at (no permission): its use says so in one line
            return path.joinpath(*parts[position + 1:])
        if linked:
            raise BadPathError(f"{path} is a symbolic link, and Helix writes nothing through a "
                               f"link it did not make; remove it (rm '{path}') or set "
                               "HELIX_HOME to the directory it points to")
    return path


def index_dir_for(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """Per-repository index directory, keyed by the root's absolute path."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", root.name) or "root"
    return in_home("indexes", f"{name}-{short_id(str(root.resolve()))}", env=env)


def embedding_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Shared by all indexes: embeddings keyed by model + chunk content hash; in
    `$HELIX_EMBEDDINGS_DIR` when the user sets it (`helix.core.home.embeddings_dir`)."""
    return embeddings_dir(env) or in_home("embeddings", env=env)


def runlog_path(env: Mapping[str, str] | None = None) -> Path:
    return in_home("helix.sqlite", env=env)
