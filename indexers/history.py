"""Words bridged through history: each definition carries the words of the messages of the
commits that changed it, before the indexed revision (issue 31, part 3).

Read with one `git log -p -U0 --no-merges -M` from HEAD (the indexed revision: its ancestors
only, never a branch or a range past it), at most `index.history_commits` commits and
`HISTORY_MAX_BYTES` of patch text, newest first. Each commit's changed lines are followed to
HEAD's lines through the commits after it (a line map per file, renames followed, removed lines
dropped), then to the innermost definition holding them at HEAD (a pure deletion: the one
holding both lines around it). A definition keeps its newest `index.history_per_def` commits;
their messages' words (tokenized and stemmed as the controller reads a question) make its
history document. Only allowlisted plumbing runs (`helix.core.git`; `--no-ext-diff`,
`--no-textconv`: no program of the repository's).

Incremental: the previous generation's table is kept when HEAD has not moved (definitions that
no longer exist dropped); when HEAD moved forward, the new commits are read, put before the
commits the table kept (files and hunks, not text), cut to `index.history_commits` in `git log`'s
order from the new HEAD (`git rev-list`; one the table never read: all read again), and all are
attributed again to the new HEAD's definitions, as a build from scratch does (the ranker was
trained on such tables; carrying attributions forward kept commits whose lines were rewritten,
and more than the bound: benchmarks/results/ranker_combine.json's skew).
"""

from __future__ import annotations

import math
import re
import subprocess
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from helix.core.english import stems
from helix.core.git import GitOutputTooLarge, run_git, stream_git
from indexers.formats import DefRow
from indexers.tokenize import expand, words

HISTORY_FORMAT = 3  # 2: the commits read kept for the next build; 3: paths below the root
HISTORY_TIMEOUT_S = 120.0
HISTORY_MAX_BYTES = 64 << 20  # of patch text read for one build
MAX_MESSAGE_CHARS = 2000  # of one message, for its words
MAX_WORDS = 256  # distinct words kept per definition
RECORD = b"\x1e"
FIELD = b"\x1f"
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
Segment = tuple[int, int, int]  # version lines start..end (inclusive) -> HEAD line start


@dataclass
class FileChange:
    old: str | None  # None: added
    new: str | None  # None: deleted
    hunks: list[tuple[int, int, int, int]] = field(default_factory=list)  # a, b, c, d


@dataclass
class Commit:
    sha: str
    message: str
    files: list[FileChange]


def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return raw[1:-1].encode("latin-1", "backslashreplace").decode(
            "unicode_escape").encode("latin-1", "replace").decode("utf-8", "replace")
    return raw


def _header_paths(line: str) -> tuple[str, str] | None:
    """(a path, b path) of `diff --git a/X b/X` (the same path twice when not renamed)."""
    rest = line[len("diff --git "):]
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        if end < 0:
            return None
        return _unquote(rest[:end + 1])[2:], _unquote(rest[end + 2:])[2:]
    if (len(rest) - 1) % 2 == 0:
        half = (len(rest) - 1) // 2
        a, b = rest[:half], rest[half + 1:]
        if a.startswith("a/") and b.startswith("b/") and a[2:] == b[2:]:
            return a[2:], b[2:]
    return None


def parse_patch(text: str) -> list[FileChange]:
    """The files of one commit's `-U0` patch, their hunks' (old start, old count, new start,
    new count)."""
    out: list[FileChange] = []
    current: FileChange | None = None
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            paths = _header_paths(line)
            current = FileChange(paths[0], paths[1]) if paths else FileChange(None, None)
            out.append(current)
        elif current is None:
            continue
        elif line.startswith("@@ "):
            m = _HUNK.match(line.encode("utf-8", "surrogateescape"))
            if m:
                a, b, c, d = m.groups()
                current.hunks.append((int(a), 1 if b is None else int(b), int(c),
                                      1 if d is None else int(d)))
        elif line.startswith("rename from "):
            current.old = _unquote(line[len("rename from "):])
        elif line.startswith("rename to "):
            current.new = _unquote(line[len("rename to "):])
        elif line.startswith("new file mode"):
            current.old = None
        elif line.startswith("deleted file mode"):
            current.new = None
    return [f for f in out if f.old is not None or f.new is not None]


MAX_RESTARTS = 8  # commits whose patch git cannot produce, stepped over per build


