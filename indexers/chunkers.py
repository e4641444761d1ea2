"""Line-level chunking: documentation by heading, plain text by paragraph, anything by window.

Everything here is pure: lines in, chunks out. Lines are 1-based and inclusive; a chunk's text
is exactly its lines joined by "\n". Chunk ids come only from (path, kind, start, end, content
hash), so an unchanged chunk keeps its id across runs and any change of text gives a new one.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from helix.core.config import IndexSettings
from helix.core.hashing import digest, short_id
from helix.core.schemas import Chunk, ChunkKind, DefKind, node_id_file, node_id_section

Section = tuple[int, int, tuple[str, ...]]  # start, end, heading path

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_OR_QUOTE = re.compile(r"^ {0,3}(?:[-+*>]|\d+[.)])(?:\s|$)")
_RST_ADORN = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
# An RST underline may be shorter than its title, but never shorter than this (or the title).
RST_MIN_UNDERLINE = 4
# Text windows longer than this are sliced: one minified line must not become a 1 MB chunk.
MAX_WINDOW_CHARS = 16_000
# A code file whose text is mostly (MINIFIED_SHARE) on lines this long is minified or generated:
# it gets line windows, no tree-sitter.
MINIFIED_LINE_CHARS = 2_000
MINIFIED_SHARE = 0.5


def split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def make_chunk(
    path: str,
    kind: ChunkKind,
    lang: str | None,
    lines: list[str],
    start: int,
    end: int,
    node_id: str,
    heading_path: tuple[str, ...] = (),
    symbol: str | None = None,
    def_kind: DefKind | None = None,
    text: str | None = None,
) -> Chunk:
    """A chunk of lines start..end; `text` only for a slice of over-long lines (see below)."""
    if text is None:
        text = "\n".join(lines[start - 1:end])
    content_hash = digest(text)
    chunk_id = f"{path}:{start}-{end}#{short_id(path, kind, start, end, content_hash)}"
    return Chunk(
        id=chunk_id, path=path, kind=kind, lang=lang, start_line=start, end_line=end, text=text,
        content_hash=content_hash, heading_path=heading_path, symbol=symbol, def_kind=def_kind,
        node_id=node_id,
    )


def windows(start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Cover start..end with windows of `size` lines overlapping by `overlap`."""
    size = max(size, 1)
    step = max(size - max(overlap, 0), 1)
    out: list[tuple[int, int]] = []
    lo = start
    while lo <= end:
        hi = min(lo + size - 1, end)
        out.append((lo, hi))
        if hi >= end:
            break
        lo += step
    return out


def trim(lines: list[str], start: int, end: int) -> tuple[int, int] | None:
    """Drop blank lines at both ends; None when nothing is left."""
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    return (start, end) if start <= end else None


def looks_minified(text: str) -> bool:
    """Most of the text sits on over-long lines (a bundle, not code with one long literal)."""
    if len(text) <= MINIFIED_LINE_CHARS:
        return False
    long_chars = sum(n for n in map(len, text.split("\n")) if n > MINIFIED_LINE_CHARS)
    return long_chars > MINIFIED_SHARE * len(text)


def has_words(lines: list[str], start: int, end: int) -> bool:
    return any(ch.isalnum() for line in lines[start - 1:end] for ch in line)


# ---- Markdown ------------------------------------------------------------------------------

def _normalized(lines: list[str]) -> list[str]:
    """Lines as heading detection sees them: no CR, no byte-order mark."""
    out = [line.rstrip("\r") for line in lines]
    if out:
        out[0] = out[0].removeprefix("\ufeff")
    return out


def _front_matter_end(lines: list[str]) -> int:
    """Index of the closing `---` of YAML front matter, or -1."""
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                return i
    return -1


def markdown_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line, level, title) of ATX and setext headings, skipping fenced code, HTML comments
    and front matter."""
    lines = _normalized(lines)
    out: list[tuple[int, int, str]] = []
    fence: str | None = None
    in_comment = False
    first = _front_matter_end(lines) + 1
    prev_para = False  # previous line is a plain paragraph line (a setext candidate)
    for i in range(first, len(lines)):
        line = lines[i]
        if in_comment or (fence is None and line.lstrip().startswith("<!--")):
            rest = line if in_comment else line[line.find("<!--") + len("<!--"):]
            in_comment = "-->" not in rest
            prev_para = False
            continue
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(
                fence_match.group(1)
            ) >= len(fence) and not line.strip().strip(fence[0]):
                fence = None
            prev_para = False
            continue
        if fence_match:
            fence = fence_match.group(1)
            prev_para = False
            continue
        atx = _ATX.match(line)
        if atx:
            out.append((i + 1, len(atx.group(1)), (atx.group(2) or "").strip()))
            prev_para = False
            continue
        setext = _SETEXT.match(line)
        if setext and prev_para:
            level = 1 if setext.group(1)[0] == "=" else 2
            out.append((i, level, lines[i - 1].strip()))
            prev_para = False
            continue
        stripped = line.strip()
        prev_para = bool(stripped) and not line.startswith(("    ", "\t")) and not (
            _LIST_OR_QUOTE.match(line) or stripped.startswith(("|", "<"))
        )
    return out


# ---- reStructuredText ----------------------------------------------------------------------

def _adornment(line: str) -> str | None:
    match = _RST_ADORN.match(line)
    return match.group(1) if match else None


def rst_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line, level, title): underlined or over+underlined titles, levels by first appearance."""
    lines = _normalized(lines)
    out: list[tuple[int, int, str]] = []
    levels: dict[tuple[str, bool], int] = {}
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        char = _adornment(line)
        prev_blank = i == 0 or not lines[i - 1].strip()
        if char and prev_blank and i + 2 < n:
            title = lines[i + 1].strip()
            under = _adornment(lines[i + 2])
            if title and under == char and not _adornment(lines[i + 1]):
                style = (char, True)
                levels.setdefault(style, len(levels) + 1)
                out.append((i + 1, levels[style], title))
                i += 3
                continue
        title = line.strip()
        if (
            title and prev_blank and not char and not line[0].isspace() and i + 1 < n
        ):
            under = lines[i + 1].rstrip()
            char2 = _adornment(under)
            if char2 and len(under) >= min(len(title), RST_MIN_UNDERLINE):
                style = (char2, False)
                levels.setdefault(style, len(levels) + 1)
                out.append((i + 1, levels[style], title))
                i += 2
                continue
        i += 1
    return out


