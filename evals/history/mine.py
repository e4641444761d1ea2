"""Mining a repository's history into localization cases, and sampling them by a seed.

The history is read with one `git log` (read-only plumbing through `helix.core.git`: no hook,
filter, pager or external diff of the repository's ever runs): every non-merge commit reachable
from `rev`, its parents, committer time, author, raw message and `--name-status` changes with
rename detection. `rules.judge` keeps or drops each commit; sampling is by a seeded hash of
the commit id, so the same seed and history give the same cases, and adding newer commits never
reshuffles the older ones' order.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from evals.history.rules import Change, Commit, judge
from helix.core.errors import BadPathError, ConfigError
from helix.core.git import GitOutputTooLarge, run_git, stream_git
from helix.core.hashing import digest, short_id
from helix.core.schemas import Frozen
from helix.core.secrets import redact_text

LOG_TIMEOUT_S = 300.0
MAX_LOG_BYTES = 1 << 30  # git log output read at most (streamed: never held whole)
MAX_MESSAGE_BYTES = 64 * 1024  # of one commit message
MAX_NAME_BYTES = 1024  # of an author's name or email
MAX_CHANGES_BYTES = 4 << 20  # of one commit's --name-status list
RECORD = b"\x1e"
FIELD = b"\x1f"
LOG_FORMAT = "%x1e%H%x1f%P%x1f%ct%x1f%an%x1f%ae%x1f%B%x1f"
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class HistoryCase(Frozen):
    id: str  # "<repo name>@<commit[:12]>"
    repo: str  # the repository's name
    commit: str
    parent: str  # the tree the question is asked against
    committed: int
    question: str
    truncated: bool  # the message was cut to rules.MAX_QUESTION_CHARS
    gold: tuple[str, ...]  # paths at the parent
    source_files: tuple[str, ...]


class Mined(Frozen):
    repo: str
    rev: str  # the commit mined from
    commits: int  # non-merge commits read
    kept: int  # commits that passed the rules (and --since)
    dropped: dict[str, int]  # reason -> count
    cases: tuple[HistoryCase, ...]  # the sample, oldest first


def git_dir(path: Path) -> Path:
    """The git directory of a work tree, a subdirectory of one, or a bare repository."""
    if not path.is_dir():
        raise BadPathError(f"repository not found: {path}")
    out = run_git(path, "rev-parse", "--absolute-git-dir")
    if out is None:
        raise BadPathError(f"not a git repository: {path}")
    return Path(os.fsdecode(out.strip()))


def repo_key(gitdir: Path) -> str:
    """A directory name for this repository's state under $HELIX_HOME/history/."""
    base = gitdir.parent.name if gitdir.name == ".git" else gitdir.name
    if base == "repo" and gitdir.parent.name:  # /work/.mirror/owner+name/repo
        base = gitdir.parent.name
    base = re.sub(r"\.git$", "", base)
    name = re.sub(r"[^A-Za-z0-9_.+-]", "_", base) or "repo"
    return f"{name}-{short_id(str(gitdir.resolve()), length=12)}"


def repo_name(gitdir: Path) -> str:
    return repo_key(gitdir).rsplit("-", 1)[0]


def resolve_rev(gitdir: Path, rev: str) -> str:
    if rev.startswith("-"):
        raise ConfigError(f"not a revision: {rev}")
    out = run_git(gitdir, "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}")
    sha = out.decode("ascii", "replace").strip() if out else ""
    if not _SHA.match(sha):
        raise ConfigError(f"unknown revision: {rev}")
    return sha


