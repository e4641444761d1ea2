"""Walk a repository: which files get indexed, which are skipped and why.

Rules, in the order they apply to each directory entry:
  * `.git` (a directory, a worktree/submodule file or a link; also `.hg`, `.svn`) is never
    entered nor read, and not reported.
  * `.gitignore` and `.helixignore` files apply at every level, relative to their directory; a
    deeper file overrides a shallower one, `.helixignore` overrides `.gitignore` of the same
    directory, `.git/info/exclude` sits below them all and DEFAULT_IGNORES (dependency trees,
    tool caches, lock files) below that. Ignored directories are pruned whole and reported once
    as `dir/`.
  * symlinks are followed only when their resolved target stays inside the (resolved) root:
    a target outside is "symlink_outside", a directory that is already one of its own ancestors
    is "symlink_loop", a dangling link is "vanished". Nothing outside the root is ever opened:
    regular files are opened with O_NOFOLLOW, symlinked ones through their checked target.
  * a name that is not UTF-8 ("undecodable_name", listed with its bytes as \\xNN; a directory
    is pruned whole): Helix keeps paths as text in the index, citations and JSON, and a name
    it cannot decode could not be cited back nor opened from a citation. Skipping it, counted
    and named, loses nothing silently; an escaped stand-in name would be a path that does not
    exist (and could collide with a real name holding a backslash).
  * secret-bearing names ("secret", when `skip_secrets`), then non-regular files and files over
    `max_file_bytes` ("too_large") by their size, then binary content (a NUL byte in the first
    8 KiB), unreadable ("unreadable") and vanished ("vanished") files, and (when `skip_secrets`)
    any non-code file holding a private key block ("secret").
`seen` counts every entry that got a verdict: indexed files + skipped entries (an ignored
directory counts once). Skipped directories are reported with a trailing "/".

Streaming: a walk keeps no file's text. It hashes each file (or, given a `StatCache`, takes the
hash recorded when the file's stat fields were last seen, without reading it); the builder
reads a file's text when it parses it (`WalkedFile.read`), so memory does not grow with the
repository's bytes.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from fnmatch import translate
from pathlib import Path

import pathspec
from pydantic import PrivateAttr

from helix.core.config import IndexSettings
from helix.core.errors import BadPathError, IndexError_
from helix.core.hashing import digest
from helix.core.schemas import FileRecord, Frozen, SkipReason
from indexers.formats import trusted
from indexers.languages import classify
from indexers.stat_cache import StatCache

IGNORE_FILES = (".gitignore", ".helixignore")  # later overrides earlier
GIT_EXCLUDE = ".git/info/exclude"
# Built in, below every ignore file (a `!name` line in .gitignore / .helixignore re-includes):
# dependency trees, tool caches and lock files hold nothing to ask about, and cost chunks.
DEFAULT_IGNORES = (
    "node_modules/", ".venv/", ".tox/", ".nox/", "__pycache__/", ".mypy_cache/",
    ".pytest_cache/", ".ruff_cache/", ".hypothesis/", "*.egg-info/",
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Pipfile.lock", "uv.lock",
    "Cargo.lock", "Gemfile.lock", "composer.lock", "go.sum",
)
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})  # VCS metadata
BINARY_SNIFF_BYTES = 8192
# What open(O_NOFOLLOW) fails with on a symlink (Linux: ELOOP; some BSDs: EMLINK).
_LINK_REFUSED = frozenset({errno.ELOOP, errno.EMLINK})
SECRET_PATTERNS = (
    ".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks",
    "*.keystore", "*.kdbx", "*.asc", "*.gpg", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    "credentials.json", "credentials", "client_secret*.json", "service-account*.json",
    ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd", ".pgpass",
    "secrets.yml", "secrets.yaml", "secrets.json", "*.tfvars",
)
_SECRET_RE = re.compile("|".join(translate(p) for p in SECRET_PATTERNS))
# Whatever its name, a non-code file holding a private key block is a secret (in source code
# such a block is a test fixture; synthesis redacts key blocks from anything it sends).
_PRIVATE_KEY_RE = re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")


class FileChangedError(IndexError_):
    """A walked file changed while it was being indexed into something the walk would skip."""


class WalkedFile(Frozen):
    """A file the walk accepted: its record (hash of the bytes the walk saw) and, on demand,
    its text. The text is read from the resolved path inside the root (no link followed)."""

    record: FileRecord
    _target: str = PrivateAttr(default="")
    _limit: int = PrivateAttr(default=0)
    _secrets: bool = PrivateAttr(default=True)

    @classmethod
    def of(cls, record: FileRecord, target: str, limit: int, skip_secrets: bool) -> WalkedFile:
        """Built without validation (`model_construct` costs 20x as much: a large walk makes
        tens of thousands)."""
        walked = trusted(cls, {"record": record})
        object.__setattr__(walked, "__pydantic_private__", {
            "_target": target, "_limit": limit, "_secrets": skip_secrets})
        return walked

    def read(self) -> tuple[FileRecord, str]:
        """(record, text) of the file as it is now: the walk's record when the bytes are the
        ones it hashed, else a record of the new bytes (an edit since the walk: what is parsed
        and what the index says it holds stay the same content). Undecodable bytes are
        replaced. FileChangedError when it became something the walk would skip."""
        rel = self.record.path
        try:
            if os.path.realpath(self._target) != self._target:  # a directory became a link
                raise ValueError("moved")
            raw = read_bytes(self._target, self._limit + 1, follow=False)
        except (OSError, ValueError):
            raise FileChangedError(f"{rel} vanished or became unreadable while it was being "
                                   "indexed; run the command again") from None
        if (len(raw) > self._limit or b"\0" in raw[:BINARY_SNIFF_BYTES]
                or (self._secrets and self.record.kind != "code"
                    and _PRIVATE_KEY_RE.search(raw))):
            raise FileChangedError(f"{rel} changed while it was being indexed (it is now too "
                                   "large, binary or secret); run the command again")
        text = raw.decode("utf-8", errors="replace")
        found = digest(raw)
        if found == self.record.content_hash:
            return self.record, text
        return self.record.model_copy(update={"content_hash": found, "size": len(raw)}), text

    @property
    def text(self) -> str:
        """The file's text now (see `read`)."""
        return self.read()[1]


