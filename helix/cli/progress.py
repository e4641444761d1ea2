"""The indexing progress bar (`helix index`, `helix ask`) and the dense-state line.

A bar is drawn on standard error only when it is a terminal and the output is not JSON
(`wanted`): a pipe, a file or `--json` get nothing. One row per stage (walking, files parsed,
cards embedded, ...), each with done / total and the time left; it is taken down as soon as
the index is ready (`PROGRESS_DONE`), so nothing stays frozen while the question is answered
or the model is waited for.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from helix.core.ports import PROGRESS_DONE

STAGE_LABELS = {"walk": "walking", "parse": "files parsed", "bm25": "BM25",
                "graph": "building graph", "embed": "cards embedded", "write": "writing"}


def wanted(as_json: bool, stream: TextIO | None = None) -> bool:
    """Draw a bar: not for JSON output, and only on a terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return not as_json and bool(isatty and isatty())


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on stderr (yields `update(stage, done, total)`), else None."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    tasks: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        if stage == PROGRESS_DONE:  # the index is ready: no bar left frozen at "walking"
            bar.stop()
            return
        if stage not in tasks:
            for task in bar.tasks:  # an earlier stage without a count (walking...) is done
                if task.total is None:
                    bar.update(task.id, total=1, completed=1)
            tasks[stage] = bar.add_task(STAGE_LABELS.get(stage, stage), total=total or None)
        bar.update(tasks[stage], completed=done, total=total or None)

    with bar:
        yield update


def dense_line(state: Any, worker_pid: int | None = None) -> str | None:
    """`dense: 41% (1,234 of 3,000 vectors)` while vectors are missing, else None; with the
    worker's pid: `dense: building 41% (1,234 of 3,000 vectors, worker pid 77)`.
    `state`: a dense state ({"vectors", "total", "complete"} or an object with those)."""
    if state is None:
        return None
    get = state.get if isinstance(state, dict) else (lambda key: getattr(state, key))
    if get("complete"):
        return None
    vectors, total = int(get("vectors") or 0), int(get("total") or 0)
    percent = int(100 * vectors / total) if total else 100
    if worker_pid is None:
        return f"dense: {percent}% ({vectors:,} of {total:,} vectors)"
    return f"dense: building {percent}% ({vectors:,} of {total:,} vectors, worker pid {worker_pid})"


def channels_used(steps: Sequence[Any]) -> list[str]:
    """The channels the controller ran, in first-use order."""
    return list(dict.fromkeys(c for s in steps for c in s.channels))


def wait_timer(stream: Any = None) -> Any:
    """A `helix.core.ports.Waiting` that shows, on a terminal, what is being waited for and for
    how long, in place (`helix: waiting for gpt-4o-mini: 12 s of up to 90 s`), and clears the
    line when the wait is over; None when standard error is not a terminal (nothing shown)."""
    import sys

    out = stream or sys.stderr
    if not getattr(out, "isatty", lambda: False)():
        return None
    from helix.cli.safe_text import visible

    def show(model: str, elapsed: float, deadline: float) -> None:
        if elapsed < 0:
            out.write("\r\033[K")
        else:
            out.write(f"\r\033[Khelix: waiting for {visible(model)}: {elapsed:.0f} s of up to "
                      f"{deadline:g} s")
        out.flush()

    return show
