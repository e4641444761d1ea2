"""The on-disk index: generations, the CURRENT pointer, the manifest, the lock.

    <index dir>/
      .helix-index          the marker: Helix made (or adopted) this directory
      lock                  flock: one writer at a time
      CURRENT               name of the current generation (replaced atomically)
      gen-<id>/             one complete index
        manifest.json       schema version, config hash, per-file hashes, part hashes, counts
        rows.sqlite         files, chunks, definitions, references, tree nodes, read by key
                            (indexers.row_store)
        graph.sqlite        the graph, read node by node (indexers.graph_store)
        bm25/ dense/        written by indexers.bm25 / indexers.dense
        bm25_files/         BM25 over whole files (indexers.bm25.build_file_index)
        tokens/             the BM25 token cache (indexers.token_cache; not part of index_rev)
      tmp-<id>/             a generation being written (removed by the next writer)
      walk_stats.json       the last walk's stat fields and hashes (indexers.stat_cache)
      scan_cache.json       the secret scan's findings by content hash (indexers.scan_cache)
      blob_stats.json       work-tree files' git blob ids by stat fields (indexers.blob_stats)

Helix deletes only inside a directory carrying its marker, and only names it makes itself
(`gen-`/`tmp-` + 12 hex digits). A directory is claimed when it is new or empty (the marker is
written), or adopted when it holds nothing but Helix's own names (an index an older Helix made,
before the marker existed); any other non-empty directory is refused, as are the repository root
and every directory containing it (`check_location`).

A generation is written into a fresh temp directory and made current by replacing CURRENT with
`os.replace`, so a kill at any point leaves the previous generation current and usable. The
generation before the current one is kept (a reader that opened it keeps working); older ones
are removed. Every part's size is checked when the index is opened and its digest when it is
first read; any mismatch raises IndexCorruptError (the builder then rebuilds from scratch).

Formats are chosen so a question reads only what it needs: SQLite databases opened read-only
(rows and the graph, queried by key), memory-mapped numpy arrays (BM25, tokens, vectors). No
part is a pickle: a part swapped on disk is read as data and can never run code.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from helix.core.errors import (
    BadPathError,
    IndexCorruptError,
    IndexLockedError,
    IndexVersionError,
)
from helix.core.git import repo_revision as repo_revision
from helix.core.hashing import canonical_json, digest, digest_file, hash_obj, short_id
from helix.core.schemas import Frozen
from indexers import part_stats
from indexers.formats import PART_CARDS, PART_GRAPH_DB
from indexers.generations import MANIFEST, remove_generation
from indexers.locking import acquire, acquire_dir
from indexers.token_cache import DIR_TOKENS

# The index layout's version: a generation written under another one is rebuilt, not read.
# (What the indexing code puts into the parts is versioned by `indexers.version`.)
# 2: the graph is JSON (graph.json), no longer a pickle; 3: rows and graph in SQLite
SCHEMA_VERSION = 3
LOCK_TIMEOUT_S = 3.0
CLAIM_TIMEOUT_S = 10.0  # claiming is a marker's write: a longer wait is a stuck process
CURRENT = "CURRENT"
LOCK = "lock"
GEN_PREFIX = "gen-"
TMP_PREFIX = "tmp-"
KEEP_PREVIOUS = 1
MARKER = ".helix-index"
MARKER_TEXT = ("helix index directory v1\n"
               "Made by Helix: it deletes only inside directories that carry this file.\n")
_MARKER_FIRST_LINE = MARKER_TEXT.splitlines()[0]
_GEN_NAME = re.compile(r"^gen-[0-9a-f]{12}$")
_TMP_NAME = re.compile(r"^tmp-[0-9a-f]{12}$")
_HELIX_FILES = re.compile(
    r"^(CURRENT|CURRENT\.tmp|lock|verified\.json|verified\.json\.[0-9a-f]{8}\.tmp"
    r"|worker\.lock|worker\.json|worker\.json\.[0-9a-f]{8}\.tmp|worker\.log|worker\.paused"
    r"|worker\.refresh|(?:walk_stats|scan_cache|blob_stats)\.json(?:\.[0-9a-f]{8}\.tmp)?"
    r"|\.helix-index\.tmp|\.helix-index\.\d+\.[0-9a-f]{8}\.tmp)$")  # a claim's marker
_GITIGNORE = ".gitignore"
IGNORE_ALL = "*\n"  # what Helix writes into an index directory kept inside the repository

DIR_BM25 = "bm25"
DIR_BM25_FILES = "bm25_files"  # BM25 over whole files (ids: paths), from the token cache
# Parts that are caches for the next build or have a content digest in `counts`: not hashed
# into index_rev (the graph counts through counts["graph_digest"]).
CACHE_PARTS = frozenset({PART_GRAPH_DB, PART_CARDS})
DIR_DENSE = "dense"

# Manifests this process has checked, by (path, size, mtime, inode, ctime) of their file.
_MANIFESTS: dict[tuple[str, int, int, int, int], Manifest] = {}
_MANIFESTS_KEPT = 4


class PartInfo(Frozen):
    digest: str
    bytes: int


class Manifest(Frozen):
    schema_version: int
    index_hash: str
    embed_model_key: str | None
    files: dict[str, str]  # path -> content hash
    repo_rev: str
    created: float
    counts: dict[str, Any]
    parts: dict[str, PartInfo]  # generation-relative POSIX path -> digest and size
    report: dict[str, Any]  # the BuildReport that made this generation
    index_rev: str


def dense_generation(parts: Mapping[str, Any]) -> str | None:
    """Which vectors a generation holds: a short digest of its dense parts (`dense/...`), the
    same for the same vectors whatever generation directory holds them."""
    dense = {key: info.digest if isinstance(info, PartInfo) else str(info)
             for key, info in sorted(parts.items()) if key.startswith("dense/")}
    return short_id("dense", dense) if dense else None


def dense_state(counts: dict[str, Any]) -> dict[str, Any] | None:
    """{"vectors", "total", "complete"} of a manifest's `counts["dense"]`: how many of the
    embed selection's vectors the generation holds (`indexers.build_dense`); None when it
    has no dense part (embeddings off). With them, how much of the repository that covers
    (issue 13): "eligible" (chunks with an embed card: what an unlimited budget embeds),
    "chunks" (every chunk) and "all" (the index embeds every eligible chunk:
    `helix index --embed-all`), when the generation records them."""
    dense = counts.get("dense")
    if not isinstance(dense, dict):
        return None
    vectors, total = int(dense.get("vectors", 0)), int(dense.get("total", 0))
    state: dict[str, Any] = {"vectors": vectors, "total": total, "complete": vectors >= total}
    for key in ("eligible", "chunks"):
        if isinstance(dense.get(key), int):
            state[key] = int(dense[key])
    if dense.get("all"):
        state["all"] = True
    return state


def manifest_rev(data: dict[str, Any]) -> str:
    """index_rev: hash of the manifest content without the clock, without itself and
    without cache parts (they speed up the next build but are not what readers read)."""
    content = {k: v for k, v in data.items() if k not in ("created", "index_rev")}
    content["parts"] = {k: v for k, v in data.get("parts", {}).items()
                        if not k.startswith(DIR_TOKENS + "/") and k not in CACHE_PARTS}
    return hash_obj(content)


def _new_name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:12]}"


def _is_helix_entry(path: Path) -> bool:
    """A name Helix makes in an index directory, of the kind it makes it (a marker file whose
    text was garbled still counts: the directory is adopted and the marker written again)."""
    name = path.name
    if name == MARKER:
        return path.is_file() and not path.is_symlink()
    if _GEN_NAME.match(name) or _TMP_NAME.match(name):
        return path.is_dir() and not path.is_symlink()
    if _HELIX_FILES.match(name):
        return path.is_file() and not path.is_symlink()
    if name == _GITIGNORE:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            return not path.is_symlink() and path.read_text("utf-8") == IGNORE_ALL
    return False


class GenerationWriter:
    """Writes the parts of one generation into a temp dir; `commit` makes it current."""

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self.tmp = store.directory / _new_name(TMP_PREFIX)
        self.tmp.mkdir(parents=True)
        self._known: dict[str, PartInfo] = {}  # digests of parts written from memory

    def write_bytes(self, name: str, data: bytes) -> None:
        (self.tmp / name).write_bytes(data)
        self._known[name] = PartInfo(digest=digest(data), bytes=len(data))

    def write_json(self, name: str, obj: Any) -> None:
        self.write_bytes(name, canonical_json(obj).encode("utf-8"))

    def link_parts(self, generation: Path, manifest: Manifest, skip: str) -> None:
        """Every part of `generation` except those under `skip/`, hard-linked (copied where
        links cannot be made) into this one: a generation that changes only its dense
        vectors shares the lexical parts' files with the one before. The caller has checked
        their digests (`IndexStore.verify_all`); the manifest's digests are taken as they are."""
        for rel, info in manifest.parts.items():
            if rel.startswith(skip + "/"):
                continue
            source, target = generation / rel, self.tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
            self._known[rel] = info

    def subdir(self, name: str) -> Path:
        path = self.tmp / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _parts(self) -> dict[str, PartInfo]:
        parts: dict[str, PartInfo] = {}
        for path in sorted(p for p in self.tmp.rglob("*") if p.is_file()):
            rel = path.relative_to(self.tmp).as_posix()
            if rel in self._known:
                parts[rel] = self._known[rel]
            elif rel != MANIFEST:
                parts[rel] = PartInfo(digest=digest_file(path), bytes=path.stat().st_size)
        return parts

    def commit(self, *, index_hash: str, embed_model_key: str | None, files: dict[str, str],
               repo_rev: str, counts: dict[str, Any], report: dict[str, Any],
               created: float, prune_grace_s: float = 0.0) -> Manifest:
        """Write the manifest and make the generation current. `prune_grace_s`: generations
        replaced less than that long ago are kept too (a reader may still be reading one)."""
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION, "index_hash": index_hash,
            "embed_model_key": embed_model_key, "files": dict(sorted(files.items())),
            "repo_rev": repo_rev, "created": created, "counts": counts,
            "parts": {k: v.model_dump() for k, v in self._parts().items()},
        }
        data["report"] = {**report, "index_rev": manifest_rev({**data, "report": {}})}
        data["index_rev"] = data["report"]["index_rev"]
        manifest = Manifest.model_validate(data)
        _fsync_write(self.tmp / MANIFEST, canonical_json(manifest).encode("utf-8"))
        generation = self.store.directory / _new_name(GEN_PREFIX)
        os.replace(self.tmp, generation)
        _fsync_write(self.store.directory / f"{CURRENT}.tmp", generation.name.encode("utf-8"))
        os.replace(self.store.directory / f"{CURRENT}.tmp", self.store.directory / CURRENT)
        # every part's digest was just computed from what was written
        part_stats.save(self.store.directory, generation.name, {
            rel: stat for rel in manifest.parts
            if (stat := part_stats.part_stat(generation / rel)) is not None})
        self.store.prune(prune_grace_s)
        return manifest

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def _refuse_misplaced(directory: Path) -> None:
    """A file Helix keeps here (the lock, CURRENT) replaced by a directory or a link: Helix
    cannot use it and does not delete what it did not make, so it names the fix."""
    for name in (LOCK, CURRENT):
        path = directory / name
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise IndexCorruptError(
                f"Helix's {name} file of this index is a directory or a link, which Helix does "
                f"not remove; remove it and run the command again: rm -r '{path}'")