class WalkResult(Frozen):
    files: tuple[WalkedFile, ...]  # sorted by path
    skipped: dict[str, tuple[str, ...]]  # SkipReason -> sorted relative paths
    seen: int


def undecodable(name: str) -> bool:
    """A name the file system gave in bytes that are not UTF-8 (surrogate-escaped by Python)."""
    return not name.isascii() and any("\udc80" <= ch <= "\udcff" for ch in name)


def display_name(name: str) -> str:
    """An undecodable name as text: each byte that is not UTF-8 written as \\xNN."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def is_secret_name(name: str) -> bool:
    return _SECRET_RE.match(name) is not None


def read_bytes(path: str, limit: int, follow: bool) -> bytes:
    """Read at most `limit` bytes of a regular file; the one place the walker opens files.

    Raises FileNotFoundError when it vanished, OSError when unreadable, ValueError when it is
    not a regular file (a FIFO or device would block or never end).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        chunks: list[bytes] = []
        remaining = limit
        while remaining > 0:
            block = os.read(fd, min(remaining, 1 << 20))
            if not block:
                break
            chunks.append(block)
            remaining -= len(block)
        return b"".join(chunks)
    finally:
        os.close(fd)


@dataclass
class _Spec:
    base: str  # directory relative to the root, "" for the root, else ending in "/"
    spec: pathspec.GitIgnoreSpec
    # One regex that matches when any pattern does: most paths match none, and one search is
    # much cheaper than pathspec trying every pattern in turn.
    any_match: re.Pattern[str] | None


def _any_match(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str] | None:
    sources = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if getattr(pattern, "include", None) is None or regex is None:
            continue
        sources.append("(?:" + re.sub(r"\(\?P<\w+>", "(?:", regex.pattern) + ")")
    try:
        return re.compile("|".join(sources)) if sources else None
    except re.error:
        return None


@dataclass
class _Walk:
    root: str  # resolved absolute root
    settings: IndexSettings
    stats: StatCache | None = None
    files: list[WalkedFile] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, reason: SkipReason, rel: str) -> None:
        self.skipped.setdefault(reason, []).append(rel)

    def inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root + os.sep)


def _load_specs(
    state: _Walk, real_dir: str, rel_dir: str, names: tuple[str, ...] = IGNORE_FILES
) -> list[_Spec]:
    specs = []
    for name in names:
        raw = _read_ignore_file(state, real_dir, name)
        if raw is None:
            continue
        lines = raw.decode("utf-8", errors="replace").splitlines()
        if any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            spec = pathspec.GitIgnoreSpec.from_lines(lines)
            specs.append(_Spec(rel_dir, spec, _any_match(spec)))
    return specs


def _base_specs(state: _Walk) -> list[_Spec]:
    """The defaults, then the repository's own exclude file (below every .gitignore, as in git)."""
    defaults = pathspec.GitIgnoreSpec.from_lines(DEFAULT_IGNORES)
    exclude = _load_specs(state, state.root, "", (GIT_EXCLUDE,))
    return [_Spec("", defaults, _any_match(defaults)), *exclude]


