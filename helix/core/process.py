"""Which process wrote something, and whether it still runs (pure but for reading `/proc`).

    identity()      this process as "<boot id>:<pid>:<start time>": a pid is reused once its
                    process is gone, the pair (pid, start time) is not within one boot
    gone(owner)     True when the process an identity names no longer runs (another boot,
                    no such pid, or a pid now held by a process started at another time);
                    False when it runs or when it cannot be told

On Linux the boot id and the start time come from `/proc`; elsewhere they are "-" and only
the pid is checked (a reused pid then reads as still running: never wrongly "gone").
"""

from __future__ import annotations

import contextlib
import os
from functools import cache

_UNKNOWN = "-"
_START_FIELD = 19  # starttime, counted from the field after the command's closing ')'


@cache
def _boot_id() -> str:
    with (contextlib.suppress(OSError),
          open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle):
        return handle.read().strip() or _UNKNOWN
    return _UNKNOWN


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot; None when there is no such
    process, "-" when this system cannot tell."""
    if not os.path.isdir("/proc"):
        return _UNKNOWN if _pid_runs(pid) else None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[_START_FIELD] if len(fields) > _START_FIELD else _UNKNOWN


def _pid_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it runs
    return True


def identity(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{_boot_id()}:{pid}:{_start_time(pid) or _UNKNOWN}"


def gone(owner: str) -> bool:
    boot, _, rest = owner.partition(":")
    pid_text, _, started = rest.partition(":")
    if not pid_text.isdigit():
        return False  # not an identity: cannot tell
    if boot != _UNKNOWN and _boot_id() != _UNKNOWN and boot != _boot_id():
        return True  # written before the machine last started
    now = _start_time(int(pid_text))
    if now is None:
        return True
    return _UNKNOWN not in (started, now) and now != started
