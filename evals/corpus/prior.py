"""The only history a feature may read: commits that are ancestors of the indexed revision R.

A case's commit is after R, so a feature built from history (the words of the messages that
changed a definition, issue 31 part 3) must never see it, nor anything else in R..U: the log
here is asked for R alone (its ancestors, R included), never for a range or a branch name, and
R must be a full commit id (a ref could move).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from evals.history.mine import LOG_FORMAT, RECORD, parse_record
from evals.history.rules import Commit
from helix.core.errors import BadPathError, ConfigError
from helix.core.git import GitOutputTooLarge, stream_git

PRIOR_TIMEOUT_S = 300.0
MAX_PRIOR_BYTES = 1 << 30
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def prior_commits(gitdir: Path, revision: str, max_commits: int) -> list[Commit]:
    """Up to `max_commits` non-merge commits reachable from `revision` (newest first), with
    their messages and --name-status changes."""
    if not _SHA.match(revision):
        raise ConfigError(f"history features read from a full commit id, not {revision!r}")
    if max_commits < 1:
        raise ConfigError("max_commits must be at least 1")
    args = ("log", "--no-merges", "-M", "--name-status", "-z", "--no-ext-diff", "--no-textconv",
            "--no-color", "--no-show-signature", "--no-mailmap", f"--max-count={max_commits}",
            f"--format={LOG_FORMAT}", "--end-of-options", revision)
    commits: list[Commit] = []
    pending = b""
    try:
        for chunk in stream_git(gitdir, *args, max_bytes=MAX_PRIOR_BYTES,
                                timeout=PRIOR_TIMEOUT_S):
            records = (pending + chunk).split(RECORD)
            pending = records.pop()
            commits += [c for r in records if (c := parse_record(r)) is not None]
    except GitOutputTooLarge:
        raise ConfigError(f"the history before {revision[:12]} is too long to read") from None
    except (OSError, subprocess.SubprocessError):
        raise BadPathError(f"cannot read the history of {gitdir} at {revision}") from None
    last = parse_record(pending)
    return commits + ([last] if last is not None else [])
