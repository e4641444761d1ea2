"""One cited span, then and now: is it where it was, moved, renamed, reformatted, changed, or
gone? Pure over the index at HEAD (an `IndexReader`) and the span's text as it was.

Cheap first: a chunk the index still has under the same id (its path, lines and content hash
unchanged: the index is incremental by content hash) is the same span, and nothing is read.
Only a span whose chunk is gone is followed, from the index alone:

    1. the same content elsewhere in its file (lines shifted), or under the same name
       anywhere (a moved file), or among the answer's spans at HEAD
    2. the same definition (by qualname) or section (by heading) in its file
    3. the most similar span (normalized tokens: comments, docstrings and layout left out)
       among its file's spans, the definitions of the same bare name, and the answer's spans
       at HEAD; above `drift.follow_similarity` it is the span moved or renamed

The cited lines are then mapped into the successor by a line alignment and compared as token
streams (the old name read as the new one when the definition was renamed): equal tokens are
a move (or only a reformat); different tokens are a change, reported with the lines' diff.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from helix.core.changes import CodeChange, OldText, SpanDrift
from helix.core.envelope import EvidenceItem
from helix.core.history_settings import DriftSettings
from helix.core.schemas import Chunk
from indexers.api import IndexReader
from indexers.def_shapes import changes, code_tokens, shapes
from indexers.languages import classify

Range = tuple[int, int]  # first and last line, 1-based, inclusive


@dataclass(frozen=True)
class Then:
    """A cited evidence item as it was: its lines (None when only an excerpt is known)."""

    item: EvidenceItem
    cited: tuple[Range, ...]  # the cited line ranges inside it (absolute line numbers)
    lines: tuple[str, ...] | None
    source: OldText


def bare(symbol: str | None) -> str:
    return (symbol or "").rsplit(".", 1)[-1]


def _lang(path: str) -> str | None:
    return classify(path)[1]


def _similarity(a: Sequence[str], b: Sequence[str]) -> float:
    if not a or not b:
        return 0.0
    if not set(a) & set(b):
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def still_there(index: IndexReader, item: EvidenceItem) -> bool:
    """The item's chunk is in the index under the same id (same path, lines and content)."""
    if not item.chunk_id:
        return False
    try:
        index.chunk_heads([item.chunk_id])
    except KeyError:
        return False
    return True


def _same_place(chunk: Chunk, item: EvidenceItem) -> bool:
    if chunk.kind in ("code_def",) and item.symbol:
        return chunk.symbol == item.symbol
    if item.heading is not None:
        return " > ".join(chunk.heading_path) == item.heading
    return False


def _candidates(index: IndexReader, item: EvidenceItem, answer_now: Sequence[str],
                limit: int) -> list[Chunk]:
    """Spans that could be the item now: its file's, the same bare name's, the answer's."""
    out: dict[str, Chunk] = {c.id: c for c in index.chunks_for_path(item.path)}
    name = bare(item.symbol)
    if name:
        for d in index.find_definitions(name, limit=limit):
            chunk = index.chunk_for_node(d.node_id)
            if chunk is not None:
                out.setdefault(chunk.id, chunk)
    try:
        for chunk in index.chunks_by_id(list(answer_now)):
            out.setdefault(chunk.id, chunk)
    except KeyError:
        pass
    return sorted(out.values(), key=lambda c: (c.path, c.start_line, c.id))[:limit]


def successor(index: IndexReader, then: Then, answer_now: Sequence[str],
              settings: DriftSettings) -> tuple[Chunk | None, float | None]:
    """The span the item became (and its token similarity when found by likeness)."""
    item = then.item
    found = _candidates(index, item, answer_now, settings.follow_candidates)
    exact = [c for c in found if c.content_hash == item.content_hash]
    if exact:  # the same text: in its own file first
        return min(exact, key=lambda c: (c.path != item.path, abs(c.start_line -
                                                                  item.start_line))), 1.0
    named = [c for c in found if c.path == item.path and _same_place(c, item)]
    if named:
        return min(named, key=lambda c: abs(c.start_line - item.start_line)), None
    if then.lines is None:
        return None, None
    lang = _lang(item.path)
    old = code_tokens(lang, "\n".join(then.lines))
    family = _item_family(item)
    scored = [(_similarity(old, code_tokens(_lang(c.path), c.text)), c) for c in found
              if _chunk_family(c) == family]
    scored = [(s, c) for s, c in scored if s >= settings.follow_similarity]
    if not scored:
        return None, None
    score, best = max(scored, key=lambda sc: (sc[0], sc[1].path == item.path,
                                             -sc[1].start_line, sc[1].id))
    return best, round(score, 4)


def _chunk_family(chunk: Chunk) -> str:
    return "code" if chunk.kind in ("code_def", "code_module") else "text"


def _item_family(item: EvidenceItem) -> str:
    if item.symbol:
        return "code"
    if item.heading is not None:
        return "text"
    return "code" if classify(item.path)[0] == "code" else "text"


def _mapped(old: Sequence[str], new: Sequence[str], wanted: Iterable[int]) -> list[int]:
    """Where the old lines (0-based) stand in the new text: equal runs line for line, a
    replaced run position for position with its first and last lines on the new run's first
    and last; deleted lines map nowhere. Every old line wanted: the whole new text."""
    wanted = sorted(set(wanted))
    if wanted == list(range(len(old))) and new:
        return list(range(len(new)))
    where: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, list(old), list(new), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            for k in range(i1, i2):
                where[k] = (j2 - 1 if k == i2 - 1 else j1 if k == i1
                            else j1 + min(k - i1, j2 - j1 - 1))
    return sorted({where[i] for i in wanted if i in where})


