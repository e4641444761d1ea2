"""Which commits become localization cases, and what their question and gold are (pure but
for the reserved-project list, read once: `evals.reserved`).

A commit is kept when every rule below passes; the first failing rule is its drop reason.

1. `merge`: more than one parent, or a subject starting with "Merge " (a merge pull request /
   branch commit); `root`: no parent (nothing to check out).
2. `bot`: authored by a bot (author name or e-mail containing `[bot]`, `dependabot`,
   `renovate`, `pre-commit-ci`) or a subject starting with `[pre-commit.ci]`;
   `dependency_bump`: "Bump X from A to B", "Update X requirement from A to B".
3. `revert`: subject starting with "Revert" or a message containing "This reverts commit".
4. `release`: a release or version bump (`RELEASE_PATTERNS`: "Release 1.2", "1.2.3", "Bump
   version to 2.0", "Version 0.27.0 (#3095)", "Prepare 3.1 release", "Back to development" ...).
5. `typo`: the subject mentions a typo, spelling or grammar.
6. `format`: the subject is about code formatting, linting or type-checker fixups ("reformat",
   "format code with", black, isort, flake8, ruff, lint, pylint, pre-commit, whitespace,
   pep8, mypy ...; not "formatting" alone, a feature of many libraries), or is a conventional-commit
   `style:`, `ci:`, `build:` or `chore:` change.
7. `reserved`: the message names a project reserved for checks run elsewhere
   (`evals.reserved`, the list in `data/reserved_projects.txt`): a question about it is
   theirs, not ours, even in another project's history.
8. `too_few_words`: fewer than `MIN_WORDS` words (`[A-Za-z][A-Za-z0-9_]*` runs) in the cleaned
   message (subject and body without trailers).
9. Files, after classifying each changed path (`classify_path`) as test, doc, changelog,
   source (a code suffix in `SOURCE_SUFFIXES`) or other (configuration, data ...); a
   changelog is a non-code file named CHANGES/CHANGELOG/HISTORY/NEWS/AUTHORS... or under a
   news-fragment directory (`changelog.d/`, `newsfragments/` ...):
   no source file at all -> `changelog_only` (only changelog files), `docs_only` (docs and
   changelogs), `tests_only` (tests, maybe with docs/changelogs), else `no_source`; more than
   `MAX_SOURCE_FILES` source files (added ones included) -> `too_many_files`.
10. `gold_added_only`: the gold is the source files that existed at the parent (modified,
   deleted, type-changed, or renamed: the path before the rename); files the commit added are
   not in the parent's tree, so they are not gold. No gold left -> dropped.

The question is the subject and the body, trailers (`Signed-off-by:`, `Co-authored-by:` ...)
and `(cherry picked from ...)` lines removed, issue references kept as text, cut at a word
boundary to `MAX_QUESTION_CHARS` (the case says so).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Literal

from evals.reserved import names_reserved
from helix.core.schemas import Frozen

MIN_WORDS = 5
MAX_SOURCE_FILES = 3
MAX_QUESTION_CHARS = 4000
CUT_WINDOW = 200  # a cut looks this far back for whitespace before cutting mid-word

PathKind = Literal["source", "test", "doc", "changelog", "other"]

SOURCE_SUFFIXES = frozenset({
    ".py", ".pyi", ".pyx", ".pxd", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".js", ".jsx",
    ".mjs", ".ts", ".tsx", ".go", ".rs", ".java", ".kt", ".cs", ".php", ".rb",
})
DOC_SUFFIXES = frozenset({".md", ".rst", ".txt", ".adoc", ".markdown"})
TEST_DIRS = frozenset({"test", "tests", "testing", "testsuite", "__tests__", "unittests"})
DOC_DIRS = frozenset({"doc", "docs", "documentation", "docs_src"})
CHANGELOG_DIRS = frozenset({"changelog.d", "changes", "newsfragments", "news", "changelog",
                            "release-notes", "releasenotes"})
CHANGELOG_STEMS = frozenset({"changes", "changelog", "history", "news", "releases",
                             "release_notes", "release-notes", "whatsnew", "authors",
                             "contributors"})
_TEST_FILE = re.compile(r"^(test_.*|.*_tests?|tests?|conftest)\.py$|\.(test|spec)\.[cm]?[jt]sx?$"
                        r"|_test\.go$|Tests?\.java$")

BOT_MARKERS = ("[bot]", "dependabot", "renovate", "pre-commit-ci")
TRAILER_KEYS = ("signed-off-by", "co-authored-by", "reviewed-by", "acked-by", "tested-by",
                "reported-by", "suggested-by", "helped-by", "cc", "change-id", "reviewed-on",
                "approved-by", "committed-by", "authored-by")
_TRAILER = re.compile(r"^\s*(?:" + "|".join(re.escape(k) for k in TRAILER_KEYS) + r")\s*:.*$",
                      re.IGNORECASE)
_CHERRY = re.compile(r"^\s*\(cherry picked from commit [0-9a-f]+\)\s*$", re.IGNORECASE)
_SKIP_CI = re.compile(r"\[(?:skip ci|ci skip|skip actions|no ci)\]", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_VERSION = r"v?\d+(?:\.\d+)+\S*"

RELEASE_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"^\W*{_VERSION}\W*$",  # "1.2.3", "v2.0"
    rf"^version\s+{_VERSION}",  # "Version 0.27.0 (#3095)"
    r"^(?:release|releasing|released)\b",  # "Release 1.2", "Release notes", "Released"
    rf"\b(?:release|released|releasing)\s+(?:of\s+|version\s+)?{_VERSION}",
    rf"\b{_VERSION}\s+(?:release|released)\b",  # "3.1 release"
    r"^(?:prepare|preparing|prep)\b.*\b(?:release|\d+\.\d+)",
    r"\b(?:bump|bumped|bumping)\b.*\bversion",  # "Bump version to 2.0"
    r"\bversion\s+bump",
    rf"^bump\s+(?:to\s+)?{_VERSION}",  # "Bump to 2.0"
    r"^(?:set|update|increment|change)\s+(?:the\s+)?version\b",
    r"\bback to development\b",
    r"^(?:post|pre)-?release\b",
))
DEPENDENCY_BUMP = re.compile(r"^(?:bump|update|upgrade)\s+\S+(?:\s+requirement)?\s+from\s+\S+"
                             r"\s+to\s+\S+", re.IGNORECASE)
TYPO = re.compile(r"\b(?:typos?|typographical|spelling|misspell\w*|grammar)\b", re.IGNORECASE)
FORMAT = re.compile(
    r"\b(?:reformat\w*|auto-?format\w*|code[- ]format\w*|format(?:ted|ting)?\s+(?:the\s+)?"
    r"(?:code|codebase|files|sources?|with|using)|black|isort|flake8|pyflakes|pycodestyle|"
    r"pep\s?8|ruff|lint|linting|linter|pre-commit|whitespaces?|autopep8|yapf|prettier|"
    r"code style|mypy|pyright|pylint|pytype|noqa)\b", re.IGNORECASE)
CHORE_TYPE = re.compile(r"^(?:style|ci|build|chore)(?:\([^)]*\))?!?:", re.IGNORECASE)


class Change(Frozen):
    """One changed path of a commit, as `git log --name-status -M` reports it."""

    status: str  # A, M, D, T, R (renamed), C (copied); the letter only
    path: str  # the path after the commit
    old_path: str | None = None  # the path at the parent, for R and C


class Commit(Frozen):
    sha: str
    parents: tuple[str, ...]
    committed: int  # committer time, Unix seconds
    author: str
    email: str
    message: str  # raw, as `%B` gives it
    changes: tuple[Change, ...]


class Verdict(Frozen):
    kept: bool
    reason: str  # "kept" or the first failing rule
    question: str = ""
    truncated: bool = False
    gold: tuple[str, ...] = ()  # paths at the parent, sorted
    source_files: tuple[str, ...] = ()  # every non-test source file the commit touched


def classify_path(path: str) -> PathKind:
    """test, doc, changelog, source or other (rules in the module docstring)."""
    pure = PurePosixPath(path)
    dirs = [part.lower() for part in pure.parts[:-1]]
    name = pure.name
    stem = name.split(".", 1)[0].lower()
    suffix = pure.suffix.lower()
    if suffix not in SOURCE_SUFFIXES and (any(d in CHANGELOG_DIRS for d in dirs)
                                          or stem in CHANGELOG_STEMS):
        return "changelog"
    if suffix in SOURCE_SUFFIXES and (any(d in TEST_DIRS for d in dirs) or _TEST_FILE.search(name)):
        return "test"
    if suffix in DOC_SUFFIXES or (dirs and dirs[0] in DOC_DIRS):
        return "doc"
    if suffix in SOURCE_SUFFIXES:
        return "source"
    return "other"


def clean_message(message: str) -> str:
    """Subject and body without trailers, cherry-pick notes and [skip ci] markers; lines
    right-stripped, runs of blank lines collapsed to one."""
    lines: list[str] = []
    for raw in message.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if _TRAILER.match(raw) or _CHERRY.match(raw):
            continue
        line = _SKIP_CI.sub("", raw).rstrip()
        if not line and (not lines or not lines[-1]):
            continue
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines).strip()


def cut(text: str, limit: int = MAX_QUESTION_CHARS) -> tuple[str, bool]:
    """`text` cut to at most `limit` characters, at the last whitespace within `CUT_WINDOW`
    characters of the limit when there is one; (text, whether it was cut)."""
    if len(text) <= limit:
        return text, False
    head = text[:limit]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    if space > 0 and space >= limit - CUT_WINDOW:
        head = head[:space]
    return head.rstrip(), True


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def _subject(message: str) -> str:
    for line in message.splitlines():
        if line.strip():
            return line.strip()
    return ""


def message_reason(commit: Commit, cleaned: str) -> str | None:
    """The first message rule that drops this commit, or None."""
    subject = _subject(commit.message)
    if len(commit.parents) > 1 or subject.startswith("Merge "):
        return "merge"
    if not commit.parents:
        return "root"
    who = f"{commit.author} {commit.email}".lower()
    if any(marker in who for marker in BOT_MARKERS) or subject.lower().startswith(
            "[pre-commit.ci]"):
        return "bot"
    if DEPENDENCY_BUMP.search(subject):
        return "dependency_bump"
    if subject.lower().startswith("revert") or "This reverts commit" in commit.message:
        return "revert"
    if any(p.search(subject) for p in RELEASE_PATTERNS):
        return "release"
    if TYPO.search(subject):
        return "typo"
    if FORMAT.search(subject) or CHORE_TYPE.search(subject):
        return "format"
    if names_reserved(cleaned):
        return "reserved"
    if word_count(cleaned) < MIN_WORDS:
        return "too_few_words"
    return None


def files_reason(kinds: Sequence[PathKind]) -> str | None:
    """The file rule that drops a commit whose changed paths have these kinds, or None."""
    sources = sum(1 for kind in kinds if kind == "source")
    if sources == 0:
        present = set(kinds)
        if present and present <= {"changelog"}:
            return "changelog_only"
        if present and present <= {"changelog", "doc"}:
            return "docs_only"
        if "test" in present and present <= {"changelog", "doc", "test"}:
            return "tests_only"
        return "no_source"
    if sources > MAX_SOURCE_FILES:
        return "too_many_files"
    return None


def gold_files(changes: Sequence[Change]) -> tuple[str, ...]:
    """The non-test source files as they were at the parent: added and copied files have no
    parent path; a rename's gold is its old path."""
    gold: set[str] = set()
    for change in changes:
        if change.status in ("A", "C"):
            continue
        path = change.old_path if change.status == "R" and change.old_path else change.path
        if classify_path(path) == "source":
            gold.add(path)
    return tuple(sorted(gold))


def judge(commit: Commit) -> Verdict:
    """Keep or drop one commit, with its question and gold when kept."""
    cleaned = clean_message(commit.message)
    reason = message_reason(commit, cleaned)
    if reason is not None:
        return Verdict(kept=False, reason=reason)
    kinds = [classify_path(c.path) for c in commit.changes]
    reason = files_reason(kinds)
    if reason is not None:
        return Verdict(kept=False, reason=reason)
    sources = tuple(sorted({c.path for c, kind in zip(commit.changes, kinds, strict=True)
                            if kind == "source"}))
    gold = gold_files(commit.changes)
    if not gold:
        return Verdict(kept=False, reason="gold_added_only", source_files=sources)
    question, truncated = cut(cleaned)
    return Verdict(kept=True, reason="kept", question=question, truncated=truncated, gold=gold,
                   source_files=sources)
