"""One exception hierarchy.

    HelixError                      base; `exit_code` is what the CLI exits with
    ├── UserError (2)               the user asked for something impossible
    │   ├── BadPathError            missing path / not a directory / outside the root
    │   ├── ConfigError             bad config file, setting or flag value
    │   ├── UnknownModelError       a model string litellm cannot route
    │   └── NotFoundError           unknown turn, session, baseline, symbol ...
    ├── IndexError_ (1)             index problems the user did not cause
    │   ├── IndexCorruptError       a file of the index is unreadable or inconsistent
    │   └── IndexLockedError        another writer holds the lock
    └── LLMError (1)                the one synthesis call failed; `reason` is a degradation reason
        ├── LLMTimeoutError         reason "timeout"
        ├── LLMRateLimitError       reason "rate_limited"
        ├── LLMTransportError       reason "transport_error"
        ├── LLMAuthError            reason "auth_error"
        └── LLMEmptyError           reason "abstain" (empty or abstaining output)

The CLI prints `helix: <message>` on one line and exits with `exit_code`; it never shows a
traceback for a HelixError.
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


class NotFoundError(UserError):
    pass


class IndexError_(HelixError):
    pass


class IndexCorruptError(IndexError_):
    pass


class IndexVersionError(IndexCorruptError):
    """The index was written under another layout or tokenizer version: rebuilt, not read."""


class IndexLockedError(IndexError_):
    pass


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


class LLMAuthError(LLMError):
    reason = "auth_error"


class LLMEmptyError(LLMError):
    reason = "abstain"
