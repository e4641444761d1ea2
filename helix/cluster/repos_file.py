"""The repositories file: what `helix index --repos-file FILE` indexes and registers.

    [[repo]]
    name = "billing"                       # unique; the registry's key
    path = "/srv/src/billing"              # a directory every worker sees, or:
    git = "https://git.example.com/billing.git"
    rev = "v2.4.1"                         # with git: a commit, tag or branch (default HEAD,
                                           # the default branch; a branch follows pushes)
    group = "payments"                     # `helix ask --repos payments` (default "default")

The file is the user's (a platform team's), not a repository's: it may name any path or URL.
A mistake is one line naming the file, the entry and what is wrong.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helix.core.errors import UserError
from helix.core.paths import user_path
from helix.core.schemas import Frozen

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}")
DEFAULT_GROUP = "default"
DEFAULT_REV = "HEAD"
_KEYS = {"name", "path", "git", "rev", "group"}


class RepoSource(Frozen):
    name: str
    path: str | None = None  # absolute
    git: str | None = None
    rev: str = DEFAULT_REV
    group: str = DEFAULT_GROUP

    @property
    def source(self) -> str:
        """How the registry records where it came from."""
        return f"path:{self.path}" if self.path is not None else f"git:{self.git}@{self.rev}"


def _entry(raw: Any, where: str) -> RepoSource:
    if not isinstance(raw, dict):
        raise UserError(f"{where}: each [[repo]] is a table")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r} (name, path, git, rev, group)")
    if any(not isinstance(value, str) or not value.strip() for value in raw.values()):
        raise UserError(f"{where}: every value is a non-empty string")
    name = raw.get("name")
    if name is None or not NAME_RE.fullmatch(name):
        raise UserError(f"{where}: name must be 1-80 letters, digits, '_', '.' or '-' "
                        "(starting with a letter or digit)")
    group = raw.get("group", DEFAULT_GROUP)
    if not NAME_RE.fullmatch(group) or group == "all":
        raise UserError(f"{where}: group must be like a name, and not 'all'")
    if ("path" in raw) == ("git" in raw):
        raise UserError(f"{where}: give exactly one of path and git")
    if "rev" in raw and "git" not in raw:
        raise UserError(f"{where}: rev goes with git (a path is indexed as it is)")
    rev = raw.get("rev", DEFAULT_REV)
    if rev.startswith("-") or any(ch.isspace() for ch in rev):
        raise UserError(f"{where}: rev {rev!r} is not a revision")
    if "path" in raw:
        path = user_path(raw["path"])
        if not path.is_absolute():
            raise UserError(f"{where}: path must be absolute (every worker resolves it)")
        return RepoSource(name=name, path=str(path), group=group)
    url = raw["git"]
    if url.startswith("-"):
        raise UserError(f"{where}: git {url!r} is not a repository URL")
    return RepoSource(name=name, git=url, rev=rev, group=group)


def parse_repos(text: str, origin: str) -> list[RepoSource]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"cannot read {origin}: {exc}") from None
    entries = data.get("repo")
    extra = sorted(set(data) - {"repo"})
    if extra:
        raise UserError(f"{origin}: unknown table {extra[0]!r} (give [[repo]] entries)")
    if not isinstance(entries, list) or not entries:
        raise UserError(f"{origin}: no [[repo]] entries")
    sources = [_entry(raw, f"{origin} [[repo]] #{n}") for n, raw in enumerate(entries, 1)]
    seen: set[str] = set()
    for source in sources:
        if source.name in seen:
            raise UserError(f"{origin}: the name {source.name!r} is given twice")
        seen.add(source.name)
    return sources


def load_repos_file(path: Path) -> list[RepoSource]:
    path = user_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
                        ) from None
    return parse_repos(text, str(path))


def from_paths(paths: Sequence[Path], group: str = DEFAULT_GROUP) -> list[RepoSource]:
    """Repositories named on the command line: each by its directory's name (numbered when
    two share one), in the group given."""
    out: list[RepoSource] = []
    names: set[str] = set()
    for path in paths:
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", path.name) or "repo"
        base = base if NAME_RE.fullmatch(base) else f"r{base}"[:80]
        name, number = base, 2
        while name in names:
            name, number = f"{base}-{number}", number + 1
        names.add(name)
        out.append(RepoSource(name=name, path=str(path), group=group))
    return out
