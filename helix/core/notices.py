"""One-line notices for the user, from any layer: `helix: <message>` on stderr.

A notice says something the user should know but that does not stop the command (a setting of
the repository's config that was ignored, an answer given from a generation another process is
replacing). Library code calls `notify`; by default the line goes to stderr at once (stdout stays
the command's output, so `--json` is unaffected). `collect()` gathers them instead (tests, or a
caller that shows them its own way). A notice can quote repository text (a setting name
from its config file, a path): every character a terminal would act on is written out visibly
(`\\x1b`, `\\u202e`), the rule of `helix.core.visible`, the one every printer uses.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from helix.core.visible import visible_line

_collectors: list[list[str]] = []


def notify(message: str) -> None:
    """Tell the user `message` (one line; newlines flattened, control characters shown)."""
    line = visible_line(message)
    if _collectors:
        _collectors[-1].append(line)
        return
    stream = sys.stderr  # looked up now: test runners swap it
    with contextlib.suppress(OSError, ValueError):
        stream.write(f"helix: {line}\n")
        stream.flush()


@contextlib.contextmanager
def collect() -> Iterator[list[str]]:
    """Notices raised inside the block are appended to the yielded list, not printed."""
    seen: list[str] = []
    _collectors.append(seen)
    try:
        yield seen
    finally:
        for position, collector in enumerate(_collectors):
            if collector is seen:  # by identity: two empty lists are equal
                del _collectors[position]
                break
