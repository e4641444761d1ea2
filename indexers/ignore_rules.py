"""Ignore-file rules (`.gitignore`, `.helixignore`, `.git/info/exclude`) matched by RE2, with
every cost bounded.

A repository writes these files, so they are untrusted input:
- matching is RE2's (google-re2): linear in the path's length whatever the patterns, where a
  backtracking engine takes time exponential in the `*` of one line;
- a line longer than `index.max_ignore_line_chars` is not honoured: pathspec's translation of
  one line to a regular expression is quadratic past about 100,000 characters (a 1 MB line:
  99 s), and no path is that long;
- a file's lines past `index.max_ignore_lines` are not honoured;
- the regexes are compiled into RE2 sets of at most `SET_REGEXES` each, every set within
  `index.ignore_max_mem` bytes of program: one set over all of them failed on a few hundred
  wildcard lines ("failed to compile Set") and stopped the walk. A set that does not compile
  is split in halves, down to one regex; a line whose regex does not compile alone is not
  honoured. Each kind is one notice naming the file, the first few lines and the setting;
- a line git reads as no pattern (`!` alone, a trailing unescaped `\\`) is skipped as git skips
  it, the other lines keep their meaning: one notice names the first few such lines.

The meaning is pathspec's `GitIgnoreSpec`: its translation of each line, and its precedence
(the last matching line decides; a match as a file beats a match as a directory;
`tests/test_walker.py` checks the two agree).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import re2
from pathspec.patterns.gitignore.base import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from helix.core.config import IndexSettings
from helix.core.notices import notify

# pathspec's directory marker: its regexes end in it, RE2 sets cannot report groups
_DIR_MARK_CG = "(?P<ps_d>/)"
_DIR_MARK_OPT = f"(?:{_DIR_MARK_CG}|$)"
SET_REGEXES = 512  # regexes tried in one set before splitting (two per line at most)
NAMED_LINES = 5  # invalid lines a notice names before it counts the rest


@dataclass(frozen=True)
class _Regex:
    line: int  # 1-based line of the ignore file
    include: bool  # the line ignores (True) or re-includes (`!`, False)
    is_dir: bool  # matched through the directory marker
    regex: str


@dataclass
class IgnoreRules:
    """The compiled rules of one ignore file; `notes` says what of it is not honoured."""

    regexes: list[_Regex]
    sets: list[tuple[re2.Set, list[int]]]  # each set and the regex numbers of its members
    notes: list[str] = field(default_factory=list)
    dropped: frozenset[int] = frozenset()  # lines not honoured (one of their regexes failed)

    def check(self, path: str) -> bool | None:
        """True: ignored, False: re-included, None: no line matches (POSIX relative path,
        a directory with a trailing `/`)."""
        hits = sorted(number for regex_set, members in self.sets
                      for number in (members[hit] for hit in regex_set.Match(path) or ())
                      if self.regexes[number].line not in self.dropped)
        best: _Regex | None = None
        for number in hits:  # in line order, so the result never depends on RE2's order
            if best is None or _beats(self.regexes[number], best):
                best = self.regexes[number]
        return None if best is None else best.include


def _beats(candidate: _Regex, best: _Regex) -> bool:
    """GitIgnoreSpec's precedence (its re2 backend's rule): a match as a file beats one as a
    directory, a later line one of the same kind, and a later ignoring directory line any."""
    rank, held = (1 if candidate.is_dir else 2), (1 if best.is_dir else 2)
    return ((candidate.include and candidate.is_dir and candidate.line > best.line)
            or (rank == held and candidate.line > best.line) or rank > held)


def _split(regex: str) -> list[tuple[str, bool]]:
    """pathspec's regex as RE2-set regexes: (regex, matched as a directory)."""
    if _DIR_MARK_CG not in regex:
        return [(regex, False)]
    if regex.endswith(_DIR_MARK_OPT):
        base = regex[:-len(_DIR_MARK_OPT)]
        return [(f"{base}/", True), (f"{base}$", False)]
    return [(regex.replace(_DIR_MARK_CG, "/"), True)]


def _options(max_mem: int) -> re2.Options:
    options = re2.Options()
    options.max_mem = max_mem
    options.log_errors = False
    options.never_capture = True
    return options


def _compiled(regexes: list[_Regex], members: list[int], max_mem: int) -> re2.Set | None:
    regex_set = re2.Set.SearchSet(_options(max_mem))
    try:
        for number in members:
            regex_set.Add(regexes[number].regex)
        regex_set.Compile()
    except Exception:  # re2.error, or a regex it cannot take: split, then drop
        return None
    return regex_set


