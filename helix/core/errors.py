"""One exception hierarchy: every error Helix raises on purpose is defined here.

    HelixError (1)                  base; `exit_code` is what the CLI exits with
    ├── UserError (2)               the user asked for something impossible
    │   ├── BadPathError            missing path / not a directory / outside the root
    │   ├── ConfigError             bad config file, setting or flag value
    │   │   └── RankerModelError    the learned ranker's model: missing, another digest, malformed
    │   ├── UnknownModelError       a model string litellm cannot route
    │   ├── NotFoundError           unknown turn, session, baseline, symbol ...
    │   ├── BaselineExistsError     a pinned baseline name is never reused
    │   ├── ConcurrentTurnError     another process wrote a turn of the session meanwhile
    │   ├── LineTooLongError        one chat line over the question limit (the chat goes on)
    │   └── RunLogUnwritableError   the run log's place cannot be written
    ├── IndexError_                 index problems the user did not cause
    │   ├── IndexCorruptError       a file of the index is unreadable or inconsistent
    │   │   └── IndexVersionError   written under another layout or tokenizer: rebuilt
    │   ├── IndexLockedError        another writer holds the lock
    │   ├── FileChangedError        a file changed while it was indexed into a skipped kind
    │   └── TreeFileBoundError      a tree JSON file past its node or depth bound: plain JSON
    ├── LLMError                    the one synthesis call failed; `reason` is a degradation reason
    │   ├── LLMTimeoutError         reason "timeout"
    │   ├── LLMRateLimitError       reason "rate_limited"
    │   ├── LLMTransportError       reason "transport_error"
    │   │   └── LLMServerError      the server answered with an error status (an HTTP 500)
    │   ├── LLMAuthError            reason "auth_error"
    │   └── LLMEmptyError           reason "abstain" (empty or abstaining output)
    ├── NoMatchError                `helix find` found nothing (like grep)
    ├── RunLogBusyError             another process holds the run log past the busy timeout
    ├── RunLogDamagedError          damage found mid-command: the file was moved aside
    ├── UnreadableRunError          a run exists but its row cannot be read back
    ├── UnreadableSessionError      a session's row (or a turn) cannot be read back
    ├── StateDatabaseError          the shared state database (PostgreSQL) cannot be used
    ├── ClusterError                the Ray cluster cannot be reached, or a task of it failed
    └── TreeError                   a commit's tree cannot be read or written (eval history)
        └── TreeBoundError          a commit's tree is past one of the bounds: case skipped

The CLI prints `helix: <message>` on one line and exits with `exit_code`; it never shows a
traceback for a HelixError. `tests/test_errors.py` checks this drawing against the classes.
"""

from __future__ import annotations


class HelixError(Exception):
    exit_code = 1


class UserError(HelixError):
    exit_code = 2


class BadPathError(UserError):
    pass


class ConfigError(UserError):
    pass


class UnknownModelError(UserError):
    pass


class RankerModelError(ConfigError):
    """The learned ranker's model cannot be used: missing, another digest, malformed."""


class NotFoundError(UserError):
    pass


class BaselineExistsError(UserError):
    pass


class ConcurrentTurnError(UserError):
    """Another process wrote a turn of this session meanwhile."""


class LineTooLongError(UserError):
    """One chat line over the question limit: reported, skipped, the chat goes on."""


class RunLogUnwritableError(UserError):
    """The run log's place cannot be written (a read-only or full disk, no permission)."""


class IndexError_(HelixError):
    pass


class IndexCorruptError(IndexError_):
    pass


class IndexVersionError(IndexCorruptError):
    """The index was written under another layout or tokenizer version: rebuilt, not read."""


class IndexLockedError(IndexError_):
    pass


class FileChangedError(IndexError_):
    """A walked file changed while it was being indexed into something the walk would skip."""


class TreeFileBoundError(IndexError_):
    """A repository's tree JSON file holds more nodes, or nests deeper, than the index
    settings allow (`index.max_tree_nodes`, `index.max_tree_depth`): indexed as plain JSON."""


class LLMError(HelixError):
    reason = "transport_error"
    transient = False


class LLMTimeoutError(LLMError):
    reason = "timeout"
    transient = True


class LLMRateLimitError(LLMError):
    reason = "rate_limited"
    transient = True


class LLMTransportError(LLMError):
    reason = "transport_error"
    transient = True


class LLMServerError(LLMTransportError):
    """The model's server was reached and answered with an error status (5xx, or another not
    mapped to a more precise error): the provider's failure, not the network's."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class LLMAuthError(LLMError):
    reason = "auth_error"


class LLMEmptyError(LLMError):
    reason = "abstain"


class NoMatchError(HelixError):
    """`helix find` found nothing (exit 1, like grep)."""


class RunLogBusyError(HelixError):
    """Another process holds the run log longer than the busy timeout (exit 1: try again)."""


class RunLogDamagedError(HelixError):
    """Damage found mid-command: the file was moved aside (exit 1: run the command again)."""


class UnreadableRunError(HelixError):
    """The run exists but its row cannot be read back (exit 1: the data, not the request)."""


class UnreadableSessionError(HelixError):
    """A session's own row (or one turn asked for by number) cannot be read back (exit 1)."""


class StateDatabaseError(HelixError):
    """`HELIX_DATABASE_URL` names a database that cannot be reached, refuses the login, or
    fails a request (exit 1: the place, not the request; its password is never shown)."""


class ClusterError(HelixError):
    """The Ray cluster cannot be reached (or is not installed), or one of its tasks failed
    (exit 1)."""


class TreeError(HelixError):
    """The tree cannot be read or written (git failed, a path is in the way)."""


class TreeBoundError(TreeError):
    """A commit's tree is past one of the bounds (`TreeBounds`): the case is skipped."""

    def __init__(self, bound: str, message: str) -> None:
        super().__init__(message)
        self.bound = bound
