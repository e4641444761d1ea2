"""The index lookups every surface shares (CLI, MCP, HTTP): search hits, a symbol's
definitions, its callers and its tests, and a span's lines. Pure over an open index (plus the
repository root for `read_span`); each returns plain JSON-ready data, so the surfaces only
render it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import helix.inputs as inputs
from helix.core.errors import BadPathError, NoMatchError, UserError
from helix.core.secrets import redact_text
from indexers.api import IndexReader

SearchChannel = Literal["bm25", "dense", "all"]
MAX_SPAN_LINES = 400  # one read_span answer at most; a longer span is cut and says so


def search_hits(index: IndexReader, query: str, channel: SearchChannel = "all",
                k: int = 10) -> list[dict[str, Any]]:
    """The raw channels' hits, as the controller sees them: chunk, lines, score, rank."""
    if not query.strip():
        raise UserError("empty query (give the words to search for)")
    hits = []
    if channel in ("bm25", "all"):
        hits += index.search_bm25(query, k)
    if channel in ("dense", "all"):
        hits += index.search_dense(query, k)
    rows = []
    for hit in hits:
        chunk = index.chunk(hit.chunk_id)
        rows.append({"channel": hit.channel, "rank": hit.rank, "score": round(hit.score, 4),
                     "chunk_id": hit.chunk_id, "path": chunk.path, "start_line": chunk.start_line,
                     "end_line": chunk.end_line, "kind": chunk.kind,
                     "label": chunk.symbol or " / ".join(chunk.heading_path)})
    return rows


def find_symbol(index: IndexReader, name: str, limit: int = 20) -> dict[str, Any]:
    """A symbol's definitions (exact, else close names marked fuzzy) with reference counts.
    NoMatchError when nothing is close."""
    if not name.strip():
        raise UserError("empty symbol name (give the name of a class, function or method)")
    defs = index.find_definitions(name, limit=limit)
    fuzzy = not defs
    if fuzzy:
        defs = index.find_definitions(name, fuzzy=True, limit=limit)
    if not defs:
        raise NoMatchError(f"no definition matches {inputs.shown(name)}")
    rows = []
    for d in defs:
        refs = index.references_to(d.name)
        rows.append({"name": d.name, "qualname": d.qualname, "kind": d.kind, "path": d.path,
                     "line": d.start_line, "end_line": d.end_line, "scope": d.scope,
                     "references": len(refs),
                     "calls": sum(1 for r in refs if r.kind == "call"),
                     "imports": len(index.imports_of(d.name))})
    return {"query": name, "fuzzy": fuzzy, "definitions": rows, "index_rev": index.index_rev}


def callers_of(index: IndexReader, name: str) -> dict[str, Any]:
    """Every resolved call site of `name`, grouped by calling function (None: module level),
    with the count stated once."""
    if not name.strip():
        raise UserError("empty symbol name")
    sites = sorted((r.path, r.line, r.scope or "") for r in index.references_to(name)
                   if r.kind == "call")
    groups: dict[str, list[dict[str, Any]]] = {}
    for path, line, scope in sites:
        groups.setdefault(f"{path}::{scope}", []).append({"path": path, "line": line})
    return {"symbol": name, "calls": len(sites),
            "callers": [{"caller": key.split("::", 1)[1] or None, "path": key.split("::", 1)[0],
                         "sites": rows} for key, rows in groups.items()]}


def tests_of(index: IndexReader, name: str) -> dict[str, Any]:
    """The tests the graph links to `name`'s definitions (`tests` edges), by path and line."""
    defs = index.find_definitions(name, limit=50)
    if not defs:
        raise NoMatchError(f"no definition matches {inputs.shown(name)}")
    graph = index.graph
    found: set[tuple[str, int, str]] = set()
    for d in defs:
        if d.node_id not in graph:
            continue
        for source, _, key in graph.in_edges(d.node_id, keys=True):
            if key != "tests":
                continue
            chunk = index.chunk_for_node(source)
            if chunk is not None:
                found.add((chunk.path, chunk.start_line, chunk.symbol or ""))
    return {"symbol": name, "tests": [{"path": p, "line": line, "test": s or None}
                                      for p, line, s in sorted(found)]}


def span_text(base: Path, path: str, max_bytes: int) -> tuple[Path, str]:
    """The file `path` inside `base` (resolved: a link out of it is refused) and its text, read
    only when it holds at most `max_bytes` (`index.max_file_bytes`: what the index would read),
    so one request cannot make Helix read and mask a file of gigabytes."""
    shown = inputs.shown(path)
    try:
        target = (base / path).resolve()
        if not target.is_relative_to(base) or not target.is_file():
            raise BadPathError(f"cannot open {shown}: not a file inside {base}")
        size = target.stat().st_size
        if size > max_bytes:
            raise BadPathError(f"cannot open {shown}: {size:,} bytes, more than "
                               f"index.max_file_bytes ({max_bytes:,})")
        with target.open("rb") as handle:  # the file may grow between stat and read
            raw = handle.read(max_bytes + 1)
        if len(raw) > max_bytes:
            raise BadPathError(f"cannot open {shown}: more than index.max_file_bytes "
                               f"({max_bytes:,}) bytes")
    except (OSError, RuntimeError) as exc:  # a name too long, a link loop, no permission
        raise BadPathError(f"cannot open {shown}: "
                           f"{getattr(exc, 'strerror', None) or exc}") from None
    return target, raw.decode("utf-8", errors="replace")


def read_span(root: Path, path: str, start: int = 1, end: int | None = None, *,
              max_bytes: int) -> dict[str, Any]:
    """Lines `start`..`end` of a file inside the repository (secrets masked), at most
    MAX_SPAN_LINES; a path outside the root, a link out of it, a missing file or one larger
    than `max_bytes` is refused."""
    if start < 1 or (end is not None and end < start):
        raise UserError(f"bad line range {start}-{end} (lines count from 1, end >= start)")
    inputs.check_field(path, "path")
    base = root.resolve()
    target, text = span_text(base, path, max_bytes)
    lines = redact_text(text)[0].splitlines()
    last = min(len(lines), end or len(lines))
    shown_end = min(last, start + MAX_SPAN_LINES - 1)
    return {"path": target.relative_to(base).as_posix(), "start_line": start,
            "end_line": shown_end, "truncated": shown_end < last,
            "text": "\n".join(lines[start - 1:shown_end])}
