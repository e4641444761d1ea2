"""Definitions of one file and the ones a diff hunk touches (pure).

Definitions come from Helix's own extractor (`indexers.symbols.extract`, the indexer's
tree-sitter queries), on the text exactly as the indexer decodes it, so the qualified names
and line spans are the ones a Helix index of the same revision holds. A definition's extent for
matching runs from its leading doc comments and decorators (`chunk_start`) to its last line.

A hunk touches, for each old-side line it removes or rewrites, the innermost definition whose
extent holds that line; a pure insertion (no old-side line) touches the innermost definition
holding both lines around it when that definition is a function or a method (an insertion
into a class or a struct is a new member, not a change to an existing definition). Lines
outside every definition (imports, module constants) touch nothing. Definitions inside a test
module (`mod tests` in Rust) are tests, never targets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from helix.core.config import IndexSettings
from helix.core.schemas import Frozen
from indexers.chunkers import looks_minified
from indexers.languages import classify
from indexers.symbols import TooManySymbols, extract, supported

INSERTION_KINDS = frozenset({"function", "method"})
TEST_MODULES = frozenset({"test", "tests"})


class DefSite(Frozen):
    qualname: str
    kind: str
    start: int  # first line of the definition (decorators included), 1-based
    end: int  # last line, inclusive
    extent_start: int  # leading doc comments / attributes included
    ordinal: int  # 0 for the first definition of this qualname in the file, 1 for the next...
    in_test: bool  # inside a test module

    @property
    def key(self) -> tuple[str, int]:
        return (self.qualname, self.ordinal)

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


def language_of(path: str) -> str | None:
    kind, lang = classify(path)
    return lang if kind == "code" and supported(lang) else None


def file_definitions(path: str, data: bytes, settings: IndexSettings) -> tuple[DefSite, ...] | None:
    """The file's definitions, sorted by (start, -end, qualname); None when Helix would not
    parse it (no query for its language, too large, minified, a generated symbol table)."""
    lang = language_of(path)
    if lang is None or len(data) > settings.max_parse_bytes:
        return None
    text = data.decode("utf-8", errors="replace")
    if looks_minified(text):
        return None
    try:
        symbols = extract(path, lang, text.encode("utf-8", errors="replace"),
                          settings.max_file_symbols)
    except TooManySymbols:
        return None
    kinds: dict[str, tuple[str, str | None]] = {s.qualname: (s.kind, s.parent)
                                                for s in symbols.spans}
    seen: dict[str, int] = {}
    out: list[DefSite] = []
    for span in symbols.spans:
        ordinal = seen.get(span.qualname, 0)
        seen[span.qualname] = ordinal + 1
        out.append(DefSite(qualname=span.qualname, kind=span.kind, start=span.start_line,
                           end=span.end_line, extent_start=span.chunk_start, ordinal=ordinal,
                           in_test=_in_test_module(span.qualname, span.kind, span.parent, kinds)))
    return tuple(out)


def _in_test_module(qualname: str, kind: str, parent: str | None,
                    kinds: dict[str, tuple[str, str | None]]) -> bool:
    name, current = qualname, (kind, parent)
    for _ in range(64):  # nesting depth bound
        if current[0] == "module" and name.rsplit(".", 1)[-1] in TEST_MODULES:
            return True
        if current[1] is None or current[1] not in kinds:
            return False
        name, current = current[1], kinds[current[1]]
    return False


def innermost(defs: Sequence[DefSite], first: int, last: int) -> DefSite | None:
    """The smallest definition whose extent holds lines first..last."""
    best: DefSite | None = None
    for site in defs:
        if site.extent_start <= first and site.end >= last and (
                best is None or (site.end - site.extent_start) < (best.end - best.extent_start)):
            best = site
    return best


def touched(defs: Sequence[DefSite], hunks: Iterable[tuple[int, int]]) -> list[DefSite]:
    """The definitions (old side) touched by hunks given as (old_start, old_count), in file
    order, each once (rules in the module docstring)."""
    hit: dict[tuple[str, int], DefSite] = {}
    for start, count in hunks:
        if count == 0:
            site = innermost(defs, start, start + 1) if start > 0 else None
            if site is not None and site.kind in INSERTION_KINDS:
                hit[site.key] = site
            continue
        for line in range(start, start + count):
            site = innermost(defs, line, line)
            if site is not None:
                hit[site.key] = site
    return sorted(hit.values(), key=lambda s: (s.start, -s.end, s.qualname, s.ordinal))