def _build_sets(regexes: list[_Regex], max_mem: int, notes: list[str]
                ) -> tuple[list[tuple[re2.Set, list[int]]], frozenset[int]]:
    """Sets of at most SET_REGEXES regexes, each compiled within `max_mem`; a set that does
    not compile is halved (work bounded: each level compiles every regex at most once)."""
    pending = [list(range(start, min(start + SET_REGEXES, len(regexes))))
               for start in range(0, len(regexes), SET_REGEXES)]
    built: list[tuple[re2.Set, list[int]]] = []
    dropped: set[int] = set()
    while pending:
        members = pending.pop()
        regex_set = _compiled(regexes, members, max_mem)
        if regex_set is not None:
            built.append((regex_set, members))
        elif len(members) > 1:
            half = len(members) // 2
            pending.extend((members[half:], members[:half]))
        else:
            dropped.add(regexes[members[0]].line)
    if dropped:
        notes.append(f"{_lines_are(sorted(dropped))} not honoured: "
                     f"{'its pattern does' if len(dropped) == 1 else 'their patterns do'} not "
                     f"compile within index.ignore_max_mem = {max_mem:,} bytes")
    built.sort(key=lambda item: item[1][0])
    return built, frozenset(dropped)


def _lines_are(numbers: list[int]) -> str:
    """'line 3 is' or 'lines 1, 4, 5, 6, 7 and 4 more are': one notice however many lines
    (a file of thousands of such lines is one line of output, not thousands)."""
    named = ", ".join(str(number) for number in numbers[:NAMED_LINES])
    more = f" and {len(numbers) - NAMED_LINES:,} more" if len(numbers) > NAMED_LINES else ""
    return f"line {named} is" if len(numbers) == 1 else f"lines {named}{more} are"


def _regexes(lines: tuple[str, ...], max_chars: int, notes: list[str]) -> list[_Regex]:
    out: list[_Regex] = []
    invalid: list[int] = []
    overlong: list[tuple[int, int]] = []  # (line, characters)
    for number, line in enumerate(lines, start=1):
        if len(line) > max_chars:
            overlong.append((number, len(line)))
            continue
        try:
            regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
        except GitIgnorePatternError:
            invalid.append(number)  # git matches nothing with it either
            continue
        if regex is None or include is None:
            continue  # a blank line or a comment
        out.extend(_Regex(number, include, is_dir, text) for text, is_dir in _split(regex))
    if overlong:
        longest = max(chars for _, chars in overlong)
        size = (f"{longest:,} characters" if len(overlong) == 1
                else f"up to {longest:,} characters")
        notes.append(f"{_lines_are([number for number, _ in overlong])} not honoured: {size}, "
                     f"over index.max_ignore_line_chars = {max_chars:,}")
    if invalid:
        notes.append(f"{_lines_are(invalid)} not honoured: git reads no pattern there "
                     "(a lone `!`, a trailing `\\`)")
    return out


@lru_cache(maxsize=256)
def _compile(lines: tuple[str, ...], max_lines: int, max_chars: int,
             max_mem: int) -> IgnoreRules:
    notes: list[str] = []
    if len(lines) > max_lines:
        notes.append(f"{len(lines):,} lines: only the first {max_lines:,} are honoured "
                     "(index.max_ignore_lines)")
        lines = lines[:max_lines]
    regexes = _regexes(lines, max_chars, notes)
    sets, dropped = _build_sets(regexes, max_mem, notes)
    return IgnoreRules(regexes, sets, notes, dropped)


def compile_rules(lines: list[str] | tuple[str, ...], settings: IndexSettings) -> IgnoreRules:
    """The rules of one ignore file's lines under the settings' bounds (memoized: a walk
    compiles each distinct file once per process)."""
    return _compile(tuple(lines), settings.max_ignore_lines, settings.max_ignore_line_chars,
                    settings.ignore_max_mem)


def fingerprint(settings: IndexSettings) -> str:
    """The bounds in force, for a walk's cache of verdicts."""
    return (f"{settings.max_ignore_lines}:{settings.max_ignore_line_chars}:"
            f"{settings.ignore_max_mem}")


@dataclass
class Spec:
    """One ignore file's rules where they apply."""

    base: str  # directory relative to the root, "" for the root, else ending in "/"
    source: str  # which rules: a digest of the ignore file's text (or "defaults")
    spec: IgnoreRules


def ignored(specs: list[Spec], rel: str, is_dir: bool) -> bool:
    """Git semantics: the last pattern that decides, deepest ignore file first."""
    for item in reversed(specs):
        local = rel[len(item.base):] + ("/" if is_dir else "")
        result = item.spec.check(local)
        if result is not None:
            return bool(result)
    return False


_told: set[tuple[str, str]] = set()  # (ignore file, note) already told in this process
TOLD_FILES = 10  # ignore files a walk names in notices; then one line for the rest


@dataclass
class Teller:
    """The ignore-file notices of one walk: each (file, note) once a process; after
    TOLD_FILES files one line says there are more (a tree of thousands of such files is not
    thousands of lines)."""

    files: set[str] = field(default_factory=set)
    more: bool = False

    def tell(self, name: str, shown: str, note: str) -> None:
        if (name, note) in _told:
            return
        if name not in self.files and len(self.files) >= TOLD_FILES:
            if not self.more:
                self.more = True
                notify(f"more ignore files have lines that are not honoured (the first "
                       f"{TOLD_FILES} are named above)")
            return
        _told.add((name, note))
        self.files.add(name)
        notify(f"{shown}: {note}")