def _run_args(start: str, stop: str | None, paths: Sequence[str]) -> list[str]:
    args = ["--no-merges", "--end-of-options", start]
    if stop is not None:
        args.append(f"^{stop}")
    return [*args, "--", *paths]


def _one_log(root: Path, start: str, count: int, stop: str | None, paths: Sequence[str],
             budget: int) -> tuple[list[Commit], bool, bool]:
    """(commits, failed, cut) of one `git log -p` from `start`: `failed` when git stopped at a
    commit whose patch it cannot produce (a blob missing), `cut` when the bytes ran out."""
    args = ["log", "-M", "-U0", "-p", "--relative", "--no-color", "--no-ext-diff", "--no-textconv",
            "--no-show-signature", "--no-mailmap", f"--max-count={count}",
            "--format=%x1e%H%x1f%B%x1f", *_run_args(start, stop, paths)]
    commits: list[Commit] = []
    pending: list[bytes] = []  # the pieces of the record being read (joined once it ends)

    def add(record: bytes) -> None:
        sha, _, rest = record.partition(FIELD)
        message, _, patch = rest.partition(FIELD)
        commits.append(Commit(sha.decode("ascii", "replace").strip(),
                              message.decode("utf-8", "replace")[:MAX_MESSAGE_CHARS],
                              parse_patch(patch.decode("utf-8", "surrogateescape"))))

    try:
        for chunk in stream_git(root, *args, max_bytes=budget, timeout=HISTORY_TIMEOUT_S):
            if RECORD not in chunk:  # a long record (a root commit's patch): no copy per chunk
                pending.append(chunk)
                continue
            parts = (b"".join(pending) + chunk).split(RECORD)
            pending = [parts.pop()]
            for record in parts:
                if record:
                    add(record)
    except GitOutputTooLarge:
        return commits, False, True  # the last record may be cut: left out
    except (OSError, subprocess.SubprocessError):
        return commits, True, False  # the record being written is the failed commit's
    rest = b"".join(pending)
    if rest:
        add(rest)
    return commits, False, False


def _after(root: Path, start: str, stop: str | None, paths: Sequence[str], skip: int
           ) -> str | None:
    """The first parent of the `skip`-th commit (0-based) `git log` would list from `start`."""
    out = run_git(root, "rev-list", "--max-count=1", f"--skip={skip}",
                  *_run_args(start, stop, paths))
    failed = out.decode("ascii", "replace").strip() if out else ""
    if not _SHA.match(failed):
        return None
    parent = run_git(root, "rev-parse", "--verify", "-q", f"{failed}^1^{{commit}}")
    text = parent.decode("ascii", "replace").strip() if parent else ""
    return text if _SHA.match(text) else None


def read_commits(root: Path, head: str, max_commits: int, stop: str | None = None,
                 paths: Sequence[str] = ()) -> tuple[list[Commit], bool]:
    """(commits newest first, complete): at most `max_commits` non-merge ancestors of `head`
    (a full commit id; with `stop`, only those not reachable from it), their patches limited
    to `paths` (pathspecs such as `*.py`; none: all). A commit whose patch git cannot produce
    (a blob the clone lacks) is stepped over: the log goes on from its first parent, at most
    MAX_RESTARTS times. `complete` is False when a commit was stepped over or the patch text
    was cut at its bound."""
    if not _SHA.match(head) or (stop is not None and not _SHA.match(stop)) or max_commits < 1:
        return [], True
    commits: list[Commit] = []
    seen: set[str] = set()
    start, budget, complete = head, HISTORY_MAX_BYTES, True
    for _ in range(MAX_RESTARTS + 1):
        got, failed, cut = _one_log(root, start, max_commits - len(commits), stop, paths,
                                    budget)
        budget -= sum(len(c.message) + 80 * len(c.files) for c in got)
        for commit in got:
            if commit.sha not in seen:
                seen.add(commit.sha)
                commits.append(commit)
        if cut or failed:
            complete = False
        if cut or not failed or len(commits) >= max_commits or budget <= 0:
            break
        resume = _after(root, start, stop, paths, len(got))
        if resume is None:
            break
        start = resume
    return commits[:max_commits], complete


def message_words(message: str) -> frozenset[str]:
    """The message's words as the controller reads a question (`controller.text.token_set`)."""
    return frozenset(stems(t)[0] for w in set(words(message)) for t in expand(w))


