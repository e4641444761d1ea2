"""One repository's corpus cases (git I/O through `helix.core.git`'s read-only plumbing).

Reads the non-merge commits of R..U with `evals.history.mine.read_history`, applies the
commit rules (`evals.corpus.rules`), reads the survivors' zero-context patches, parses each
needed file once per blob (the changed files at the parent and at R, with Helix's extractor)
and maps every hunk's old-side lines to the definitions they touch. When the file is the same
blob at the parent and at R the definitions are R's own (`exact`); otherwise each touched
definition is looked up at R by (path, qualified name, ordinal) and the case is dropped when
one is missing. Targets carry R's spans. Nothing here reads a commit outside R..U, and no
commit before R is read at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evals.corpus.defs import DefSite, file_definitions, touched
from evals.corpus.patches import CommitPatch, FilePatch, read_patches, read_present_blobs
from evals.corpus.repos import RepoEntry
from evals.corpus.rules import (
    Limits,
    commit_reason,
    message_key,
    names_target,
    says_generated,
)
from evals.history.mine import read_history, sample_key
from evals.history.rules import Commit, clean_message, cut, gold_files
from evals.history.trees import Entry, read_tree
from helix.core.config import IndexSettings
from helix.core.errors import ConfigError
from helix.core.git import run_git
from helix.core.schemas import Frozen

COUNT_TIMEOUT_S = 120.0


class Target(Frozen):
    path: str
    qualname: str
    kind: str
    start: int  # at R, 1-based, decorators included
    end: int


class CorpusCase(Frozen):
    id: str  # "<repo>@<commit[:12]>"
    repo: str
    language: str
    split: str
    revision: str  # R: the index the targets are in
    commit: str
    parent: str
    committed: int
    message: str  # cleaned (no trailers), cut to Limits.max_message_chars
    truncated: bool
    targets: tuple[Target, ...]  # changed definitions, at R
    files: tuple[str, ...]  # every path the commit changed, at the parent (tests included)
    names_target: bool  # the message names a target verbatim
    exact: bool  # every target file is the same blob at the parent and at R


class RepoCases(Frozen):
    name: str
    commits: int  # non-merge commits in R..U
    merges: int  # merge commits in R..U (dropped: `merge`)
    eligible: int  # cases before the cap
    dropped: dict[str, int]
    cases: tuple[CorpusCase, ...]  # by (committed, commit)


@dataclass
class _Parsed:
    defs: tuple[DefSite, ...] | None
    generated: bool


@dataclass
class _Plan:
    commit: Commit
    gold: tuple[str, ...]
    patch: CommitPatch | None = None
    blobs: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)


def count_merges(gitdir: Path, revision: str, until: str) -> int:
    out = run_git(gitdir, "rev-list", "--merges", "--count", "--end-of-options",
                  f"{revision}..{until}", timeout=COUNT_TIMEOUT_S)
    if out is None:
        raise ConfigError(f"cannot count the merges of {revision[:12]}..{until[:12]} in {gitdir}")
    return int(out.strip() or 0)


def _file_patch(patch: CommitPatch, path: str) -> FilePatch | None:
    for item in patch.files:
        if item.old_path == path:
            return item
    return None


def _patch_reason(plan: _Plan, limits: Limits) -> str | None:
    patch = plan.patch
    if patch is None:
        return "unreadable"  # git could not diff it (the snapshot lacks one of its blobs)
    if patch.oversize:
        return "oversize"
    changed = [p for path in plan.gold if (p := _file_patch(patch, path)) and p.hunks]
    if changed and all(p.whitespace_only for p in changed):
        return "whitespace_only"
    return None


def _map_file(path: str, hunks: FilePatch, old: _Parsed, at_r: _Parsed, same: bool
              ) -> tuple[str | None, list[Target]]:
    """(drop reason or None, targets at R) for one changed file."""
    if old.defs is None or at_r.defs is None:
        return "unparsed_file", []
    if at_r.generated:
        return "generated", []
    changed = [s for s in touched(old.defs, ((h.old_start, h.old_count) for h in hunks.hunks))
               if not s.in_test]
    by_key = {s.key: s for s in at_r.defs}
    out: list[Target] = []
    for site in changed:
        now = site if same else by_key.get(site.key)
        if now is None:
            return "definition_not_at_revision", []
        out.append(Target(path=path, qualname=now.qualname, kind=now.kind, start=now.start,
                          end=now.end))
    return None, out


def _case(entry: RepoEntry, plan: _Plan, parsed: dict[str, _Parsed], limits: Limits
          ) -> tuple[str | None, CorpusCase | None]:
    assert plan.patch is not None
    targets: list[Target] = []
    exact = True
    for path in plan.gold:
        old_blob, r_blob = plan.blobs[path]
        if r_blob is None:
            return "file_not_at_revision", None
        hunks = _file_patch(plan.patch, path)
        if hunks is None or old_blob is None:
            continue  # a mode change, a binary file: no lines
        same = old_blob == r_blob
        exact = exact and same
        reason, found = _map_file(path, hunks, parsed[old_blob], parsed[r_blob], same)
        if reason is not None:
            return reason, None
        targets += found
    if not targets:
        return "no_definition", None
    if len(targets) > limits.max_definitions:
        return "too_many_definitions", None
    commit = plan.commit
    message, truncated = cut(clean_message(commit.message), limits.max_message_chars)
    files = sorted({c.old_path or c.path if c.status == "R" else c.path
                    for c in commit.changes if c.status not in ("A", "C")})
    return None, CorpusCase(
        id=f"{entry.name}@{commit.sha[:12]}", repo=entry.name, language=entry.language,
        split=entry.split, revision=entry.revision, commit=commit.sha, parent=commit.parents[0],
        committed=commit.committed, message=message, truncated=truncated,
        targets=tuple(targets), files=tuple(files),
        names_target=names_target(message, (t.qualname.rsplit(".", 1)[-1] for t in targets)),
        exact=exact)


def _parse_blobs(gitdir: Path, wanted: dict[str, str], settings: IndexSettings
                 ) -> dict[str, _Parsed]:
    """blob id -> its definitions, each blob read and parsed once (`wanted`: blob -> a path
    it is found at, for its language); a blob the snapshot lacks has none."""
    out: dict[str, _Parsed] = {}
    for blob, data in read_present_blobs(gitdir, sorted(wanted)):
        defs = None if data is None else file_definitions(wanted[blob], data, settings)
        out[blob] = _Parsed(defs=defs, generated=data is not None and says_generated(data))
    return out


def _plan_blobs(plans: Sequence[_Plan], tree: dict[str, Entry]) -> dict[str, str]:
    wanted: dict[str, str] = {}
    for plan in plans:
        assert plan.patch is not None
        for path in plan.gold:
            hunks = _file_patch(plan.patch, path)
            entry = tree.get(path)
            r_blob = entry.blob if entry is not None and entry.mode in ("100644", "100755") \
                else None
            old_blob = hunks.old_blob if hunks is not None else None
            plan.blobs[path] = (old_blob, r_blob)
            if r_blob is not None and old_blob is not None:
                wanted.setdefault(old_blob, path)
                wanted.setdefault(r_blob, path)
    return wanted


def mine_repo(gitdir: Path, entry: RepoEntry, limits: Limits, settings: IndexSettings,
              progress: Callable[[str], None] | None = None) -> RepoCases:
    """Every case of one repository (see the module docstring), capped by a seeded sample."""
    dropped: Counter[str] = Counter()
    merges = count_merges(gitdir, entry.revision, entry.until)
    dropped["merge"] += merges
    commits = read_history(gitdir, f"{entry.revision}..{entry.until}")
    commits.sort(key=lambda c: (c.committed, c.sha))
    plans: list[_Plan] = []
    for commit in commits:
        reason = commit_reason(commit, limits)
        gold = gold_files(commit.changes)
        if reason is None and not gold:
            reason = "gold_added_only"
        if reason is not None:
            dropped[reason] += 1
            continue
        plans.append(_Plan(commit=commit, gold=gold))
    if progress:
        progress(f"{entry.name}: {len(commits)} commits, {len(plans)} after the commit rules")
    patches = {p.sha: p for p in read_patches(gitdir, [p.commit.sha for p in plans],
                                              limits.max_patch_bytes)}
    live: list[_Plan] = []
    for plan in plans:
        plan.patch = patches.get(plan.commit.sha)
        reason = _patch_reason(plan, limits)
        if reason is not None:
            dropped[reason] += 1
        else:
            live.append(plan)
    tree = read_tree(gitdir, entry.revision)
    parsed = _parse_blobs(gitdir, _plan_blobs(live, tree), settings)
    kept: list[CorpusCase] = []
    seen: set[str] = set()
    for plan in live:
        reason, case = _case(entry, plan, parsed, limits)
        if case is not None and message_key(case.message) in seen:
            reason, case = "duplicate", None
        if reason is not None or case is None:
            dropped[reason or "no_definition"] += 1
            continue
        seen.add(message_key(case.message))
        kept.append(case)
    chosen = sorted(kept, key=lambda c: (sample_key(limits.seed, c.commit), c.commit))
    over = len(chosen) - limits.cases_per_repo
    if over > 0:
        dropped["over_cap"] += over
        chosen = chosen[:limits.cases_per_repo]
    chosen.sort(key=lambda c: (c.committed, c.commit))
    return RepoCases(name=entry.name, commits=len(commits), merges=merges, eligible=len(kept),
                     dropped=dict(sorted(dropped.items())), cases=tuple(chosen))
