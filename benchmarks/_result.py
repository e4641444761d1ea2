"""The tail every benchmark shares: the machine it ran on, the load average, CPU seconds, and
writing its result file.

    machine()             {"cpus", "python", "platform"} (with_platform=False: without it)
    load_average(digits)  the 1, 5 and 15-minute load averages (digits=None: as the kernel
                          gives them); load_1m(digits) the first of them
    cpu_seconds()         this process's CPU seconds (children=True: its waited-for children's,
                          user + system)
    result_text(result)   the result as canonical JSON (helix.core.hashing: sorted keys, the
                          same bytes for the same result every time), laid out `indent` a level;
                          NaN and infinity are refused (ValueError), as everywhere in Helix.
                          ensure_ascii=True: each character past "~" written as a \\u escape, as
                          json.dumps writes it by default (a script whose files were written
                          that way keeps their bytes)
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
import re
import resource
import time
from pathlib import Path
from typing import Any

# what json.dumps escapes beyond what canonical JSON escapes when asked for ASCII (DEL and up)
_PAST_TILDE = re.compile("[\x7f-\U0010ffff]")


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


def _escaped(char: str) -> str:
    """`char` as JSON's \\u escape (a pair of surrogates past the first plane)."""
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


def result_text(result: Any, indent: int = 2, *, ensure_ascii: bool = False) -> str:
    """`result` as canonical JSON laid out `indent` a level, ending in a newline; `ensure_ascii`:
    each character past "~" escaped (only strings hold one: the rest of the text is ASCII)."""
    from helix.core.hashing import canonical_json

    text = canonical_json(result, indent=indent) + "\n"
    return _PAST_TILDE.sub(lambda m: _escaped(m.group()), text) if ensure_ascii else text


def write_result(path: Path | str, result: Any, indent: int = 2, *,
                 ensure_ascii: bool = False) -> None:
    """Write `result` to `path` atomically (its folder made when missing)."""
    from helix.outfile import write_out

    text = result_text(result, indent, ensure_ascii=ensure_ascii)
    write_out(Path(path), text.encode("utf-8"))


def show(obj: Any, indent: int | None = 2) -> None:
    """Print `obj` (a result or a summary of one) as canonical JSON."""
    from helix.core.hashing import canonical_json

    print(canonical_json(obj, indent=indent))