BIG = 1 << 40  # the last line of an open-ended segment


def _through(segments: Sequence[Segment], start: int, end: int) -> list[tuple[int, int]]:
    """HEAD line ranges of version lines start..end (`segments` sorted, disjoint)."""
    out = []
    at = max(bisect_right(segments, (start, BIG, BIG)) - 1, 0)
    for s, e, h in segments[at:]:
        if s > end:
            break
        lo, hi = max(s, start), min(e, end)
        if lo <= hi:
            out.append((h + lo - s, h + hi - s))
    return out


def parent_segments(segments: Sequence[Segment], hunks: Sequence[tuple[int, int, int, int]]
                    ) -> list[Segment]:
    """The line map of the version before a commit, from the map after it and the commit's
    hunks (-a,b +c,d): lines it removed or rewrote map nowhere, the others shift. One pass
    over the runs of unchanged old lines and the (sorted) segments together."""
    runs: list[tuple[int, int, int]] = []  # old lines start..end are new lines + delta
    old_line, delta = 1, 0
    for a, b, _c, d in sorted(hunks):
        last = a - 1 if b > 0 else a  # the last unchanged old line before the hunk
        if old_line <= last:
            runs.append((old_line, last, delta))
        old_line = max(old_line, a + b if b > 0 else a + 1)
        delta += d - b
    runs.append((old_line, BIG, delta))
    out: list[Segment] = []
    at = 0
    for start, end, shift in runs:
        lo_new, hi_new = start + shift, end + shift
        while at < len(segments) and segments[at][1] < lo_new:
            at += 1
        probe = at
        while probe < len(segments) and segments[probe][0] <= hi_new:
            s, e, h = segments[probe]
            lo, hi = max(s, lo_new), min(e, hi_new)
            if lo <= hi:
                out.append((lo - shift, hi - shift, h + lo - s))
            probe += 1
    return out


class _Innermost:
    """HEAD line -> the innermost definition of one file holding it."""

    def __init__(self, defs: Sequence[DefRow]) -> None:
        self.defs = list(defs)
        self.owner: dict[int, int] = {}
        for n in sorted(range(len(self.defs)), key=lambda i: (
                -(self.defs[i].end_line - self.defs[i].start_line), i)):
            d = self.defs[n]
            for line in range(d.start_line, d.end_line + 1):
                self.owner[line] = n

    def at(self, line: int) -> DefRow | None:
        n = self.owner.get(line)
        return None if n is None else self.defs[n]


def _touched(owner: _Innermost, segments: Sequence[Segment],
             hunks: Sequence[tuple[int, int, int, int]]) -> set[str]:
    """The definitions (node ids) a file change's hunks touch at HEAD: the innermost holding
    each changed line; for a pure deletion, the one holding both lines around it."""
    out: set[str] = set()
    for _a, _b, c, d in hunks:
        if d == 0:
            around = [owner.at(h) for lo, hi in _through(segments, c, c + 1)
                      for h in range(lo, hi + 1)]
            found = {x.node_id for x in around if x is not None}
            if len(around) == 2 and len(found) == 1 and None not in around:
                out |= found
            continue
        for lo, hi in _through(segments, c, c + d - 1):
            out.update(x.node_id for h in range(lo, hi + 1) if (x := owner.at(h)) is not None)
    return out


def attribute(commits: Sequence[Commit], defs_by_path: Mapping[str, Sequence[DefRow]],
              per_def: int) -> dict[str, list[str]]:
    """node id -> the commits (newest first, at most `per_def`) that changed it: each commit's
    changed lines followed to HEAD (see the module docstring)."""
    # a path of the version being read -> (its HEAD path, its line map to HEAD lines)
    maps: dict[str, tuple[str, list[Segment]]] = {p: (p, [(1, BIG, 1)]) for p in defs_by_path}
    owners: dict[str, _Innermost] = {}
    out: dict[str, list[str]] = {}
    for commit in commits:
        touched: set[str] = set()
        for change in commit.files:
            if change.new is None:
                continue  # a file deleted by the commit: nothing of it survives to HEAD
            held = maps.pop(change.new, None)
            if held is None:
                continue  # not at HEAD (deleted or renamed away later)
            head_path, segments = held
            owner = owners.get(head_path)
            if owner is None:
                owner = owners[head_path] = _Innermost(defs_by_path.get(head_path, ()))
            touched |= _touched(owner, segments, change.hunks)
            if change.old is not None:
                parent = parent_segments(segments, change.hunks)
                if parent:
                    maps[change.old] = (head_path, parent)
        for node in sorted(touched):
            shas = out.setdefault(node, [])
            if len(shas) < per_def:
                shas.append(commit.sha)
    return out


