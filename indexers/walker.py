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

import contextlib
import errno
import os
import re
import stat
from dataclasses import dataclass, field
from fnmatch import translate
from pathlib import Path

from helix.core.config import IndexSettings
from helix.core.errors import BadPathError
from helix.core.hashing import digest
from helix.core.schemas import FileRecord, Frozen, SkipReason
from indexers.formats import trusted
from indexers.ignore_rules import IgnoreRules, Spec, Teller, compile_rules, fingerprint, ignored
from indexers.languages import classify
from indexers.stat_cache import StatCache
from indexers.tree_watch import TreeWatch, for_walk
from indexers.walked_file import (
    _PRIVATE_KEY_RE,
    BINARY_SNIFF_BYTES,
    WalkedFile,
    read_bytes,
)

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


def _rules(lines: list[str] | tuple[str, ...], state: _Walk, name: str) -> IgnoreRules:
    """The lines' rules, matched by RE2 with every cost bounded (`indexers.ignore_rules`); what
    of the file is not honoured is told once per process, one notice a kind."""
    rules = compile_rules(lines, state.settings)
    for note in rules.notes:
        state.teller.tell(name, display_name(name), note)
    return rules


@dataclass
class _Walk:
    root: str  # resolved absolute root
    settings: IndexSettings
    stats: StatCache | None = None
    watch: TreeWatch | None = None
    files: list[WalkedFile] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    teller: Teller = field(default_factory=Teller)  # the walk's ignore-file notices

    def skip(self, reason: SkipReason, rel: str) -> None:
        self.skipped.setdefault(reason, []).append(rel)

    def inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root + os.sep)


def _load_specs(
    state: _Walk, real_dir: str, rel_dir: str, names: tuple[str, ...] = IGNORE_FILES
) -> list[Spec]:
    specs = []
    for name in names:
        raw = _read_ignore_file(state, real_dir, name)
        if raw is None:
            continue
        limit = state.settings.max_file_bytes
        if len(raw) > limit:  # the lines past the bound are not honoured, and that is said
            raw = raw[:limit]
            raw = raw[:raw.rfind(b"\n") + 1]
            state.teller.tell(rel_dir + name, display_name(rel_dir + name),
                              f"only its first {limit:,} bytes are honoured "
                              "(index.max_file_bytes)")
        lines = raw.decode("utf-8", errors="replace").splitlines()
        if any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            rules = _rules(lines, state, rel_dir + name)
            source = f"{name}:{digest(raw)}:{fingerprint(state.settings)}"
            specs.append(Spec(rel_dir, source, rules))
    return specs


def _base_specs(state: _Walk) -> list[Spec]:
    """The defaults, then the repository's own exclude file (below every .gitignore, as in git)."""
    exclude = _load_specs(state, state.root, "", (GIT_EXCLUDE,))
    return [Spec("", "defaults", _rules(DEFAULT_IGNORES, state, "defaults")),
            *exclude]


def _read_ignore_file(state: _Walk, real_dir: str, name: str) -> bytes | None:
    """An ignore file's bytes, None when missing or unreadable. It (or `.git` on the way) may be
    a link, but never to outside the root. In the common case: one failing open()."""
    limit = state.settings.max_file_bytes + 1  # one byte over: the caller tells a cut
    path = os.path.join(real_dir, name)
    if "/" in name:  # a component on the way may be a link: resolve first
        path = os.path.realpath(path)
        if not state.inside(path):
            return None
        if state.watch is not None:
            state.watch.link_target(path)
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
    if state.watch is not None:
        state.watch.link_target(real)
    try:
        return read_bytes(real, limit, follow=False)
    except (OSError, ValueError):
        return None


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
    specs: list[Spec]
    ancestors: frozenset[str]  # real paths of this directory and the ones above it


def _walk_dirs(state: _Walk, root: _Dir) -> None:
    """Depth-first over directories with an explicit stack (no recursion limit on depth)."""
    stack = [root]
    while stack:
        stack.extend(reversed(_visit_dir(state, stack.pop())))


def _visit_dir(state: _Walk, here: _Dir) -> list[_Dir]:
    """Handle a directory's files; return its subdirectories to visit. With a stat cache, a
    directory whose stat fields and ignore rules are the ones recorded is not listed again:
    its entries' verdicts are replayed (links are always resolved again, files stat-ed)."""
    if state.watch is not None:  # before anything of it is read: a later change is an event
        state.watch.directory(here.real)
    specs = here.specs + _load_specs(state, here.real, here.rel)
    stats, dir_stat, fingerprint = state.stats, None, ""
    if stats is not None:
        with contextlib.suppress(OSError):
            dir_stat = os.stat(here.real)
        fingerprint = _fingerprint(specs)
        cached = (stats.dir_lookup(here.rel, dir_stat, fingerprint)
                  if dir_stat is not None else None)
        if cached is not None:
            return _replay(state, here, specs, cached)
    try:
        entries = list_dir(here.real)
    except FileNotFoundError:
        _dir_failed(state, here.rel, "vanished")
        return []
    except OSError:
        _dir_failed(state, here.rel, "unreadable")
        return []
    subdirs: list[_Dir] = []
    recorded: list[list[str]] | None = [] if stats is not None else None
    for entry in entries:
        name = entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            state.skip("vanished", here.rel + name)
            recorded = None  # a directory changing under the walk is not recorded
            continue
        verdict = _verdict(state, here, specs, name, entry.path, is_link, is_dir)
        _apply(state, here, specs, name, verdict, is_link, subdirs)
        if recorded is not None:
            if undecodable(name):
                recorded = None  # not representable in the cache: listed every time
            else:
                recorded.append([name, "l"] if is_link else [name, *verdict[:1],
                                                             *verdict[1:] * (verdict[0] == "s")])
    if stats is not None and recorded is not None and dir_stat is not None:
        stats.dir_record(here.rel, dir_stat, fingerprint, recorded)
    return subdirs


