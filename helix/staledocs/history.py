"""What the history says about one section and the code it names.

    touched(...)          the last commit that changed the section's text (the work tree
                          when it differs from HEAD: being edited now)
    definition_drift(...) the aligned definition's changes after that commit: the shape as it
                          was then against the shape now (`indexers.def_shapes.changes`: a
                          change of form only is none), and the commits that made them
    removals(...)         definitions the sections name that later commits removed (one
                          `git log -G` over the names, then the two sides of each hit parsed)

Blobs are read in batches through one `cat-file --batch` each and kept for the run; a file
version is parsed once, whatever number of definitions it holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from helix.core.changes import CodeChange, CommitRef, StaleDefinition
from helix.core.git import blob_sha
from helix.core.git_history import (
    Commit,
    FileChange,
    History,
    Version,
    read_blobs,
    read_log,
)
from helix.core.history_settings import StaleDocsSettings
from helix.core.schemas import SymbolDef
from helix.staledocs import relevance
from helix.staledocs.sections import TEST_DIRS, DocSection, section_texts, test_code
from indexers.def_shapes import DefShape, changes, defined, shapes
from indexers.languages import CODE_EXTENSIONS, classify

WORKTREE = "(working tree)"
# where a removed definition is no project interface a document describes
NOT_LIBRARY = frozenset({"test", "tests", "testing", "testsuite", "example", "examples",
                         "benchmark", "benchmarks", "bench", "docs", "doc", "docs_src",
                         "scripts", "tools",
                         # code the project ships but did not write: vendored copies, bundles
                         "vendor", "vendored", "third_party", "third-party", "thirdparty",
                         "node_modules", "static", "dist"})
# a shipped copy of another project's script: minified, or named with its version
# (`jquery-1.8.1-min.js`, `coreapi-0.1.1.js`, `app.bundle.js`)
VENDORED = re.compile(r"(?:[.-]min|\.bundle|[-_.]v?\d+\.\d+(?:\.\d+)*(?:[.-]min)?)"
                      r"\.(?:c|m)?js$", re.I)
DECLARATIONS = (".d.ts", ".d.mts", ".d.cts", ".pyi")
# what `removals` asks git to search (`-G` diffs every file a commit changed: documents and
# tests never hold a removal it reports): the project's code files outside the directories
# `library` passes over (the same test is applied again to what is found)
LIBRARY_PATHS = (*(f":(glob,icase)**/*{ext}" for ext in sorted(set(CODE_EXTENSIONS))),
                 *(f":(exclude,glob,icase)**/{d}/**" for d in sorted(NOT_LIBRARY | TEST_DIRS)),
                 ":(exclude,glob)**/.*/**")
BATCH = 16  # versions of a document read at a time while looking for a section's last touch
NOT_A_NAME = re.compile(r"[^A-Za-z0-9_]")
DEPRECATED = re.compile(r"deprecat", re.I)


def ref(commit: Commit) -> CommitRef:
    return CommitRef(sha=commit.sha, time=commit.time, subject=commit.subject)


class Blobs:
    """Git blobs read in batches and kept, and the definition shapes of each, parsed once."""

    def __init__(self, repo: Path, settings: StaleDocsSettings) -> None:
        self.repo, self.settings = repo, settings
        self._data: dict[str, bytes | None] = {}
        self._shapes: dict[tuple[str, str, frozenset[str] | None], dict[str, DefShape]] = {}
        self._defined: dict[tuple[str, str], dict[str, str]] = {}
        self._wanted: dict[str, frozenset[str]] = {}
        self._sections: dict[tuple[str, str], dict[tuple[tuple[str, ...], int], str]] = {}

    def read(self, ids: Sequence[str]) -> None:
        missing = [b for b in ids if b not in self._data]
        if missing:
            found = read_blobs(self.repo, missing, max_blob_bytes=self.settings.max_blob_bytes,
                               timeout=self.settings.git_timeout_s)
            for blob in missing:
                self._data[blob] = found.get(blob)

    def text(self, blob: str) -> str | None:
        self.read([blob])
        data = self._data.get(blob)
        return data.decode("utf-8", "replace") if data is not None else None

    def _source(self, path: str, blob: str) -> tuple[str | None, bytes | None]:
        lang = classify(path)[1]
        data = self.text(blob) if lang is not None else None
        return lang, data.encode("utf-8", "replace") if data is not None else None

    def shapes(self, path: str, blob: str, wanted: frozenset[str] | None = None
               ) -> dict[str, DefShape]:
        """The shapes of the version's definitions (those in `wanted`, when given: only
        they are read, each the same as in the whole file's)."""
        whole = self._shapes.get((path, blob, None))
        if whole is not None:
            return whole if wanted is None else {q: s for q, s in whole.items() if q in wanted}
        key = (path, blob, wanted)
        if key not in self._shapes:
            lang, data = self._source(path, blob)
            self._shapes[key] = (shapes(lang, data, wanted)
                                 if lang is not None and data is not None else {})
        return self._shapes[key]

    def want(self, path: str, qualnames: Iterable[str]) -> None:
        """Say which definitions of `path` will be asked for (`shape`): each version of the
        file is then parsed once for all of them, not once per definition."""
        self._wanted[path] = self._wanted.get(path, frozenset()) | frozenset(qualnames)

    def shape(self, path: str, blob: str, qualname: str) -> DefShape | None:
        """One definition's shape in a version (None: not defined there)."""
        wanted = self._wanted.get(path, frozenset())
        return self.shapes(path, blob, wanted if qualname in wanted else frozenset(
            {qualname})).get(qualname)

    def defined(self, path: str, blob: str) -> dict[str, str]:
        """qualname -> kind of the version's definitions, none of them read."""
        key = (path, blob)
        if key not in self._defined:
            lang, data = self._source(path, blob)
            self._defined[key] = (defined(lang, data)
                                  if lang is not None and data is not None else {})
        return self._defined[key]

    def sections(self, path: str, blob: str, window_lines: int
                 ) -> dict[tuple[tuple[str, ...], int], str]:
        key = (path, blob)
        if key not in self._sections:
            text = self.text(blob)
            self._sections[key] = ({} if text is None else
                                   section_texts(path, classify(path)[1], text, window_lines))
        return self._sections[key]