@dataclass
class HistoryTable:
    head: str
    settings: dict[str, Any]
    defs: dict[str, list[str]]  # node id -> commits, newest first
    words: dict[str, frozenset[str]]  # commit -> its message's words
    # the commits read, newest first, their messages left out (what the next build attributes
    # again with the commits after them)
    log: list[Commit] = field(default_factory=list)

    def of(self, node: str) -> tuple[frozenset[str], int]:
        """A definition's history words and how many commits they come from."""
        shas = self.defs.get(node, ())
        if not shas:
            return frozenset(), 0
        return frozenset().union(*(self.words.get(s, frozenset()) for s in shas)), len(shas)


def dump(table: HistoryTable) -> bytes:
    kept = {s for shas in table.defs.values() for s in shas} | {c.sha for c in table.log}
    return orjson.dumps({"format": HISTORY_FORMAT, "head": table.head,
                         "settings": table.settings,
                         "commits": {s: " ".join(sorted(table.words.get(s, ()))[:MAX_WORDS])
                                     for s in sorted(kept)},
                         "defs": dict(sorted(table.defs.items())),
                         # one string: a question's load parses it as one value
                         "log": orjson.dumps([[c.sha, [[f.old, f.new, [list(h) for h in f.hunks]]
                                                      for f in c.files]]
                                              for c in table.log]).decode()},
                        option=orjson.OPT_SORT_KEYS)


def _log(raw: Any) -> list[Commit]:
    return [Commit(str(sha), "", [FileChange(None if old is None else str(old),
                                             None if new is None else str(new),
                                             [(int(a), int(b), int(c), int(d))
                                              for a, b, c, d in hunks])
                                  for old, new, hunks in files])
            for sha, files in raw]


def load(raw: bytes, with_log: bool = False) -> HistoryTable | None:
    """The table of a history part; None when it is not one. Its commits' files and hunks
    (`log`) only `with_log`: the next build reads them, a question never does."""
    try:
        data = orjson.loads(raw)
        if not isinstance(data, dict) or data.get("format") != HISTORY_FORMAT:
            return None
        defs = {str(n): [str(s) for s in shas] for n, shas in data["defs"].items()}
        commits = data["commits"]
        wanted = commits if with_log else {s for shas in defs.values() for s in shas}
        return HistoryTable(
            str(data["head"]), dict(data["settings"]), defs,
            {str(s): frozenset(str(commits[s]).split()) for s in wanted if s in commits},
            _log(orjson.loads(data["log"])) if with_log else [])
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError, ValueError):
        return None


def _walk(root: Path, head: str, count: int, paths: Sequence[str]) -> list[str] | None:
    """The commits `read_commits` would read from `head` (their ids, in its order), without
    their patches; None when git cannot list them."""
    out = run_git(root, "rev-list", f"--max-count={count}", *_run_args(head, None, paths))
    if out is None:
        return None
    shas = out.decode("ascii", "replace").split()
    return shas if all(_SHA.match(s) for s in shas) else None


def is_ancestor(root: Path, old: str, new: str) -> bool:
    if not (_SHA.match(old) and _SHA.match(new)):
        return False
    out = run_git(root, "rev-list", "--max-count=1", "--end-of-options", old, f"^{new}")
    return out is not None and not out.strip()


def grafted(root: Path, head: str) -> frozenset[str]:
    """A shallow clone's boundary commits (parents not fetched: git shows each as adding every
    file, its message would reach every definition); none in a complete repository."""
    shallow = run_git(root, "rev-parse", "--is-shallow-repository")
    if shallow is None or shallow.strip() != b"true" or not _SHA.match(head):
        return frozenset()
    out = run_git(root, "rev-list", "--max-parents=0", "--end-of-options", head)
    return frozenset(out.decode("ascii", "replace").split()) if out else frozenset()


