"""One file in, its chunks and symbols out: `parse_file` (pure: no I/O, one parse per file).

Code chunks (languages with a query in `indexers/queries/`):
  * every definition gets a `code_def` chunk (symbol = qualname, node = its def: node), starting
    at its leading doc comments / decorators;
  * a definition with nested definitions that does not fit in one window (`window_lines`) keeps
    only its own text: the head up to its first nested definition, plus any later stretch of its
    own lines between or after nested definitions (same symbol); small ones are kept whole;
  * lines outside every definition (imports, constants, top-level statements) form
    `code_module` windows (`window_lines`, `window_overlap`) on the file node; a stray run of
    one or two comment lines between definitions (a divider) is dropped;
  * anything longer than `max_chunk_lines` is split into windows with the same symbol.
Minified or generated code (a line over MINIFIED_LINE_CHARS) gets text windows and no symbols.
Documentation and other text: see `indexers.chunkers`.
"""

from __future__ import annotations

from helix.core.config import IndexSettings
from helix.core.schemas import Chunk, FileRecord, Frozen, SymbolDef, SymbolRef, node_id_def
from helix.core.schemas import node_id_file as file_node
from indexers.chunkers import (
    doc_chunks,
    has_words,
    looks_minified,
    make_chunk,
    split_lines,
    text_chunks,
    trim,
)
from indexers.chunkers import windows as line_windows
from indexers.symbols import DefSpan, TooManySymbols, extract, supported

# Module-level runs of at most this many comment-only lines are not worth a chunk of their own.
STRAY_COMMENT_LINES = 2
C_COMMENT_PREFIXES = ("//", "/*", "*")
HASH_COMMENT_LANGS = {"python": ("#",), "ruby": ("#",)}


class ParsedFile(Frozen):
    path: str
    content_hash: str
    chunks: tuple[Chunk, ...]  # sorted by (start_line, id)
    defs: tuple[SymbolDef, ...]
    refs: tuple[SymbolRef, ...]


def _own_stretches(
    span: DefSpan, children: list[DefSpan], lines: list[str], whole_limit: int
) -> list[tuple[int, int]]:
    """The line ranges a definition's chunk covers (see the module docstring)."""
    start, end = span.chunk_start, span.end_line
    if not children or end - start + 1 <= whole_limit:
        return [(start, end)]
    out: list[tuple[int, int]] = []
    cursor = start
    for child in children:
        if child.chunk_start > cursor:
            out.append((cursor, child.chunk_start - 1))
        cursor = max(cursor, child.end_line + 1)
    if cursor <= end:
        out.append((cursor, end))
    head, rest = out[:1], out[1:]
    kept = [s for s in (trim(lines, a, b) for a, b in rest) if s and has_words(lines, *s)]
    return [s for s in (trim(lines, a, b) for a, b in head) if s] + kept


def code_chunks(
    path: str, lang: str, lines: list[str], spans: tuple[DefSpan, ...], settings: IndexSettings
) -> list[Chunk]:
    children: dict[str | None, list[DefSpan]] = {}
    for span in spans:
        children.setdefault(span.parent, []).append(span)
    chunks: list[Chunk] = []
    covered = [False] * (len(lines) + 2)
    for span in spans:
        kids = [k for k in children.get(span.qualname, []) if k.start_line >= span.start_line
                and k.end_line <= span.end_line]
        for lo, hi in _own_stretches(span, kids, lines, settings.window_lines):
            for a, b in line_windows(lo, hi, settings.max_chunk_lines, settings.window_overlap):
                chunks.append(make_chunk(
                    path, "code_def", lang, lines, a, b, node_id_def(path, span.qualname),
                    symbol=span.qualname, def_kind=span.kind,
                ))
        for line in range(span.chunk_start, min(span.end_line, len(lines)) + 1):
            covered[line] = True
    chunks.extend(_module_chunks(path, lang, lines, covered, settings))
    return chunks


def _stray_comment(lang: str, lines: list[str], start: int, end: int) -> bool:
    """A short run of nothing but comments between definitions (a divider, a banner)."""
    prefixes = HASH_COMMENT_LANGS.get(lang, C_COMMENT_PREFIXES)
    body = [line.strip() for line in lines[start - 1:end] if line.strip()]
    return len(body) <= STRAY_COMMENT_LINES and all(line.startswith(prefixes) for line in body)


def _module_chunks(
    path: str, lang: str, lines: list[str], covered: list[bool], settings: IndexSettings
) -> list[Chunk]:
    chunks: list[Chunk] = []
    line = 1
    total = len(lines)
    while line <= total:
        if covered[line]:
            line += 1
            continue
        run_start = line
        while line <= total and not covered[line]:
            line += 1
        span = trim(lines, run_start, line - 1)
        if span is None or not has_words(lines, *span) or _stray_comment(lang, lines, *span):
            continue
        for a, b in line_windows(span[0], span[1], settings.window_lines, settings.window_overlap):
            window = trim(lines, a, b)
            if window is not None:
                chunks.append(make_chunk(
                    path, "code_module", lang, lines, window[0], window[1], file_node(path)
                ))
    return chunks


def parse_file(record: FileRecord, text: str, settings: IndexSettings) -> ParsedFile:
    """Chunks, definitions and references of one file. Pure."""
    path, lang = record.path, record.lang
    defs: tuple[SymbolDef, ...] = ()
    refs: tuple[SymbolRef, ...] = ()
    symbols = None
    if (record.kind == "code" and lang is not None and supported(lang)
            and len(text) <= settings.max_parse_bytes and not looks_minified(text)):
        try:
            symbols = extract(path, lang, text.encode("utf-8", errors="replace"),
                              settings.max_file_symbols)
        except TooManySymbols:
            symbols = None  # a generated table: read as text windows
    if symbols is not None and lang is not None:
        defs, refs = symbols.defs, symbols.refs
        chunks = code_chunks(path, lang, split_lines(text), symbols.spans, settings)
    elif record.kind == "doc":
        chunks = doc_chunks(path, lang, text, settings)
    else:
        chunks = text_chunks(path, lang, text, settings)
    unique = {chunk.id: chunk for chunk in chunks}
    ordered = tuple(sorted(unique.values(), key=lambda c: (c.start_line, c.id)))
    return ParsedFile(
        path=path, content_hash=record.content_hash, chunks=ordered, defs=defs, refs=refs
    )
