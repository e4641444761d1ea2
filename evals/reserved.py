"""Projects reserved for checks run elsewhere, as one deny-list (`data/reserved_projects.txt`).

The evaluations never tune on them: the history miner drops a commit whose message names one,
`helix eval qa` a question whose text, reference answer or gold files do (drop reason
`reserved`). A listed name matches at the start of a word, case-insensitive, so its prefix
counts (a class named after one, a `templaters/<name>.py` path). Read once per process.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from helix.core.errors import UserError

RESERVED_FILE = Path(__file__).resolve().parent.parent / "data" / "reserved_projects.txt"


@functools.cache
def reserved_names() -> tuple[str, ...]:
    """The listed names, lower-cased, in file order (`#` lines are comments)."""
    try:
        text = RESERVED_FILE.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read the reserved-project list {RESERVED_FILE}: "
                        f"{exc.strerror or exc}") from None
    names = tuple(line.strip().lower() for line in text.splitlines()
                  if line.strip() and not line.lstrip().startswith("#"))
    if not names:
        raise UserError(f"the reserved-project list {RESERVED_FILE} names no project")
    return names


@functools.cache
def _pattern() -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(n) for n in reserved_names()) + ")",
                      re.IGNORECASE)


def names_reserved(*texts: str) -> bool:
    """Whether any of `texts` names a reserved project."""
    pattern = _pattern()
    return any(pattern.search(text) for text in texts)


RESERVED_PATH = "(a path naming a reserved project)"


RESERVED_NAME = "(a name naming a reserved project)"


def shown_path(path: str) -> str:
    """`path`, or `RESERVED_PATH` when it names a reserved project: a result file lists what
    Helix ranked (a `templaters/<name>.py` of the repository asked about) without naming it."""
    return RESERVED_PATH if names_reserved(path) else path


def shown_name(name: str | None) -> str | None:
    """`name` (a symbol Helix ranked, a label a writer gave), or `RESERVED_NAME` when it names a
    reserved project: as `shown_path`, for the names a result file lists beside paths."""
    return RESERVED_NAME if name and names_reserved(name) else name
