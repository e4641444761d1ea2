"""`helix stale-docs`: documentation sections whose code changed after them.

    stale_docs(root, config, paths=(), baseline=()) -> StaleReport

For every documentation section aligned to code (`helix.staledocs.sections`), the last commit
that touched the section is found in the history (`history.touched`); each aligned
definition's shape then is compared with its shape now, and the commits after the section
that changed it are listed (`history.definition_drift`); a definition the section names that
a later commit removed is a finding too (`history.removals`). A change of form only (layout,
comments, docstrings, quotes) is none. A section edited in the work tree is being fixed:
never stale.

A baseline (`--baseline FILE`) acknowledges known findings by key (the section, its
definitions and the newest commit that changed each): they are counted, not listed, until the
code changes again.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from helix.core.changes import CodeChange, CommitRef, StaleDefinition, StaleReport, StaleSection
from helix.core.config import HelixConfig
from helix.core.errors import UserError
from helix.core.git import tracked_blobs
from helix.core.git_history import Commit, History, read_log, resolve, show_prefix
from helix.core.hashing import short_id
from helix.staledocs import evidence
from helix.staledocs.aliases import still_bound
from helix.staledocs.history import (
    BATCH,
    WORKTREE,
    Blobs,
    Drifted,
    Removal,
    WorkTree,
    definition_drift,
    for_section,
    ref,
    removals,
    still_has,
    still_raises,
    touched,
)
from helix.staledocs.history import window as history_window
from helix.staledocs.inherited import Bases, assigned
from helix.staledocs.reachable import Reach
from helix.staledocs.sections import (
    DocSection,
    doc_paths,
    history_path,
    js_packages,
    sections_of,
)
from indexers.languages import classify

MS = 1000.0
# names a section uses that nothing defines nor removed since it was written, from which on
# it is taken to use another package's vocabulary (bare) or to record the past (qualified by
# the project): `_anchored`
FOREIGN_NAMES = 2
BASELINE_VERSION = 1


def key_of(section: DocSection, found: Sequence[StaleDefinition]) -> str:
    return short_id(section.path, list(section.heading), section.occurrence,
                    sorted((d.symbol, d.commits[0].sha if d.commits else "") for d in found))


def _qualifies(qualifier: str, removal: Removal, text: str) -> bool:
    """`pkg.Name` names the removed definition only when `pkg` is one of the directories or
    the file it was in, or its class (`ssl.SSLContext` is not a project's `SSLContext`). A
    bare name names a removed member only in a section that names its class too:
    `input_value=` in an example's printed error is no field of a `ValLineError`."""
    if not qualifier:
        if "." not in removal.qualname:
            return True
        owner = removal.qualname.rsplit(".", 2)[-2]
        return re.search(rf"(?<![A-Za-z0-9_]){re.escape(owner)}(?![A-Za-z0-9_])",
                         text) is not None
    places = {part.rsplit(".", 1)[0].lstrip("_") for part in removal.path.split("/")}
    owner = removal.qualname.rsplit(".", 1)[0] if "." in removal.qualname else ""
    return qualifier.lstrip("_") in places or qualifier == owner


def _named_here(qualifiers: list[str], removal: Removal, text: str) -> bool:
    """The section names the removed definition: qualified as it (`httpx.SSLContext`), or
    bare in a section that qualifies that name as nothing else: beside
    `<TimerContext.Provider>`, a bare `Provider` is the same context's, not the project's."""
    hits = [q for q in qualifiers if _qualifies(q, removal, text)]
    if any(hits):
        return True
    return bool(hits) and all(not q for q in qualifiers)


def _unbound(work: WorkTree, gone: list[Removal]) -> list[Removal]:
    """The removals of names the project binds no more (`aliases.still_bound`: an alias or a
    re-export of the name is the name still there)."""
    modules = {r.name for r in gone if "." not in r.qualname}
    members: dict[str, set[str]] = {}
    for removal in gone:
        if removal.name not in modules:
            members.setdefault(removal.name, set()).add(removal.path)
    bound = still_bound(work, {r.name for r in gone}, members)
    return [r for r in gone if r.name not in bound]


def _still_there(work: WorkTree, bases: Bases) -> Callable[[Removal], bool]:
    """Whether a removed member is one its class still has: moved into a base of the
    project the class now inherits."""

    def there(removal: Removal) -> bool:
        if "." not in removal.qualname:
            return False
        owner = work.shapes(removal.path).get(removal.qualname.rsplit(".", 1)[0])
        return owner is not None and (removal.name in owner.members
                                      or removal.name in bases.members(owner))

    return there


def _anchored(section: DocSection, removal: Removal, qualifiers: list[str], after: set[str],
              roots: frozenset[str]) -> bool:
    """Whether the section names the removed definition as the project's, in a text kept in
    step with the code:
    - not a record of the past: of the names it qualifies with the project's packages
      (`roots`) that nothing defines, fewer were gone already when it was last edited
      (`FOREIGN_NAMES` at least, more than those removed since: a design note listing
      `celery.task.sets.TaskSet` and `celery.bin.worker.WorkerCommand` long after they went);
    - qualified as the project's, or bare where it is no deprecated shim (kept for another
      package's class of the name) in a section without another package's vocabulary (bare
      names of its kind, `_shape`, nothing here defines nor removed since: `PeriodicTask`
      beside `IntervalSchedule` and `CrontabSchedule` is django-celery-beat's model; file
      names and locale codes beside `init_catalog` are no other package's functions)."""
    past = {b for b, q in section.unresolved if q in roots and b not in after}
    if len(past) >= FOREIGN_NAMES and len(past) > len(after & {b for b, _ in
                                                               section.unresolved}):
        return False
    if any(q and _qualifies(q, removal, section.text) for q in qualifiers):
        return True
    shape = _shape(removal.name)
    foreign = {b for b, q in section.unresolved if not q and b not in after
               and shape != "other" and _shape(b, compound=True) == shape}
    return not removal.deprecated and len(foreign) < FOREIGN_NAMES


def _shape(name: str, compound: bool = False) -> str:
    """A name's kind by its spelling: a class (`PeriodicTask`; `compound`: of two words at
    least, not `None` or `True`), a function or command (`init_catalog`), or another
    (`pt_BR`, `LC_MESSAGES`, `messages.po`)."""
    bare = name.strip("_")
    words = "{2,}" if compound else "+"
    if re.fullmatch(rf"(?:[A-Z][a-z0-9]+){words}", bare):
        return "class"
    if re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*", bare):
        return "function"
    return "other"


def project_roots(paths: Iterable[str]) -> frozenset[str]:
    """The names the project's code is imported by: each code file's top directory (under
    `src/` or `lib/`, the next one) or a top-level module's stem."""
    out = set()
    for path in paths:
        parts = path.split("/")
        if parts[0] in ("src", "lib") and len(parts) > 1:
            parts = parts[1:]
        if classify(path)[0] == "code":
            out.add(parts[0].rsplit(".", 1)[0] if len(parts) == 1 else parts[0])
    return frozenset(out)


def _removed(section: DocSection, since: Commit, history: History,
             gone: Iterable[Removal], there: Callable[[Removal], bool],
             lines: Sequence[evidence.Line] = (), roots: frozenset[str] = frozenset()
             ) -> list[StaleDefinition]:
    """The removed definitions the section names, each with its evidence (`lines`: the
    section's) when it names it as the project's and keeps in step with the code: see
    `_anchored`."""
    before = history.ancestors(since.sha)
    named: dict[str, list[str]] = {}
    for base, qualifier in section.unresolved:
        named.setdefault(base, []).append(qualifier)
    gone = list(gone)
    after = {r.name for r in gone if r.commit.sha not in before}
    out: dict[str, StaleDefinition] = {}
    for removal in gone:
        if removal.commit.sha in before or not _named_here(
                named.get(removal.name, []), removal, section.text) or there(removal):
            continue
        if removal.name in out:
            continue
        detail = f"{removal.qualname} removed" + (
            f" (now {removal.renamed_to}?)" if removal.renamed_to else "")
        found = StaleDefinition(
            symbol=removal.qualname, path=removal.path, start_line=removal.start_line,
            end_line=removal.end_line, changes=(CodeChange(kind="removed", detail=detail),),
            commits=(ref(removal.commit),))
        out[removal.name] = found.model_copy(update={"evidence": evidence.of_definition(
            found, lines, section.text,
            anchored=_anchored(section, removal, named.get(removal.name, []), after, roots))})
    return list(out.values())


def stale_docs(root: Path, config: HelixConfig, *, paths: Sequence[str] = (),
               baseline: Iterable[str] = ()) -> StaleReport:
    from helix.service import prepare

    settings = config.stale_docs
    started = time.monotonic()
    head = resolve(root, "HEAD")
    if head is None:
        raise UserError(f"stale-docs reads the history: {root} is not a git repository with "
                        "a commit")
    index = prepare(root, config).index
    indexed = time.monotonic()
    history = read_log(root, max_commits=settings.max_commits,
                       max_bytes=settings.max_log_bytes, timeout=settings.git_timeout_s)
    history.prefix = show_prefix(root)
    blobs = Blobs(root, settings)
    window = config.index.window_lines
    work = WorkTree(root, config.index.max_file_bytes, tracked_blobs(root))
    bases = Bases(index, work, settings.inherit_depth)
    reach = Reach(index, work, settings.raise_depth)
    packages = js_packages(sorted(work.head), work.text)
    roots = project_roots(work.head)
    checked: list[DocSection] = []
    for path in doc_paths(index, paths, settings.skip, settings.history_dirs):
        checked += sections_of(index, path, settings.max_definitions_per_section,
                               history_path(root, path), settings.min_version_headings,
                               packages, roots)
    wanted = [s for s in checked if s.aligned or s.unresolved]
    blobs.read([v.blob for path in sorted({s.history_path for s in wanted})  # one batch
                for v in history.versions(path, settings.max_versions)[:BATCH]])
    whens: dict[int, Commit] = {}
    for number, section in enumerate(checked):
        if section.aligned or section.unresolved:
            when = touched(history, blobs, section, work, window, settings.max_versions)
            if isinstance(when, Commit):
                whens[number] = when
    blobs.read([b for number, since in whens.items() for d in checked[number].aligned
                for b in history_window(history, d, since, settings,
                                        work.head_blob(d.path)).blobs])
    for number in whens:
        for definition in checked[number].aligned:
            blobs.want(definition.path, (definition.qualname,))
    names = {n for i in whens for n, _ in checked[i].unresolved}
    oldest = min((whens[i] for i in whens if checked[i].unresolved), key=lambda c: c.time,
                 default=None)
    gone = _unbound(work, removals(root, blobs, names, oldest.sha if oldest else None,
                                   settings, history.prefix))
    drifted: dict[tuple[str, str], Drifted | None] = {}
    stale: list[StaleSection] = []
    for number, since in sorted(whens.items()):
        section = checked[number]
        lines = _lines(work, section)
        found: list[StaleDefinition] = []
        for definition in section.aligned:
            cache = (definition.node_id, since.sha)
            if cache not in drifted:
                found_drift = definition_drift(history, blobs, definition, since, work,
                                               settings)
                found_drift = found_drift and still_has(found_drift, bases.members(
                    found_drift.now) | assigned(work.text(definition.path), found_drift.now))
                if found_drift and any("no longer raises" in c.detail
                                       for c in found_drift.changes if c.kind == "raises"):
                    # the callees are read only for an error said to be raised no more
                    found_drift = still_raises(found_drift,
                                               reach.raises(found_drift.now, definition.path))
                drifted[cache] = found_drift
            raw = drifted[cache]
            kept = for_section(raw, section, section.text, settings) if raw else None
            if kept is not None and raw is not None:
                found.append(kept.model_copy(update={"evidence": evidence.of_definition(
                    kept, lines, section.text, raw.params_then)}))
        found += _removed(section, since, history, gone, _still_there(work, bases), lines,
                          roots)
        if found:
            stale.append(StaleSection(
                key=key_of(section, found), doc_path=section.path, heading=section.heading,
                start_line=section.start, end_line=section.end, touched=ref(since),
                definitions=tuple(found),
                severity="stale" if any(d.evidence for d in found) else "changed"))
    known = set(baseline)
    listed = [s for s in stale if s.key not in known and s.severity == "stale"]
    changed = [s for s in stale if s.key not in known and s.severity == "changed"]
    notes = (f"history cut at {len(history.commits):,} commits (stale_docs.max_commits)",
             ) if history.cut else ()
    return StaleReport(
        repo_root=str(root), head_rev=index.repo_rev, sections=len(checked),
        aligned=sum(1 for s in checked if s.aligned),
        definitions=len({d.node_id for s in checked for d in s.aligned}),
        stale=tuple(listed), changed=tuple(changed),
        acknowledged=len(stale) - len(listed) - len(changed), notes=notes,
        timings_ms={"index": round((indexed - started) * MS, 3),
                    "total": round((time.monotonic() - started) * MS, 3)})


def _lines(work: WorkTree, section: DocSection) -> list[evidence.Line]:
    """The section's lines as the work tree has them (numbered as in the document), or as
    the index does when the file cannot be read (a link)."""
    text = work.text(section.path)
    if text is not None:
        numbered = text.split("\n")[section.start - 1:section.end]
        if "\n".join(numbered).strip():
            return evidence.lines_of("\n".join(numbered), section.start)
    return evidence.lines_of(section.text, section.start)


def read_baseline(path: Path, data: bytes) -> set[str]:
    """The acknowledged keys of a baseline file (`--write-baseline` writes it)."""
    try:
        loaded = json.loads(data.decode("utf-8"))
        keys = loaded["acknowledged"]
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise ValueError("acknowledged is not a list of keys")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise UserError(f"--baseline {path} is not a stale-docs baseline ({exc})") from None
    return set(keys)


def baseline_json(report: StaleReport, earlier: Iterable[str] = ()) -> str:
    """A baseline acknowledging every finding of `report` (and those already known)."""
    entries = sorted({s.key: s for s in report.stale}.values(), key=lambda s: s.key)
    keys = sorted({*earlier, *(s.key for s in entries)})
    return json.dumps({"version": BASELINE_VERSION, "acknowledged": keys,
                       "sections": [{"key": s.key, "doc": s.doc_path,
                                     "heading": " > ".join(s.heading),
                                     "symbols": [d.symbol for d in s.definitions]}
                                    for s in entries]},
                      indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def worktree_ref() -> CommitRef:
    return CommitRef(sha=WORKTREE, time=0, subject="uncommitted changes")