def since_timestamp(since: str | None) -> int | None:
    """`YYYY-MM-DD` (UTC midnight) -> Unix seconds; absolute dates only, so a run can be
    repeated."""
    if since is None:
        return None
    if not _DATE.match(since):
        raise ConfigError(f"--since must be a date YYYY-MM-DD, not {since!r}")
    try:
        day = datetime.strptime(since, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError as exc:
        raise ConfigError(f"--since must be a date YYYY-MM-DD, not {since!r}") from exc
    return int(day.timestamp())


def _changes(tail: bytes) -> tuple[Change, ...]:
    fields = tail.split(b"\0")
    while fields and not fields[0].strip():
        fields.pop(0)
    out: list[Change] = []
    i = 0
    while i < len(fields):
        status = fields[i].decode("ascii", "replace").strip()
        if not status:
            i += 1
            continue
        letter = status[0]
        if letter in ("R", "C") and i + 2 < len(fields):
            out.append(Change(status=letter, old_path=os.fsdecode(fields[i + 1]),
                              path=os.fsdecode(fields[i + 2])))
            i += 3
        elif i + 1 < len(fields):
            out.append(Change(status=letter, path=os.fsdecode(fields[i + 1])))
            i += 2
        else:
            break
    return tuple(out)


def parse_record(record: bytes) -> Commit | None:
    """One commit of `git log -z --name-status --format=LOG_FORMAT` output (None when
    malformed). The message is kept to MAX_MESSAGE_BYTES: a case's question is cut far below
    that anyway, and 20,000 commits of 20 KB messages must not all be held whole."""
    parts = record.split(FIELD)
    if len(parts) < 7:
        return None
    sha = parts[0].decode("ascii", "replace").strip()
    if not _SHA.match(sha):
        return None
    try:
        committed = int(parts[2])
    except ValueError:
        return None
    message = FIELD.join(parts[5:-1])[:MAX_MESSAGE_BYTES].decode("utf-8", "replace")
    message = redact_text(message)[0]  # a commit message enters Helix here: masked at once
    return Commit(sha=sha, parents=tuple(parts[1].decode("ascii", "replace").split()),
                  committed=committed, author=parts[3][:MAX_NAME_BYTES].decode("utf-8", "replace"),
                  email=parts[4][:MAX_NAME_BYTES].decode("utf-8", "replace"), message=message,
                  changes=_changes(parts[-1][:MAX_CHANGES_BYTES]))


def parse_log(raw: bytes) -> list[Commit]:
    """Commits from `git log -z --name-status --format=LOG_FORMAT` output; a malformed record
    is skipped."""
    return [c for record in raw.split(RECORD) if (c := parse_record(record)) is not None]


def read_history(gitdir: Path, rev: str, max_log_bytes: int = MAX_LOG_BYTES) -> list[Commit]:
    """Every commit, parsed record by record as git prints them (the raw log is never held
    whole); a log longer than `max_log_bytes` is refused in one line."""
    args = ("log", "--no-merges", "-M", "--name-status", "-z", "--no-ext-diff", "--no-textconv",
            "--no-color", "--no-show-signature", "--no-mailmap", f"--format={LOG_FORMAT}",
            "--end-of-options", rev)
    commits: list[Commit] = []
    pending = b""
    try:
        for chunk in stream_git(gitdir, *args, max_bytes=max_log_bytes, timeout=LOG_TIMEOUT_S):
            records = (pending + chunk).split(RECORD)
            pending = records.pop()
            commits += [c for r in records if (c := parse_record(r)) is not None]
    except GitOutputTooLarge:
        raise ConfigError(f"the history of {gitdir} at {rev} is longer than {max_log_bytes:,} "
                          "bytes of git log (bound: --max-log-bytes); use --since to read "
                          "less of it") from None
    except (OSError, subprocess.SubprocessError):
        raise BadPathError(f"cannot read the history of {gitdir} at {rev}") from None
    last = parse_record(pending)
    return commits + ([last] if last is not None else [])


def sample_key(seed: int, sha: str) -> str:
    return digest(f"{seed}:{sha}")


def sample(cases: Sequence[HistoryCase], seed: int, limit: int | None) -> list[HistoryCase]:
    """`limit` cases chosen by a seeded hash of their commit ids (all when no limit), ordered
    by commit time, then commit id (the order the tree moves in)."""
    chosen = sorted(cases, key=lambda c: (sample_key(seed, c.commit), c.commit))
    if limit is not None:
        chosen = chosen[:limit]
    return sorted(chosen, key=lambda c: (c.committed, c.commit))


def mine_commits(name: str, commits: Iterable[Commit], *, since: int | None = None
                 ) -> tuple[list[HistoryCase], dict[str, int], int]:
    """(kept cases, drop counts by reason, commits read)."""
    dropped: Counter[str] = Counter()
    kept: list[HistoryCase] = []
    seen = 0
    for commit in commits:
        seen += 1
        if since is not None and commit.committed < since:
            dropped["before_since"] += 1
            continue
        verdict = judge(commit)
        if not verdict.kept:
            dropped[verdict.reason] += 1
            continue
        kept.append(HistoryCase(
            id=f"{name}@{commit.sha[:12]}", repo=name, commit=commit.sha,
            parent=commit.parents[0], committed=commit.committed, question=verdict.question,
            truncated=verdict.truncated, gold=verdict.gold, source_files=verdict.source_files))
    return kept, dict(sorted(dropped.items())), seen


def mine(gitdir: Path, *, rev: str = "HEAD", seed: int = 0, limit: int | None = None,
         since: str | None = None, name: str | None = None) -> Mined:
    """The sampled cases of one repository."""
    if limit is not None and limit < 1:
        raise ConfigError("--limit must be at least 1")
    sha = resolve_rev(gitdir, rev)
    label = name or repo_name(gitdir)
    kept, dropped, seen = mine_commits(label, read_history(gitdir, sha),
                                       since=since_timestamp(since))
    return Mined(repo=label, rev=sha, commits=seen, kept=len(kept), dropped=dropped,
                 cases=tuple(sample(kept, seed, limit)))