def _read_ignore_file(state: _Walk, real_dir: str, name: str) -> bytes | None:
    """An ignore file's bytes, None when missing or unreadable. It (or `.git` on the way) may be
    a link, but never to outside the root. In the common case: one failing open()."""
    limit = state.settings.max_file_bytes
    path = os.path.join(real_dir, name)
    if "/" in name:  # a component on the way may be a link: resolve first
        path = os.path.realpath(path)
        if not state.inside(path):
            return None
    try:
        return read_bytes(path, limit, follow=False)
    except OSError as exc:
        if exc.errno not in _LINK_REFUSED:
            return None  # missing or unreadable: nothing to honour
    except ValueError:
        return None
    real = os.path.realpath(path)  # the ignore file itself is a link
    if not state.inside(real):
        return None
    try:
        return read_bytes(real, limit, follow=False)
    except (OSError, ValueError):
        return None


def _ignored(specs: list[_Spec], rel: str, is_dir: bool) -> bool:
    """Git semantics: the last pattern that decides, deepest ignore file first."""
    for item in reversed(specs):
        local = rel[len(item.base):] + ("/" if is_dir else "")
        if item.any_match is not None and item.any_match.match(local) is None:
            continue
        result = item.spec.check_file(local).include
        if result is not None:
            return bool(result)
    return False


def list_dir(real_dir: str) -> list[os.DirEntry[str]]:
    """A directory's entries sorted by name (the one place the walker lists directories)."""
    with os.scandir(real_dir) as it:
        return sorted(it, key=lambda entry: entry.name)


def _resolve(state: _Walk, path: str, is_link: bool, is_dir: bool) -> tuple[str, bool] | SkipReason:
    """(real target, is_dir) of an entry that passes the link rules, else why it is skipped."""
    if not is_link:
        return path, is_dir
    try:
        target = os.path.realpath(path, strict=True)
    except FileNotFoundError:
        return "vanished"
    except OSError:  # ELOOP in the link chain itself
        return "symlink_loop"
    if not state.inside(target):
        return "symlink_outside"
    return target, os.path.isdir(target)


@dataclass(frozen=True)
class _Dir:
    real: str
    rel: str  # "" for the root, else ending in "/"
    specs: list[_Spec]
    ancestors: frozenset[str]  # real paths of this directory and the ones above it


def _walk_dirs(state: _Walk, root: _Dir) -> None:
    """Depth-first over directories with an explicit stack (no recursion limit on depth)."""
    stack = [root]
    while stack:
        stack.extend(reversed(_visit_dir(state, stack.pop())))


def _visit_dir(state: _Walk, here: _Dir) -> list[_Dir]:
    """Handle a directory's files; return its subdirectories to visit."""
    try:
        entries = list_dir(here.real)
    except FileNotFoundError:
        _dir_failed(state, here.rel, "vanished")
        return []
    except OSError:
        _dir_failed(state, here.rel, "unreadable")
        return []
    specs = here.specs + _load_specs(state, here.real, here.rel)
    subdirs: list[_Dir] = []
    for entry in entries:
        name = entry.name
        rel = here.rel + name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            state.skip("vanished", rel)
            continue
        if name in ALWAYS_SKIPPED_DIRS:  # a directory, or a worktree's / submodule's `.git` file
            continue
        if undecodable(name):  # before any other rule: the name itself cannot be kept
            state.skip("undecodable_name", here.rel + display_name(name) + ("/" if is_dir else ""))
            continue
        resolved = _resolve(state, entry.path, is_link, is_dir)
        if isinstance(resolved, str):
            state.skip(resolved, rel)
            continue
        target, is_dir = resolved  # a path under a resolved directory is already real
        if _ignored(specs, rel, is_dir):
            state.skip("ignored", rel + "/" if is_dir else rel)
            continue
        if is_dir:
            if target in here.ancestors:
                state.skip("symlink_loop", rel + "/")
            else:
                subdirs.append(_Dir(target, rel + "/", specs, here.ancestors | {target}))
            continue
        if state.settings.skip_secrets and is_secret_name(name):
            state.skip("secret", rel)
            continue
        _visit_file(state, target, rel, follow=is_link)
    return subdirs


def _dir_failed(state: _Walk, rel_dir: str, reason: SkipReason) -> None:
    if not rel_dir:
        raise BadPathError(f"cannot read directory: {state.root}")
    state.skip(reason, rel_dir)


