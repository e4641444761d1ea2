"""A file the walk accepted (`WalkedFile`), and the one way the walker opens files.

The walk keeps no file's text: a `WalkedFile` holds the record of the bytes the walk hashed and
reads its text again when the builder parses it (`read`), from the resolved path inside the
root, with no link followed. An edit since the walk is parsed as it is now and recorded with
its own hash; a file that turned into something the walk skips is a one-line error.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable

from pydantic import PrivateAttr

from helix.core.errors import FileChangedError
from helix.core.hashing import digest
from helix.core.schemas import FileRecord, Frozen
from helix.core.secrets import redact_text
from indexers.formats import trusted

BINARY_SNIFF_BYTES = 8192
# (content hash of the bytes, their text) -> the text with its secrets masked
Masker = Callable[[str, str], str]
# Whatever its name, a non-code file holding a private key block is a secret (in source code
# such a block is a test fixture; synthesis redacts key blocks from anything it sends).
_PRIVATE_KEY_RE = re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")


def read_bytes(path: str, limit: int, follow: bool) -> bytes:
    """Read at most `limit` bytes of a regular file; the one place the walker opens files.

    Raises FileNotFoundError when it vanished, OSError when unreadable, ValueError when it is
    not a regular file (a FIFO or device would block or never end).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        chunks: list[bytes] = []
        remaining = limit
        while remaining > 0:
            block = os.read(fd, min(remaining, 1 << 20))
            if not block:
                break
            chunks.append(block)
            remaining -= len(block)
        return b"".join(chunks)
    finally:
        os.close(fd)


class WalkedFile(Frozen):
    """A file the walk accepted: its record (hash of the bytes the walk saw) and, on demand,
    its text. The text is read from the resolved path inside the root (no link followed)."""

    record: FileRecord
    _target: str = PrivateAttr(default="")
    _limit: int = PrivateAttr(default=0)
    _secrets: bool = PrivateAttr(default=True)

    @classmethod
    def of(cls, record: FileRecord, target: str, limit: int, skip_secrets: bool) -> WalkedFile:
        """Built without validation (`model_construct` costs 20x as much: a large walk makes
        tens of thousands)."""
        walked = trusted(cls, {"record": record})
        object.__setattr__(walked, "__pydantic_private__", {
            "_target": target, "_limit": limit, "_secrets": skip_secrets})
        return walked

    @property
    def target(self) -> str:
        """The resolved path the file is read from."""
        return self._target

    @property
    def limit(self) -> int:
        """The most bytes it may hold (`index.max_file_bytes` of the walk)."""
        return self._limit

    def read(self, masker: Masker | None = None) -> tuple[FileRecord, str]:
        """(record, text) of the file as it is now: the walk's record when the bytes are the
        ones it hashed, else a record of the new bytes (an edit since the walk: what is parsed
        and what the index says it holds stay the same content). Undecodable bytes are
        replaced; secrets are masked by `masker(content hash, text)` (a build's
        `indexers.secret_scan.Scanner.mask`), else by `redact_text`. FileChangedError when it
        became something the walk would skip."""
        rel = self.record.path
        try:
            if os.path.realpath(self._target) != self._target:  # a directory became a link
                raise ValueError("moved")
            raw = read_bytes(self._target, self._limit + 1, follow=False)
        except (OSError, ValueError):
            raise FileChangedError(f"{rel} vanished or became unreadable while it was being "
                                   "indexed; run the command again") from None
        if (len(raw) > self._limit or b"\0" in raw[:BINARY_SNIFF_BYTES]
                or (self._secrets and self.record.kind != "code"
                    and _PRIVATE_KEY_RE.search(raw))):
            raise FileChangedError(f"{rel} changed while it was being indexed (it is now too "
                                   "large, binary or secret); run the command again")
        # Secrets are masked before anything is derived from the text: no chunk, token, symbol,
        # embedding card or stored row holds one, so neither can an answer, a run-log row or
        # an export built from them. The mask keeps newlines: line numbers stay true.
        found = digest(raw)
        decoded = raw.decode("utf-8", errors="replace")
        text = masker(found, decoded) if masker is not None else redact_text(decoded)[0]
        if found == self.record.content_hash:
            return self.record, text
        return self.record.model_copy(update={"content_hash": found, "size": len(raw)}), text

    @property
    def text(self) -> str:
        """The file's text now (see `read`)."""
        return self.read()[1]