def touched(history: History, blobs: Blobs, section: DocSection, work: WorkTree,
            window_lines: int, limit: int) -> Commit | str | None:
    """The last commit that changed the section (WORKTREE when its text in the work tree
    differs from HEAD's; None when the document was never committed)."""
    versions = at_head(history.versions(section.history_path, limit),
                       work.head_blob(section.history_path))
    if not versions:
        return None
    key = (section.heading, section.occurrence)
    committed = work.head_blob(section.history_path) or versions[0].blob
    blobs.read([committed, *(v.blob for v in versions[:BATCH])])
    if work.blob(section.history_path) not in (None, committed):  # being edited
        head = blobs.sections(versions[0].path, committed, window_lines).get(key)
        if work.sections(section.history_path, window_lines).get(key) != head:
            return WORKTREE
    for number, version in enumerate(versions):
        if number % BATCH == 0:
            blobs.read([v.blob for v in versions[number:number + BATCH + 1]])
        mine = blobs.sections(version.path, version.blob, window_lines).get(key)
        if number + 1 == len(versions):
            return version.commit
        older = versions[number + 1]
        if blobs.sections(older.path, older.blob, window_lines).get(key) != mine:
            return version.commit
    return versions[-1].commit


def at_head(versions: list[Version], head: str | None) -> list[Version]:
    """A file's versions from the one HEAD has: in a history with merges, the newest commit
    by date that touched the file may be a side branch's, not what HEAD holds (a version
    HEAD does not hold is never 'the code now', nor a reason to call the tree edited)."""
    start = next((i for i, v in enumerate(versions) if v.blob == head), 0)
    return versions[start:]


