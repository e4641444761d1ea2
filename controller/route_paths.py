"""The path-like words of a question (`controller.route`: "tests/test_x.py", "config.yaml").

`PATHLIKE` says what one is; `pathlike_spans` finds them as `PATHLIKE.finditer` would, but
reads each run of path characters once: a search tries every start after a dash of a run and
reads the rest of the run from each ('-' * 20000 took 19 s). From a failed start no later one
in its run takes the first alternative (its first part runs to the run's end, so its outcome
is the run's), nor the second in its dash-joined part (the part runs to the same dot). Pure.
"""

from __future__ import annotations

import re

KNOWN_EXTENSIONS = (
    "py", "md", "rst", "txt", "json", "toml", "yaml", "yml", "js", "ts", "tsx", "go", "rs", "java",
    "c", "h", "cc", "cpp", "hpp", "sh", "cfg", "ini", "scm", "sql", "html", "css",
)
_FILE = r"[\w-]+\.(?:" + "|".join(KNOWN_EXTENSIONS) + r")"
PATHLIKE = re.compile(r"(?<![\w/.])([\w.-]+(?:/[\w.-]+)+|" + _FILE + r")(?![\w/])")
_FILE_ONLY = re.compile(_FILE + r"(?![\w/])")
_START = re.compile(r"(?<![\w/.])[\w.-]")  # where PATHLIKE may start
_RUN = re.compile(r"[\w.-]*")
_PART = re.compile(r"[\w-]*")


def pathlike_spans(text: str) -> list[tuple[int, int]]:
    """The spans of `PATHLIKE.finditer(text)`, in order."""
    spans: list[tuple[int, int]] = []
    pos = no_path_before = 0  # before `no_path_before`, only a file name may start
    while (found := _START.search(text, pos)) is not None:
        at = found.start()
        if at >= no_path_before:
            match = PATHLIKE.match(text, at)
            if match is None or "/" not in match.group():  # the first alternative failed
                no_path_before = _RUN.match(text, at).end()  # type: ignore[union-attr]
        else:
            match = _FILE_ONLY.match(text, at)
        if match is not None:
            spans.append(match.span())
            pos = match.end()
        else:
            pos = max(at + 1, _PART.match(text, at).end())  # type: ignore[union-attr]
    return spans


def without_pathlike(text: str) -> str:
    """`PATHLIKE.sub(" ", text)`."""
    pieces, last = [], 0
    for start, end in pathlike_spans(text):
        pieces += [text[last:start], " "]
        last = end
    return "".join(pieces) + text[last:]
