"""Documents that record the past on purpose, whatever their file is called.

A release history is not always `CHANGELOG.md`: it is `docs/versions.rst`, `History.md`,
`doc/release/release_3.4.rst`, `change-archive.txt`. And the documentation of an earlier
major version (`docs/v1/` beside `docs/v3/`, `previous-versions/`, Docusaurus's
`versioned_docs/`) names what that version had. Neither goes stale when the code moves on.
Three structural signs, none tied to one project's layout:

    a directory that holds history    a path segment matching `stale_docs.history_dirs`
                                      (release/, releases/, whatsnew/, news/, blog/,
                                      previous-versions/, versioned_docs/, archive/ ...)
    an older version's directory      two or more sibling directories named as versions
                                      (`v1`, `v2.0`, `1.x`, `version-3`): all but the
                                      highest are documentation of an earlier version
    headings that are versions        a file with `stale_docs.min_version_headings`
                                      headings that are a version number ("4.13.3 /
                                      2015-08-02", "Trio 0.22.0 (2022-09-28)", "[1.0.0] -
                                      2017-06-20", "Release 3.4") is a release history;
                                      any section under such a heading is one entry of it
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence

_VERSION = r"v?\d+(?:\.\d+)+(?:\.x|[.-]?(?:a|b|rc|alpha|beta|dev|post|pre)\.?\d*)*"
_DATE = (r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]+\.?,?\s+\d{4}|"
         r"[A-Za-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|[A-Za-z]+\s+\d{4}|\d{4}|"
         r"unreleased|in development|not yet released|upcoming|tb[ad])")
# up to two words before the number ("Release", "NetworkX", "Version"), a date or a state
# after it, nothing else: "Python 3.8 support" or "1.2 Installing" is no release entry
VERSION_HEADING = re.compile(
    rf"^(?:[A-Za-z][\w.-]*\s+){{0,2}}\(?{_VERSION}\)?"
    rf"(?:\s*[-\u2013\u2014/:,|]?\s*[(\[]?{_DATE}[)\]]?)?$", re.I)
_MARKUP = re.compile(r"\[([^\]]*)\]\([^)]*\)|[`*_#\[\]]")  # links keep their text
VERSION_DIR = re.compile(r"^(?:v|version[-_]?)?(\d+(?:\.\d+)*)(?:\.x)?$", re.I)


def version_heading(title: str) -> bool:
    """`title` is a release entry's heading: a version number, a word or two before it and
    a date (or "unreleased") after it at most."""
    bare = _MARKUP.sub(lambda m: m.group(1) or " ", title)
    return bool(VERSION_HEADING.match(" ".join(bare.split())))


def release_history(headings: Iterable[Sequence[str]], at_least: int) -> bool:
    """A file whose sections' headings (each a heading path) hold `at_least` distinct
    version headings is a release history."""
    found = {h for path in headings for h in path if version_heading(h)}
    return len(found) >= at_least


def _versioned(name: str) -> tuple[int, ...] | None:
    """A directory named as a version (`v1`, `2.0`, `1.x`, `version-3`) -> its number.
    A bare integer (`2`, `2023`) is not one: it is as often a year or a step."""
    match = VERSION_DIR.match(name)
    if match is None or (name.isdigit()):
        return None
    return tuple(int(part) for part in match.group(1).split("."))


def older_versions(paths: Iterable[str]) -> set[str]:
    """The directories (as path prefixes ending in "/") that document an earlier version:
    among two or more sibling directories named as versions, all but the highest."""
    siblings: dict[str, dict[str, tuple[int, ...]]] = {}
    for path in paths:
        parts = path.split("/")[:-1]
        for depth, name in enumerate(parts):
            number = _versioned(name)
            if number is not None:
                parent = "/".join(parts[:depth])
                siblings.setdefault(parent, {})[name] = number
    older: set[str] = set()
    for parent, named in siblings.items():
        if len(named) < 2:
            continue
        newest = max(named.values())
        older |= {(f"{parent}/{name}" if parent else name) + "/"
                  for name, number in named.items() if number != newest}
    return older


def in_history_dir(path: str, patterns: Sequence[str]) -> bool:
    """A directory of `path` matches one of `patterns` (case aside)."""
    return any(fnmatch.fnmatchcase(part.lower(), p.lower())
               for part in path.split("/")[:-1] for p in patterns)


def archived(path: str, patterns: Sequence[str], older: set[str]) -> bool:
    """`path` is in a directory of history, or of an earlier version (`older_versions`)."""
    return in_history_dir(path, patterns) or any(path.startswith(o) for o in older)