def _visit_file(state: _Walk, target: str, rel: str, follow: bool) -> None:
    limit = state.settings.max_file_bytes
    try:
        info = os.stat(target, follow_symlinks=follow)
    except FileNotFoundError:
        state.skip("vanished", rel)
        return
    except OSError:
        state.skip("unreadable", rel)
        return
    if not stat.S_ISREG(info.st_mode):
        state.skip("unreadable", rel)
        return
    if info.st_size > limit:
        state.skip("too_large", rel)
        return
    secrets = state.settings.skip_secrets
    known = state.stats.lookup(rel, info) if state.stats is not None else None
    if known is not None:  # the bytes the hash was taken of: same verdicts, no read
        kind, lang = classify(rel)
        record = trusted(FileRecord, {"path": rel, "content_hash": known,
                                      "size": info.st_size, "kind": kind, "lang": lang})
        state.files.append(WalkedFile.of(record, target, limit, secrets))
        return
    try:
        raw = read_bytes(target, limit + 1, follow)
    except FileNotFoundError:
        state.skip("vanished", rel)
        return
    except (OSError, ValueError):
        state.skip("unreadable", rel)
        return
    if len(raw) > limit:  # grew since the stat
        state.skip("too_large", rel)
        return
    if b"\0" in raw[:BINARY_SNIFF_BYTES]:
        state.skip("binary", rel)
        return
    kind, lang = classify(rel)
    if state.settings.skip_secrets and kind != "code" and _PRIVATE_KEY_RE.search(raw):
        state.skip("secret", rel)
        return
    record = trusted(FileRecord, {"path": rel, "content_hash": digest(raw), "size": len(raw),
                                  "kind": kind, "lang": lang})
    if state.stats is not None:
        state.stats.record(rel, info, record.content_hash)
    state.files.append(WalkedFile.of(record, target, limit, secrets))


def _real_root(root: Path) -> str:
    try:
        real_root = os.path.realpath(root, strict=True)
    except OSError:
        raise BadPathError(f"no such directory: {display_name(str(root))}") from None
    if not os.path.isdir(real_root):
        raise BadPathError(f"not a directory: {display_name(str(root))}")
    if undecodable(real_root):
        raise BadPathError(f"the repository path {display_name(real_root)} is not valid UTF-8; "
                           "Helix needs a UTF-8 path (rename the directory)")
    return real_root


def walk_one(root: Path, rel: str, settings: IndexSettings) -> WalkedFile:
    """One file (POSIX path relative to `root`) under exactly the rules of `walk`.

    BadPathError when it does not exist, is not a file, or `walk` would skip it (the message
    names the skip reason).
    """
    state = _Walk(root=_real_root(root), settings=settings)
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise BadPathError(f"not a path inside the repository: {display_name(rel)}")
    if undecodable(rel):
        raise BadPathError(f"{display_name(rel)}: not indexed (undecodable_name)")
    real_dir, rel_dir = state.root, ""
    specs = _base_specs(state)
    for index, name in enumerate(parts):
        specs = specs + _load_specs(state, real_dir, rel_dir)
        path, here = os.path.join(real_dir, name), rel_dir + name
        if not os.path.lexists(path):
            raise BadPathError(f"no such file: {rel}")
        resolved = _resolve(state, path, os.path.islink(path), os.path.isdir(path))
        if isinstance(resolved, str):
            raise BadPathError(f"{rel}: not indexed ({resolved})")
        target, is_dir = resolved
        if name in ALWAYS_SKIPPED_DIRS or _ignored(specs, here, is_dir):
            raise BadPathError(f"{rel}: not indexed (ignored)")
        if index < len(parts) - 1:
            if not is_dir:
                raise BadPathError(f"not a directory: {here}")
            real_dir, rel_dir = target, here + "/"
            continue
        if is_dir:
            raise BadPathError(f"is a directory: {rel}")
        if settings.skip_secrets and is_secret_name(name):
            raise BadPathError(f"{rel}: not indexed (secret)")
        _visit_file(state, target, rel, follow=os.path.islink(path))
    if not state.files:
        reason = next(iter(state.skipped), "unreadable")
        raise BadPathError(f"{rel}: not indexed ({reason})")
    return state.files[0]


def walk(root: Path, settings: IndexSettings, stats_dir: Path | None = None) -> WalkResult:
    """All indexable files under `root`, plus what was skipped and why. Deterministic.
    `stats_dir`: an index directory whose `StatCache` spares re-reading unchanged files (and
    is updated with what this walk hashed)."""
    real_root = _real_root(root)
    stats = None
    if stats_dir is not None:
        stats = StatCache(stats_dir, {"root": real_root, "max_file_bytes": settings.max_file_bytes,
                                      "skip_secrets": settings.skip_secrets})
    state = _Walk(root=real_root, settings=settings, stats=stats)
    base = _base_specs(state)
    _walk_dirs(state, _Dir(real_root, "", base, frozenset({real_root})))
    if stats is not None:
        stats.save()
    files = tuple(sorted(state.files, key=lambda item: item.record.path))
    skipped = {reason: tuple(sorted(paths)) for reason, paths in sorted(state.skipped.items())}
    seen = len(files) + sum(len(paths) for paths in skipped.values())
    return WalkResult(files=files, skipped=skipped, seen=seen)