def _fingerprint(specs: list[Spec]) -> str:
    """The ignore rules in effect in a directory (which files they come from, their text)."""
    return digest("\n".join(f"{spec.base}\0{spec.source}" for spec in specs))[7:39]


def _verdict(state: _Walk, here: _Dir, specs: list[Spec], name: str, path: str,
             is_link: bool, is_dir: bool) -> tuple[str, ...]:
    """What the rules say of one entry: ("x",) not reported, ("s", reason, rel) skipped,
    ("d", target) a directory to visit, ("f", target) a file to visit."""
    rel = here.rel + name
    if name in ALWAYS_SKIPPED_DIRS:  # a directory, or a worktree's / submodule's `.git` file
        return ("x",)
    if undecodable(name):  # before any other rule: the name itself cannot be kept
        return ("s", "undecodable_name", here.rel + display_name(name) + ("/" if is_dir else ""))
    resolved = _resolve(state, path, is_link, is_dir)
    if isinstance(resolved, str):
        return ("s", resolved, rel)
    target, is_dir = resolved  # a path under a resolved directory is already real
    if ignored(specs, rel, is_dir):
        return ("s", "ignored", rel + "/" if is_dir else rel)
    if is_dir:
        return ("s", "symlink_loop", rel + "/") if target in here.ancestors else ("d", target)
    if state.settings.skip_secrets and is_secret_name(name):
        return ("s", "secret", rel)
    return ("f", target)


def _apply(state: _Walk, here: _Dir, specs: list[Spec], name: str, verdict: tuple[str, ...],
           follow: bool, subdirs: list[_Dir]) -> None:
    code = verdict[0]
    if code == "s":
        state.skip(verdict[1], verdict[2])  # type: ignore[arg-type]
    elif code == "d":
        subdirs.append(_Dir(verdict[1], here.rel + name + "/", specs,
                            here.ancestors | {verdict[1]}))
    elif code == "f":
        _visit_file(state, verdict[1], here.rel + name, follow=follow)


def _replay(state: _Walk, here: _Dir, specs: list[Spec], cached: list[list[str]]
            ) -> list[_Dir]:
    """A directory's recorded entries: the same verdicts, in the same (name) order."""
    subdirs: list[_Dir] = []
    base = here.real if here.real.endswith(os.sep) else here.real + os.sep
    for name, code, *extra in cached:
        path = base + name  # os.path.join, for a plain name
        if code == "l":
            verdict = _verdict(state, here, specs, name, path, True, False)
            _apply(state, here, specs, name, verdict, True, subdirs)
        else:
            verdict = (code, *extra) if code == "s" else (code, path)
            _apply(state, here, specs, name, verdict, False, subdirs)
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
    if state.watch is not None:
        state.watch.file(info)
        if follow:
            state.watch.link_target(target)
    if info.st_size > limit:
        state.skip("too_large", rel)
        return
    secrets = state.settings.skip_secrets
    stats = state.stats
    if stats is not None and not follow:
        again = stats.walked(rel, info)  # this process walked it, unchanged, a moment ago
        if again is not None:
            state.files.append(again)
            return
    known = stats.lookup(rel, info) if stats is not None else None
    if known is not None:  # the bytes the hash was taken of: same verdicts, no read
        kind, lang = classify(rel)
        record = trusted(FileRecord, {"path": rel, "content_hash": known,
                                      "size": info.st_size, "kind": kind, "lang": lang})
        walked = WalkedFile.of(record, target, limit, secrets)
        if stats is not None and not follow:
            stats.remember(rel, info, walked)
        state.files.append(walked)
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
        if name in ALWAYS_SKIPPED_DIRS or ignored(specs, here, is_dir):
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
    is updated with what this walk hashed). In a process that enabled `tree_watch`, the last
    walk's result while the watch says nothing under the root changed since it began."""
    real_root = _real_root(root)
    watch = (None if stats_dir is None
             else for_walk(real_root, settings.model_dump_json(), str(stats_dir)))
    if watch is None:
        return _walk(real_root, settings, stats_dir, None)
    with watch.lock:
        kept = watch.unchanged()
        if kept is not None:
            return kept
        watch.begin()
        result = _walk(real_root, settings, stats_dir, watch)
        watch.finish(result)
        return result


def _walk(real_root: str, settings: IndexSettings, stats_dir: Path | None,
          watch: TreeWatch | None) -> WalkResult:
    stats = None
    if stats_dir is not None:
        stats = StatCache(stats_dir, {"root": real_root, "max_file_bytes": settings.max_file_bytes,
                                      "skip_secrets": settings.skip_secrets})
    state = _Walk(root=real_root, settings=settings, stats=stats, watch=watch)
    base = _base_specs(state)
    _walk_dirs(state, _Dir(real_root, "", base, frozenset({real_root})))
    if stats is not None:
        stats.save()
    files = tuple(sorted(state.files, key=lambda item: item.record.path))
    skipped = {reason: tuple(sorted(paths)) for reason, paths in sorted(state.skipped.items())}
    seen = len(files) + sum(len(paths) for paths in skipped.values())
    return WalkResult(files=files, skipped=skipped, seen=seen)