# ---- sections to chunks --------------------------------------------------------------------

def sections(
    filename: str, lines: list[str], headings: list[tuple[int, int, str]]
) -> list[Section]:
    """Heading-delimited sections with heading paths; text before the first heading too."""
    out: list[Section] = []
    first = headings[0][0] if headings else len(lines) + 1
    span = trim(lines, 1, first - 1)
    if span is not None:
        out.append((span[0], span[1], (filename,)))
    stack: list[tuple[int, str]] = []
    for index, (line, level, title) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        stop = headings[index + 1][0] - 1 if index + 1 < len(headings) else len(lines)
        end = trim(lines, line, stop)
        out.append((line, end[1] if end else line, tuple(title for _, title in stack)))
    return out


def paragraph_sections(filename: str, lines: list[str], max_lines: int) -> list[Section]:
    """Plain text: consecutive paragraphs grouped while the group stays within `max_lines`."""
    paragraphs: list[tuple[int, int]] = []
    start = None
    for i, line in enumerate(lines, start=1):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            paragraphs.append((start, i - 1))
            start = None
    if start is not None:
        paragraphs.append((start, len(lines)))
    out: list[Section] = []
    group: tuple[int, int] | None = None
    for para in paragraphs:
        if group is not None and para[1] - group[0] + 1 <= max_lines:
            group = (group[0], para[1])
            continue
        if group is not None:
            out.append((group[0], group[1], (filename,)))
        group = para
    if group is not None:
        out.append((group[0], group[1], (filename,)))
    return out


def doc_sections(path: str, lang: str | None, lines: list[str], window_lines: int
                 ) -> list[Section]:
    """A document's sections (start, end, heading path): Markdown and RST by heading, plain
    text by paragraph group (what `doc_chunks` chunks, and `helix stale-docs` compares)."""
    filename = PurePosixPath(path).name
    if lang == "markdown":
        return sections(filename, lines, markdown_headings(lines))
    if lang == "rst":
        return sections(filename, lines, rst_headings(lines))
    return paragraph_sections(filename, lines, window_lines)


def doc_chunks(
    path: str, lang: str | None, text: str, settings: IndexSettings
) -> list[Chunk]:
    """Markdown / RST by heading, plain text by paragraph group; long sections windowed."""
    lines = split_lines(text)
    found = doc_sections(path, lang, lines, settings.window_lines)
    chunks: list[Chunk] = []
    for start, end, heading_path in found:
        node_id = node_id_section(path, start)
        for lo, hi in windows(start, end, settings.max_chunk_lines, settings.window_overlap):
            span = trim(lines, lo, hi)
            if span is None:
                continue
            chunks.append(
                make_chunk(path, "doc_section", lang, lines, span[0], span[1], node_id,
                           heading_path=heading_path)
            )
    return chunks


def text_chunks(path: str, lang: str | None, text: str, settings: IndexSettings) -> list[Chunk]:
    """Any other text: overlapping line windows, blank edges trimmed; a window longer than
    MAX_WINDOW_CHARS (minified code, one-line data) is cut into slices of that many characters,
    each with the lines it spans."""
    lines = split_lines(text)
    chunks: list[Chunk] = []
    seen: set[tuple[int, int]] = set()
    node_id = node_id_file(path)
    for lo, hi in windows(1, len(lines), settings.window_lines, settings.window_overlap):
        span = trim(lines, lo, hi)
        if span is None or span in seen:
            continue
        seen.add(span)
        body = "\n".join(lines[span[0] - 1:span[1]])
        if len(body) <= MAX_WINDOW_CHARS:
            chunks.append(make_chunk(path, "text_window", lang, lines, *span, node_id, text=body))
            continue
        for offset in range(0, len(body), MAX_WINDOW_CHARS):
            piece = body[offset:offset + MAX_WINDOW_CHARS]
            first = span[0] + body.count("\n", 0, offset)
            last = first + piece.count("\n")
            chunks.append(
                make_chunk(path, "text_window", lang, lines, first, last, node_id, text=piece)
            )
    return chunks
