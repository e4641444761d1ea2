"""The indexing code's version: a digest of the source that decides what an index holds.

An index is a function of the repository's files, the index settings and this code (walker,
chunkers, symbol queries, tokenizer, graph, embedding cards...). A hand-kept version number is
forgotten when that code changes, and an index built by the old code then looks current: its
chunks, tokens or edges silently differ from what today's Helix would build. So the version is
derived from the code itself: every `indexers/*.py` and `indexers/queries/*.scm`, by name and
content (line endings normalised, so a checkout's newline convention does not count). A build
whose previous generation carries another digest re-parses everything (embeddings stay cached:
they are keyed by text).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from helix.core.hashing import digest

_PACKAGE = Path(__file__).resolve().parent
SOURCE_GLOBS = ("*.py", "queries/*.scm")
# Code outside the package that decides what an index holds: the secret detector masks every
# file's text before it is chunked.
_DETECTOR = _PACKAGE.parent / "helix" / "core"
EXTRA_GLOBS = ("secrets.py", "secret_*.py", "secret_rules.toml", "escapes.py", "english.py")


def extra_files() -> list[str]:
    """The detector's modules and data under helix/core, by name."""
    return sorted({p.name for pattern in EXTRA_GLOBS for p in _DETECTOR.glob(pattern)})


def code_files(package: Path = _PACKAGE) -> list[Path]:
    return sorted({p for pattern in SOURCE_GLOBS for p in package.glob(pattern)},
                  key=lambda p: p.relative_to(package).as_posix())


def code_digest_of(package: Path) -> str:
    parts: list[bytes] = []
    named = [(p.relative_to(package).as_posix(), p) for p in code_files(package)]
    named += [(f"helix/core/{name}", _DETECTOR / name) for name in extra_files()
              if package == _PACKAGE]
    for name, path in named:
        parts.append(name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest(b"".join(parts))


@cache
def index_code_digest() -> str:
    """The digest of this installation's indexing code (computed once per process)."""
    return code_digest_of(_PACKAGE)
