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
# file's text before it is chunked (its modules and data files: `secret*` and the escapes it
# reads through; a detector module named otherwise must be added here), and the word lists.
_DETECTOR = _PACKAGE.parent / "helix" / "core"
DETECTOR_GLOBS = ("secret*", "escapes.py")
EXTRA_FILES = ("english.py",)
# Libraries whose code the detector runs: their versions are part of its digest.
DETECTOR_DISTRIBUTIONS = ("detect-secrets", "google-re2")


def code_files(package: Path = _PACKAGE) -> list[Path]:
    return sorted({p for pattern in SOURCE_GLOBS for p in package.glob(pattern)},
                  key=lambda p: p.relative_to(package).as_posix())


def detector_files(core: Path = _DETECTOR) -> list[Path]:
    """The secret detector's files (modules and data) under `helix/core`, sorted."""
    return sorted({p for pattern in DETECTOR_GLOBS for p in core.rglob(pattern)
                   if p.is_file() and "__pycache__" not in p.parts},
                  key=lambda p: p.relative_to(core).as_posix())


def _files_digest(named: list[tuple[str, Path]], extra: bytes = b"") -> str:
    parts: list[bytes] = [extra]
    for name, path in named:
        parts.append(name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest(b"".join(parts))


def code_digest_of(package: Path) -> str:
    named = [(p.relative_to(package).as_posix(), p) for p in code_files(package)]
    if package == _PACKAGE:
        extra = [*detector_files(), *(_DETECTOR / name for name in EXTRA_FILES)]
        named += [(f"helix/core/{p.relative_to(_DETECTOR).as_posix()}", p) for p in extra]
    return _files_digest(named)


def detector_digest_of(core: Path) -> str:
    """The digest of the secret detector in `core` (its files) and of the libraries it runs
    (their versions)."""
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for name in DETECTOR_DISTRIBUTIONS:
        try:
            versions.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            versions.append(f"{name} absent")
    named = [(p.relative_to(core).as_posix(), p) for p in detector_files(core)]
    return _files_digest(named, "\n".join(versions).encode())


@cache
def detector_digest() -> str:
    """This installation's detector digest: what a cached scan of a file depends on besides
    the file's bytes (`indexers.scan_cache`); computed once per process."""
    return detector_digest_of(_DETECTOR)


@cache
def index_code_digest() -> str:
    """The digest of this installation's indexing code (computed once per process)."""
    return code_digest_of(_PACKAGE)
