"""The project's own names, read from its layout: what a capitalised question word means when
it is the project's name ("How does Reflex transform ...") rather than one of its classes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from helix.core.schemas import FileRecord
from indexers.graph import is_test_path

# A directory on the path of at least this share of the code files names the project (its
# package, `src/<name>`, or a Java `org/<vendor>/<name>` tree), not a part of it.
PROJECT_SHARE = 0.5
MIN_CODE_FILES = 4  # a tiny tree has no project layout to read


def project_names(files: Iterable[FileRecord]) -> frozenset[str]:
    """Lower-cased directory names shared by at least half of the non-test code files."""
    paths = [f.path for f in files if f.kind == "code" and not is_test_path(f.path)]
    if len(paths) < MIN_CODE_FILES:
        return frozenset()
    counts: Counter[str] = Counter()
    for path in paths:
        counts.update({part.lower() for part in path.split("/")[:-1]})
    floor = PROJECT_SHARE * len(paths)
    return frozenset(name for name, n in counts.items() if n >= floor)