def build_history(root: Path, head: str, defs_by_path: Mapping[str, Sequence[DefRow]],
                  settings: Mapping[str, int], previous: bytes | None
                  ) -> tuple[bytes, dict[str, Any]]:
    """The history part of a generation and what building it did. A shallow clone's boundary
    commits are left out (`grafted`): a depth-1 clone's field is empty."""
    max_commits, per_def = int(settings["commits"]), int(settings["per_def"])
    known = {d.node_id for defs in defs_by_path.values() for d in defs}
    old = load(previous, with_log=True) if previous is not None else None
    if old is not None and old.settings != dict(settings):
        old = None
    if old is not None and old.head == head:
        kept = {n: shas for n, shas in old.defs.items() if n in known}
        return dump(HistoryTable(head, dict(settings), kept, old.words, old.log)), {
            "commits_read": 0, "reused": True, "defs": len(kept), "head": head}
    stop = old.head if old is not None and is_ancestor(root, old.head, head) else None
    boundary = grafted(root, head)
    suffixes = sorted({"*." + p.rsplit(".", 1)[1] for p in defs_by_path
                       if "." in p.rsplit("/", 1)[-1]})
    commits, complete = read_commits(root, head, max_commits, stop, suffixes)
    read, commits = len(commits), [c for c in commits if c.sha not in boundary]
    words = {c.sha: message_words(c.message) for c in commits}
    if stop is not None and old is not None:
        walk = _walk(root, head, max_commits, suffixes)
        if walk is not None and boundary:
            walk = [s for s in walk if s not in boundary]
        held = {c.sha: c for c in (*old.log, *commits)}
        if walk is None or any(s not in held for s in walk):
            # the newest commits from HEAD hold one the table never read (a merged branch's,
            # past the old bound): read them all, as a build from scratch does
            stop = None
            commits, complete = read_commits(root, head, max_commits, None, suffixes)
            read, commits = len(commits), [c for c in commits if c.sha not in boundary]
            words = {c.sha: message_words(c.message) for c in commits}
        else:  # in the order `git log` gives from HEAD (a merged branch's commits interleave)
            commits = [held[s] for s in walk]
            words |= {s: old.words.get(s, frozenset()) for s in walk if s not in words}
    log = [Commit(c.sha, "", c.files) for c in commits]
    defs = attribute(log, defs_by_path, per_def)
    return dump(HistoryTable(head, dict(settings), defs, words, log)), {
        "commits_read": read, "reused": False, "incremental": stop is not None,
        "complete": complete, "defs": len(defs), "head": head}


class HistoryIndex:
    """The history documents as a BM25 field (tf 1: a word counts once per definition):
    postings, idf, and each definition's words, built once per generation."""

    K1, B = 1.2, 0.75

    def __init__(self, table: HistoryTable) -> None:
        self.docs: dict[str, frozenset[str]] = {}
        self.commits: dict[str, int] = {}
        for node in sorted(table.defs):
            found, count = table.of(node)
            if found:
                self.docs[node] = found
                self.commits[node] = count
        postings: dict[str, list[str]] = {}
        for node, found in self.docs.items():
            for word in found:
                postings.setdefault(word, []).append(node)
        self.postings = postings
        n = max(len(self.docs), 1)
        self.unseen = math.log(1.0 + (n + 0.5) / 0.5)
        self.idf = {w: math.log(1.0 + (n - len(p) + 0.5) / (len(p) + 0.5))
                    for w, p in postings.items()}
        self.average = (sum(len(d) for d in self.docs.values()) / n) or 1.0

    def score(self, node: str, words: frozenset[str]) -> float:
        found = self.docs.get(node)
        if not found:
            return 0.0
        norm = 1.0 - self.B + self.B * len(found) / self.average
        # fsum: exact, so the same whatever order the set iterates in (string hashes differ
        # from process to process: a plain sum's last bit did)
        return (math.fsum(self.idf[w] for w in words & found) * (self.K1 + 1)
                / (1.0 + self.K1 * norm))

    def search(self, words: frozenset[str], k: int) -> list[tuple[str, float]]:
        """The `k` definitions whose history holds the most of `words` (BM25), best first,
        ties by node id."""
        nodes = {n for w in words for n in self.postings.get(w, ())}
        ranked = sorted(((round(self.score(n, words), 9), n) for n in nodes),
                        key=lambda t: (-t[0], t[1]))
        return [(n, s) for s, n in ranked[:k]]