class WorkTree:
    """Files of the work tree as `stale-docs` reads them: each read once (a regular file
    within the size limit), known by its git blob id, so that a file equal to HEAD's is
    never parsed again; its definition shapes and sections parsed once when it is not."""

    def __init__(self, root: Path, max_bytes: int,
                 head: dict[str, tuple[str, str]] | None = None) -> None:
        self.root, self.max_bytes, self.head = root, max_bytes, head or {}
        self._text: dict[str, str | None] = {}
        self._blob: dict[str, str | None] = {}
        self._shapes: dict[str, dict[str, DefShape]] = {}
        self._sections: dict[str, dict[tuple[tuple[str, ...], int], str]] = {}

    def _load(self, path: str) -> None:
        target = self.root / path
        data: bytes | None = None
        try:
            if not target.is_symlink() and target.is_file() and \
                    target.stat().st_size <= self.max_bytes:
                data = target.read_bytes()
        except OSError:
            data = None
        self._blob[path] = blob_sha(data) if data is not None else None
        self._text[path] = data.decode("utf-8", "replace") if data is not None else None

    def head_blob(self, path: str) -> str | None:
        """The file's blob in HEAD's tree (None: not known)."""
        entry = self.head.get(path)
        return entry[1] if entry else None

    def blob(self, path: str) -> str | None:
        if path not in self._blob:
            self._load(path)
        return self._blob[path]

    def text(self, path: str) -> str | None:
        if path not in self._text:
            self._load(path)
        return self._text[path]

    def shapes(self, path: str) -> dict[str, DefShape]:
        if path not in self._shapes:
            lang, text = classify(path)[1], self.text(path)
            self._shapes[path] = (shapes(lang, text.encode("utf-8", "replace"))
                                  if lang is not None and text is not None else {})
        return self._shapes[path]

    def sections(self, path: str, window_lines: int
                 ) -> dict[tuple[tuple[str, ...], int], str]:
        if path not in self._sections:
            text = self.text(path)
            self._sections[path] = ({} if text is None else
                                    section_texts(path, classify(path)[1], text, window_lines))
        return self._sections[path]


@dataclass(frozen=True)
class Window:
    """A definition's file versions: all of them (newest first), those after the section,
    and the one the section was written against (None: the file came after it)."""

    versions: list[Version]
    after: list[Version]
    base: Version | None

    @property
    def blobs(self) -> list[str]:
        return [v.blob for v in (*self.after, *((self.base,) if self.base else ()))]


def window(history: History, definition: SymbolDef, since: Commit,
           settings: StaleDocsSettings, head: str | None = None) -> Window:
    versions = at_head(history.versions(definition.path, settings.max_versions), head)
    before = history.ancestors(since.sha)
    after = [v for v in versions if v.commit.sha not in before]
    base = next((v for v in versions if v.commit.sha in before), None)
    return Window(versions=versions, after=after, base=base)


@dataclass(frozen=True)
class Drifted:
    """A definition's code changes after a section's commit, before relevance: all of them
    (then -> now), and those of each commit that made some (newest first)."""

    definition: SymbolDef
    params_then: tuple[str, ...]
    changes: tuple[CodeChange, ...]
    commits: tuple[tuple[CommitRef, tuple[CodeChange, ...]], ...]
    now: DefShape  # the definition as it is


def still_has(drifted: Drifted, kept: frozenset[str]) -> Drifted | None:
    """The drift without the removed members the definition still has (`kept`: through a
    base); None when nothing else changed."""

    def left(change: CodeChange) -> CodeChange | None:
        if change.kind != "members":
            return change
        names = tuple(n for n in change.names if n not in kept)
        if names == change.names or not names:
            return change if names else None
        return CodeChange(kind="members", detail=f"removed {', '.join(names)}", names=names)

    return _kept(drifted, left)


def still_raises(drifted: Drifted, reachable: frozenset[str]) -> Drifted | None:
    """The drift without the errors it says are raised no more that the definition still
    raises through what it calls (`reachable`, bare names: a raise moved into a helper);
    None when nothing else changed."""

    def left(change: CodeChange) -> CodeChange | None:
        if change.kind != "raises":
            return change
        came = _listed(change.detail, "now raises ")
        gone = [n for n in _listed(change.detail, "no longer raises ")
                if n.rsplit(".", 1)[-1] not in reachable]
        if not came and not gone:
            return None
        return CodeChange(kind="raises", detail="; ".join(part for part in (
            f"now raises {', '.join(came)}" if came else "",
            f"no longer raises {', '.join(gone)}" if gone else "") if part),
            names=tuple(sorted({*came, *gone})))

    return _kept(drifted, left)


