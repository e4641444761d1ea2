"""The tail every benchmark shares: the machine it ran on, the load average, CPU seconds, and
writing its result file.

    machine()             {"cpus", "python", "platform"} (with_platform=False: without it)
    load_average(digits)  the 1, 5 and 15-minute load averages (digits=None: as the kernel
                          gives them); load_1m(digits) the first of them
    cpu_seconds()         this process's CPU seconds (children=True: its waited-for children's,
                          user + system)
    result_text(result)   the result as canonical JSON (helix.core.hashing: sorted keys, the
                          same bytes for the same result every time), laid out `indent` a level;
                          NaN and infinity are refused (ValueError), as everywhere in Helix
    write_result(path, result)
                          that text written atomically (helix.outfile.write_out: a temporary
                          file in the same folder, fsync, rename): a run killed or failing
                          mid-write leaves the previous result whole
    show(obj)             print a summary the same way

A script run as `python benchmarks/NAME.py` imports this as `_result` (its folder is first on
sys.path). Helix is imported only when a result is written: a script that measures another
tree's Helix (redaction_scan.py --src) puts that tree on sys.path first.
"""

from __future__ import annotations

import os
import platform
import resource
import time
from pathlib import Path
from typing import Any


def machine(*, with_platform: bool = True) -> dict[str, Any]:
    """What the timings ran on: CPU count, Python version and (by default) the platform."""
    info: dict[str, Any] = {"cpus": os.cpu_count(), "python": platform.python_version()}
    if with_platform:
        info["platform"] = platform.platform()
    return info


def load_average(digits: int | None = 2) -> list[float]:
    """The 1, 5 and 15-minute load averages, rounded to `digits` (None: unrounded)."""
    return [x if digits is None else round(x, digits) for x in os.getloadavg()]


def load_1m(digits: int | None = 2) -> float:
    """The 1-minute load average, rounded to `digits` (None: unrounded)."""
    return load_average(digits)[0]


def cpu_seconds(*, children: bool = False) -> float:
    """CPU seconds (user + system) of this process, or of its children waited for so far."""
    if not children:
        return time.process_time()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def result_text(result: Any, indent: int = 2) -> str:
    """`result` as canonical JSON laid out `indent` a level, ending in a newline."""
    from helix.core.hashing import canonical_json

    return canonical_json(result, indent=indent) + "\n"


def write_result(path: Path | str, result: Any, indent: int = 2) -> None:
    """Write `result` to `path` atomically (its folder made when missing)."""
    from helix.outfile import write_out

    write_out(Path(path), result_text(result, indent).encode("utf-8"))


def show(obj: Any, indent: int | None = 2) -> None:
    """Print `obj` (a result or a summary of one) as canonical JSON."""
    from helix.core.hashing import canonical_json

    print(canonical_json(obj, indent=indent))
