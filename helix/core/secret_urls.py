"""A URL whose user part is one key and no password (an error tracker's DSN,
`https://<key>@host/<project>`): the key alone is no credential without where it goes, and the
whole URL is what a client is configured with. A finding that is exactly such a user part
grows over the URL; a URL with `user:password` keeps its host in the clear (the password's
finding, `url_password`, is the password's alone) unless no host is there: the part after `@`
one bare name (an account's: `cloudinary://key:secret@account`; not `localhost`, a host), the
whole URL is masked.

    key_urls(text, found) -> found, each key's finding grown over its URL
"""

from __future__ import annotations

from helix.core.secret_gates import Finding

__all__ = ["key_urls"]

_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
_URL_ENDS = frozenset(" \t\r\n\"'`<>")
_TRAILING = ".,;:)]}"
_MAX_URL = 512


def _scheme_start(text: str, at: int) -> int | None:
    """Where the scheme ending at `at` (its `://` after) starts, None when there is none."""
    start = at
    while start > 0 and at - start < 32 and text[start - 1] in _SCHEME_CHARS:
        start -= 1
    return start if start < at and text[start].isalpha() else None


def _url_end(text: str, at: int) -> int:
    end = at
    while end < len(text) and end - at < _MAX_URL and text[end] not in _URL_ENDS:
        end += 1
    while end > at and text[end - 1] in _TRAILING:
        end -= 1
    return end


def _bare_name(text: str, start: int, end: int) -> bool:
    """The URL's part after `@` is one name: no dot, port or path (an account's, not a host's);
    `localhost`, the loopback's name, is a host's (`postgres://app:X@localhost`: its password
    masked as any URL's, the host in the clear)."""
    return (end > start and all(c.isalnum() or c in "_-" for c in text[start:end])
            and text[start:end].lower() != "localhost")


def key_urls(text: str, found: list[Finding]) -> list[Finding]:
    """The findings, a URL's lone key (no `:` in it, `@` after it, `://` before) grown over
    the URL, and a `user:password` whose URL ends in a bare name (`cloudinary://key:secret@
    account`: the whole URL is the credential, no address in it); the others as they were
    (whether any grew: the caller merges)."""
    out = []
    for start, end, kind in found:
        if text.startswith("@", end) and start >= 4 and text.startswith("://", start - 3):
            scheme = _scheme_start(text, start - 3)
            url_end = _url_end(text, end + 1)
            if scheme is not None and (":" not in text[start:end]
                                       or _bare_name(text, end + 1, url_end)):
                start, end = scheme, max(end, url_end)
        out.append(Finding(start, end, kind))
    return out