def _listed(detail: str, lead: str) -> list[str]:
    """The names after `lead` in a change's detail ("now raises A, B; no longer raises C")."""
    for part in detail.split("; "):
        if part.startswith(lead):
            return [n.strip() for n in part[len(lead):].split(",") if n.strip()]
    return []


def _kept(drifted: Drifted, left: Callable[[CodeChange], CodeChange | None]
          ) -> Drifted | None:
    def kept(found: Sequence[CodeChange]) -> tuple[CodeChange, ...]:
        return tuple(c for c in (left(change) for change in found) if c is not None)

    total = kept(drifted.changes)
    if not total:
        return None
    commits = tuple((c, kept(found)) for c, found in drifted.commits if kept(found))
    return Drifted(definition=drifted.definition, params_then=drifted.params_then,
                   changes=total, commits=commits, now=drifted.now)


def definition_drift(history: History, blobs: Blobs, definition: SymbolDef, since: Commit,
                     work: WorkTree, settings: StaleDocsSettings) -> Drifted | None:
    """The definition's changes after `since` (None when it has none but of form)."""
    span = window(history, definition, since, settings, work.head_blob(definition.path))
    versions, after, base = span.versions, list(span.after), span.base
    if not versions:
        return None
    head = work.head_blob(definition.path) or versions[0].blob  # a merge's own blob too
    worktree = None
    if work.blob(definition.path) not in (None, head):  # edited, not committed
        worktree = work.shapes(definition.path).get(definition.qualname)
    if not after and worktree is None:
        return None
    if base is None:  # the file came after the section: held to its first version
        base = after.pop()
    blobs.read([base.blob, head, *(v.blob for v in after)])
    name = definition.qualname
    then = blobs.shape(base.path, base.blob, name)
    current = worktree or blobs.shape(versions[0].path, head, name)
    if then is None or current is None:
        return None  # added after the section, or not a definition it had then
    total = changes(then, current)
    if not total:
        return None
    made = _commits(blobs, name, then, list(reversed(after)))
    if worktree is not None:
        committed = blobs.shape(versions[0].path, head, name)
        edits = changes(committed, worktree) if committed is not None else total
        if edits:
            made.insert(0, (CommitRef(sha=WORKTREE, time=0, subject="uncommitted changes"),
                            tuple(edits)))
    return Drifted(definition=definition, params_then=tuple(p.name for p in then.params),
                   changes=tuple(total), commits=tuple(made), now=current)


def for_section(drifted: Drifted, section: DocSection, text: str,
                settings: StaleDocsSettings) -> StaleDefinition | None:
    """What of a definition's drift the section would have to follow (`relevance`)."""

    def kept(found: Sequence[CodeChange]) -> list[CodeChange]:
        return relevance.counted(found, params_then=drifted.params_then,
                                 heading=section.heading, symbol=drifted.definition.qualname,
                                 text=text, settings=settings,
                                 params_now=tuple(p.name for p in drifted.now.params))

    total = kept(drifted.changes)
    if not total:
        return None
    made = [commit for commit, found in drifted.commits if kept(found)]
    d = drifted.definition
    return StaleDefinition(symbol=d.qualname, path=d.path, start_line=d.start_line,
                           end_line=d.end_line, changes=tuple(total),
                           commits=tuple(made[:settings.max_commits_listed]))


def _commits(blobs: Blobs, name: str, then: DefShape, oldest_first: Sequence[Version]
             ) -> list[tuple[CommitRef, tuple[CodeChange, ...]]]:
    """The commits (newest first) whose version of the definition differs from the one
    before it, each with what it changed."""
    made: list[tuple[CommitRef, tuple[CodeChange, ...]]] = []
    previous = then
    for version in oldest_first:
        shape = blobs.shape(version.path, version.blob, name)
        if shape is None:
            continue
        found = changes(previous, shape)
        if found:
            made.append((ref(version.commit), tuple(found)))
        previous = shape
    return list(reversed(made))


@dataclass(frozen=True)
class Removal:
    name: str
    path: str  # where it was defined
    qualname: str
    start_line: int
    end_line: int
    commit: Commit
    renamed_to: str | None  # a definition of the same body the commit added, if one
    # its text said it was deprecated when it was removed (a shim kept for another's
    # class of that name, or an old alias): a section naming it bare may mean the other
    deprecated: bool = False