def _fsync_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


class IndexStore:
    """One index directory: the marker, the lock, the CURRENT pointer and the generations."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def check_location(self, root: Path) -> None:
        """Refuse the repository root and any directory containing it: an index there would
        mix Helix's files with the user's (and prune among them)."""
        directory, root = self.directory.resolve(), Path(root).resolve()
        if directory == root:
            raise BadPathError(f"refusing index directory {directory}: it is the repository "
                               "root; give a directory of its own (e.g. outside the repository)")
        if root.is_relative_to(directory):
            raise BadPathError(f"refusing index directory {directory}: it contains the "
                               f"repository {root}; give a directory of its own")

    def owned(self) -> bool:
        """The directory carries Helix's marker."""
        try:
            with open(self.directory / MARKER, encoding="utf-8") as handle:
                return handle.readline().rstrip("\n") == _MARKER_FIRST_LINE
        except (OSError, UnicodeDecodeError):
            return False

    def claim(self, create: bool = True) -> None:
        """Make sure this is Helix's directory before anything is written (`create`) or read
        in it: owned already; new or empty (the marker is written); or holding only Helix's
        own names (an index made before the marker existed: adopted). Anything else is the
        user's and is refused in one line. `create=False` only checks. Processes claiming
        the same new directory at once take turns (a lock on the directory itself): the
        first writes the marker, the others find it."""
        if self.owned():
            return
        directory = self.directory
        if directory.exists() and not directory.is_dir():
            raise BadPathError(f"index directory {directory} is not a directory")
        if not create:
            self._check_foreign()
            return
        directory.mkdir(parents=True, exist_ok=True)
        release = acquire_dir(directory, CLAIM_TIMEOUT_S)
        if release is None:
            raise IndexLockedError(f"another helix process is claiming the index directory "
                                   f"{directory} (waited {CLAIM_TIMEOUT_S:g} s); try again")
        try:
            if self.owned():
                return
            self._check_foreign()
            tmp = directory / f"{MARKER}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
            _fsync_write(tmp, MARKER_TEXT.encode("utf-8"))
            os.replace(tmp, directory / MARKER)
        finally:
            release()

    def _check_foreign(self) -> None:
        """Refuse a directory that holds anything Helix does not make."""
        directory = self.directory
        try:
            entries = sorted(directory.iterdir()) if directory.exists() else []
        except OSError as exc:
            raise BadPathError(f"cannot read index directory {directory}: "
                               f"{exc.strerror or exc}") from None
        _refuse_misplaced(directory)
        foreign = [e.name for e in entries if not _is_helix_entry(e)]
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise BadPathError(
                f"refusing index directory {directory}: it is not empty and Helix did not "
                f"create it (no {MARKER} marker; it holds {shown}); give a new or empty "
                "directory")

    @contextlib.contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        timeout = LOCK_TIMEOUT_S if timeout is None else timeout
        self.claim()
        _refuse_misplaced(self.directory)
        release = acquire(self.directory / LOCK, timeout)
        if release is None:
            raise IndexLockedError(
                f"another helix process is writing the index at {self.directory} "
                f"(waited {timeout:g} s); try again when it has finished")
        try:
            yield
        finally:
            release()

    def _helix_dirs(self, pattern: re.Pattern[str]) -> list[Path]:
        """Directories Helix made here under names matching `pattern`; none at all unless
        the directory carries the marker (Helix deletes only what it created)."""
        if not self.owned():
            return []
        return sorted(p for p in self.directory.iterdir()
                      if pattern.match(p.name) and p.is_dir() and not p.is_symlink())

    def writer(self) -> GenerationWriter:
        """Call with the lock held. Leftovers of killed writers are removed first."""
        if not self.owned():
            raise IndexCorruptError(f"index directory {self.directory} lost its {MARKER} marker")
        for stale in self._helix_dirs(_TMP_NAME):
            remove_generation(stale, unfinished=True)
        return GenerationWriter(self)

    def current_dir(self) -> Path | None:
        """The current generation's directory; None when there is no index yet.
        Raises IndexCorruptError when CURRENT names a missing generation."""
        pointer = self.directory / CURRENT
        try:
            name = pointer.read_text("utf-8").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise IndexCorruptError(f"cannot read {pointer}: {exc}") from None
        if not _GEN_NAME.match(name):
            raise IndexCorruptError(f"{pointer} names no generation")
        path = self.directory / name
        if not path.is_dir():
            raise IndexCorruptError(f"index generation {name} is missing")
        return path

    def read_manifest(self, generation: Path) -> Manifest:
        """The manifest, checked: schema version, part sizes, index_rev. A manifest file
        unchanged on disk since this process last checked it (size, mtime, inode, ctime) is not
        parsed and hashed again (a large repository's manifest lists every file)."""
        path = generation / MANIFEST
        try:
            st = path.stat()
            key = (str(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
            manifest = _MANIFESTS.get(key) or Manifest.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise IndexCorruptError(f"index manifest missing in {generation.name}") from None
        except (OSError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise IndexCorruptError(f"index manifest unreadable: {first}") from None
        if manifest.schema_version != SCHEMA_VERSION:
            raise IndexVersionError(
                f"index schema {manifest.schema_version} != {SCHEMA_VERSION}")
        if key not in _MANIFESTS:
            data = manifest.model_dump(mode="json")
            if manifest_rev({**data, "report": {}}) != manifest.index_rev:
                raise IndexCorruptError("index manifest does not match its index_rev")
            while len(_MANIFESTS) >= _MANIFESTS_KEPT:
                _MANIFESTS.pop(next(iter(_MANIFESTS)))
            _MANIFESTS[key] = manifest
        for rel, info in manifest.parts.items():
            try:
                size = (generation / rel).stat().st_size
            except OSError:
                raise IndexCorruptError(f"index part {rel} is missing") from None
            if size != info.bytes:
                raise IndexCorruptError(
                    f"index part {rel} has {size} bytes, the manifest says {info.bytes}")
        return manifest

    def verify_all(self, generation: Path, manifest: Manifest, record: bool = True) -> None:
        """Check every part's digest (a build does this before declaring a no-op), except
        parts unchanged on disk since their digest last matched (`indexers.part_stats`).
        `record`: remember what matched (only a holder of the lock should)."""
        known = part_stats.load(self.directory, generation.name)
        seen: dict[str, part_stats.Stat] = {}
        for rel in manifest.parts:
            stat = part_stats.part_stat(generation / rel)
            if stat is None or known.get(rel) != stat:
                check_part(generation, manifest, rel)
            if stat is not None:
                seen[rel] = stat
        if record and seen != known:
            part_stats.save(self.directory, generation.name, seen)

    def prune(self, grace_s: float = 0.0) -> None:
        """Remove generations other than the current one and the one before it, except,
        with `grace_s`, those replaced (their successor written) less than `grace_s` ago:
        the dense worker publishes every few seconds, and a reader that opened a generation
        two publishes back must still find its parts."""
        current = self.current_dir()
        gens = sorted((p for p in self._helix_dirs(_GEN_NAME) if p != current),
                      key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)
        cutoff = time.time_ns() - int(grace_s * 1e9)
        newer = [current.stat().st_mtime_ns] if current is not None else []
        newer += [p.stat().st_mtime_ns for p in gens]
        for position, old in enumerate(gens):
            replaced_at = newer[position] if position < len(newer) else 0
            if position >= KEEP_PREVIOUS and not (grace_s > 0 and replaced_at > cutoff):
                remove_generation(old)

    def size_bytes(self) -> int:
        total = 0
        for path in self.directory.rglob("*"):
            with contextlib.suppress(OSError):
                if path.is_file():
                    total += path.stat().st_size
        return total


def read_part(generation: Path, manifest: Manifest, rel: str, check: bool = True) -> bytes:
    """A part's bytes, verified against the manifest digest (unless already checked)."""
    info = manifest.parts.get(rel)
    if info is None:
        raise IndexCorruptError(f"index part {rel} is not in the manifest")
    try:
        data = (generation / rel).read_bytes()
    except OSError:
        raise IndexCorruptError(f"index part {rel} is missing") from None
    if check and digest(data) != info.digest:
        raise IndexCorruptError(f"index part {rel} does not match its digest")
    return data


def check_part(generation: Path, manifest: Manifest, rel: str) -> None:
    """Check a part against its manifest digest, reading it in blocks (a part read by key,
    such as a database of every chunk, is never held whole for the check)."""
    info = manifest.parts.get(rel)
    if info is None:
        raise IndexCorruptError(f"index part {rel} is not in the manifest")
    try:
        found = digest_file(generation / rel)
    except OSError:
        raise IndexCorruptError(f"index part {rel} is missing") from None
    if found != info.digest:
        raise IndexCorruptError(f"index part {rel} does not match its digest")


def verify_dir(generation: Path, manifest: Manifest, subdir: str, check: bool = True) -> Path:
    """Check every part under `subdir` against its digest; return the directory."""
    for rel in manifest.parts:
        if check and rel.startswith(subdir + "/"):
            check_part(generation, manifest, rel)
    return generation / subdir


def now() -> float:
    return time.time()