def _renamed_tokens(tokens: Sequence[str], old: str, new: str) -> list[str]:
    if not old or not new or old == new:
        return list(tokens)
    return [new if t == old else t for t in tokens]


def _diff(old: Sequence[str], new: Sequence[str], first: tuple[int, int],
          labels: tuple[str, str], lang: str | None, limit: int) -> tuple[str, ...]:
    """A unified diff of the cited lines with the files' own line numbers (`first`: the
    first line of each side), its hunks that only change the form (same tokens) left out."""
    out = [f"--- {labels[0]}", f"+++ {labels[1]}"]
    matcher = difflib.SequenceMatcher(None, list(old), list(new), autojunk=False)
    for group in matcher.get_grouped_opcodes(1):
        edits = [op for op in group if op[0] != "equal"]
        gone = [line for _, i1, i2, _, _ in edits for line in old[i1:i2]]
        came = [line for _, _, _, j1, j2 in edits for line in new[j1:j2]]
        if code_tokens(lang, "\n".join(gone)) == code_tokens(lang, "\n".join(came)):
            continue
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{first[0] + i1},{i2 - i1} +{first[1] + j1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [f" {line}" for line in old[a1:a2]]
            else:
                out += [f"-{line}" for line in old[a1:a2]] + [f"+{line}" for line in new[b1:b2]]
    if len(out) == 2:
        return ()
    if len(out) > limit:
        out = [*out[:limit], f"... {len(out) - limit} more diff lines"]
    return tuple(out)


def _code_changes(item: EvidenceItem, then: Sequence[str], now: Chunk) -> tuple[CodeChange,
                                                                                 ...]:
    lang = _lang(now.path)
    if lang is None or now.kind != "code_def" or not item.symbol:
        return ()
    before = shapes(lang, "\n".join(then).encode("utf-8", "replace"))
    after = shapes(lang, now.text.encode("utf-8", "replace"))
    old = next((s for q, s in sorted(before.items()) if bare(q) == bare(item.symbol)), None)
    new = next((s for q, s in sorted(after.items()) if bare(q) == bare(now.symbol)), None)
    if old is None or new is None:
        return ()
    return tuple(changes(old, new))


def compare_span(index: IndexReader, then: Then, answer_now: Sequence[str],
                 settings: DriftSettings) -> SpanDrift:
    """The cited span's drift (see the module docstring)."""
    item = then.item
    start, end = min(s for s, _ in then.cited), max(e for _, e in then.cited)
    base = SpanDrift(path=item.path, start_line=start, end_line=end, symbol=item.symbol,
                     status="same", old_text=then.source)
    if still_there(index, item):
        return base.model_copy(update={"now_path": item.path, "now_start": start,
                                       "now_end": end, "now_symbol": item.symbol,
                                       "now_chunk_id": item.chunk_id})
    now, score = successor(index, then, answer_now, settings)
    old_lines = then.lines
    lang = _lang(item.path)
    if now is None:
        cited_old = _cited(old_lines, item, then.cited) if old_lines is not None else []
        return base.model_copy(update={"status": "vanished", "diff": _diff(
            cited_old, [], (start, 0), (_where(item.path, start, end), "(gone)"), lang,
            settings.max_diff_lines)})
    new_lines = now.text.split("\n")
    found = {"now_path": now.path, "now_symbol": now.symbol, "now_chunk_id": now.id,
             "similarity": score}
    if old_lines is None:  # only an excerpt was kept: the same content, or a change
        if now.content_hash != item.content_hash:
            return base.model_copy(update={"status": "changed", "now_start": now.start_line,
                                           "now_end": now.end_line, **found})
        old_lines = tuple(new_lines)
    offsets = [line - item.start_line for s, e in then.cited for line in range(s, e + 1)
               if 0 <= line - item.start_line < len(old_lines)]
    cited_old = [old_lines[i] for i in sorted(set(offsets))]
    mapped = _mapped(old_lines, new_lines, offsets)
    cited_new = new_lines[mapped[0]:mapped[-1] + 1] if mapped else []
    now_start = now.start_line + mapped[0] if mapped else now.start_line
    now_end = now.start_line + mapped[-1] if mapped else now.end_line
    found.update(now_start=now_start, now_end=now_end)
    old_tokens = _renamed_tokens(code_tokens(lang, "\n".join(cited_old)), bare(item.symbol),
                                 bare(now.symbol))
    if not mapped or old_tokens != list(code_tokens(_lang(now.path), "\n".join(cited_new))):
        labels = (_where(item.path, start, end) + " (then)",
                  _where(now.path, now_start, now_end) + " (now)")
        return base.model_copy(update={
            "status": "changed", "changes": _code_changes(item, old_lines, now),
            "diff": _diff(cited_old, cited_new, (start, now_start), labels, lang,
                          settings.max_diff_lines), **found})
    renamed = bool(item.symbol and now.symbol and bare(item.symbol) != bare(now.symbol))
    status = ("renamed" if renamed else "moved" if now.path != item.path
              else "reformatted" if cited_old != cited_new
              else "shifted" if now_start != start else "same")
    return base.model_copy(update={"status": status, **found})


def _cited(lines: Sequence[str], item: EvidenceItem, cited: Sequence[Range]) -> list[str]:
    keep = sorted({line - item.start_line for s, e in cited for line in range(s, e + 1)
                   if 0 <= line - item.start_line < len(lines)})
    return [lines[i] for i in keep]


def _where(path: str, start: int, end: int) -> str:
    return f"{path}:{start}-{end}"