def removals(repo: Path, blobs: Blobs, names: set[str], oldest: str | None,
             settings: StaleDocsSettings, prefix: str = "") -> list[Removal]:
    """The commits after `oldest` (all, when None) that removed a definition named in
    `names` (bare names) from a file under `prefix` (the repository's place in its work
    tree)."""
    safe = sorted(n for n in names if n and not NOT_A_NAME.search(n))
    if not safe:
        return []
    pattern = f"(^|[^A-Za-z0-9_])({'|'.join(safe)})([^A-Za-z0-9_]|$)"
    log = read_log(repo, max_commits=settings.max_commits, max_bytes=settings.max_log_bytes,
                   timeout=settings.git_timeout_s, exclude=[oldest] if oldest else [],
                   lines_matching=pattern, paths=LIBRARY_PATHS)
    wanted = set(safe)
    mentioned = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(safe) + r")(?![A-Za-z0-9_])")
    out: list[Removal] = []
    for commit in log.commits:
        for change in log.changes.get(commit.sha, ()):
            if change.status not in ("M", "D", "R") or classify(change.old_path)[0] != "code" \
                    or not change.old_path.startswith(prefix) or not library(change.old_path):
                continue
            blobs.read([change.old_blob, change.new_blob])
            text = blobs.text(change.old_blob) or ""
            if not wanted & set(mentioned.findall(text)):
                continue  # the file never had one of the names: nothing of theirs to parse
            out += _removed_by(blobs, change, wanted, commit, prefix)
    return out


def _removed_by(blobs: Blobs, change: FileChange, wanted: set[str], commit: Commit,
                prefix: str) -> list[Removal]:
    """The definitions named in `wanted` that one file's change removed: the names each
    side defines are found without reading a definition; only a removed one is read."""
    old = blobs.defined(change.old_path, change.old_blob)
    candidates = [q for q in old if q.rsplit(".", 1)[-1] in wanted]
    if not candidates:
        return []
    new = blobs.defined(change.path, change.new_blob) if change.status != "D" else {}
    left = {q.rsplit(".", 1)[-1] for q in new}
    gone = [q for q in candidates if q.rsplit(".", 1)[-1] not in left]
    if not gone:
        return []
    was = blobs.shapes(change.old_path, change.old_blob, frozenset(gone))
    kinds = {old[q] for q in gone}
    added = frozenset(q for q, kind in new.items() if q not in old and kind in kinds)
    now = blobs.shapes(change.path, change.new_blob, added) if added else {}
    out = []
    lines = (blobs.text(change.old_blob) or "").split("\n")
    for qualname, shape in sorted(was.items()):
        text = "\n".join(lines[shape.start_line - 1:shape.end_line])
        out.append(Removal(name=qualname.rsplit(".", 1)[-1],
                           path=change.old_path.removeprefix(prefix), qualname=qualname,
                           start_line=shape.start_line, end_line=shape.end_line,
                           commit=commit, renamed_to=_renamed(shape, now),
                           deprecated=DEPRECATED.search(text) is not None))
    return out


def library(path: str) -> bool:
    """A file of the project's code, not of its tests, examples, benchmarks or docs, nor a
    declaration file (`.d.ts`, `.pyi`: it declares what code or a dependency defines, so a
    name dropped from it is removed only where it is defined; `Promise` and `Map` typed for
    an old runtime are the language's own), nor a vendored copy or bundle of another
    project's code (a vendor or static directory, a hidden one such as `.yarn/releases`, a
    minified or versioned script): React's `useEffect` dropped with a bundled yarn release is
    not the project's."""
    parts = path.split("/")
    name = parts[-1]
    return not (NOT_LIBRARY & {p.lower() for p in parts[:-1]} or test_code(path)
                or any(p.startswith(".") for p in parts[:-1]) or VENDORED.search(name)
                or name.endswith(DECLARATIONS))


def _renamed(shape: DefShape, added: dict[str, DefShape]) -> str | None:
    """A definition of the same kind and body the change added (`added`: those it added)."""
    same = [s for _, s in sorted(added.items()) if s.kind == shape.kind and s.body == shape.body]
    return same[0].qualname if same else None
