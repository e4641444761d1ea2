"""A long pasted report cut to the text retrieval reads, keeping what locates the problem.

A user pastes an issue with its logs and tracebacks (up to `helix.inputs.MAX_QUESTION_CHARS`);
searching with all of it drowns the few lines that say where the problem is, and costs time
that grows with its length. `cut_report` keeps, in this order and within `limit` characters:
the title (the first line), every traceback frame and error line, the first paragraphs of
prose, the code blocks (each cut to CODE_BLOCK_LINES lines), then the identifiers of the rest
(dotted, snake_case and CamelCase names, once each). Pure.
"""

from __future__ import annotations

import re

from controller.issue_text import ERROR_LINE, stack_frames
from helix.core.envelope import QuestionCut

RETRIEVAL_CHARS = 20_000  # what the controller searches with, at most (5,000 tokens)
CODE_BLOCK_LINES = 40
MAX_IDENTIFIERS = 300
_FENCE = re.compile(r"^\s*(```|~~~)")
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*\b|"
                         r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")


def _code_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line indexes of each fenced block, fences included."""
    blocks, start = [], None
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            if start is None:
                start = number
            else:
                blocks.append((start, number))
                start = None
    return blocks


def cut_report(text: str, limit: int) -> tuple[str, QuestionCut | None]:
    """`text` itself when it fits in `limit` characters; else the kept parts (in the paste's
    order) and what was kept."""
    if len(text) <= limit:
        return text, None
    lines = text.splitlines()
    keep: set[int] = {0}
    kept: list[str] = ["title"]
    frame_lines = {text.count("\n", 0, m.start()) for m in stack_frames(text)}
    errors = {n for n, line in enumerate(lines) if ERROR_LINE.match(line.strip())}
    if frame_lines:
        # the source line printed under each Python frame says what the frame was doing
        keep |= frame_lines | {n + 1 for n in frame_lines if n + 1 < len(lines)}
        kept.append("traceback frames")
    if errors:
        keep |= errors
        kept.append("error lines")
    budget = limit // 2  # the first paragraphs: up to half of the room
    used = 0
    for number, line in enumerate(lines[1:], start=1):
        if used + len(line) > budget:
            break
        keep.add(number)
        used += len(line) + 1
    kept.append("first paragraphs")
    blocks = _code_blocks(lines)
    for first, last in blocks:
        keep |= set(range(first, min(last, first + CODE_BLOCK_LINES) + 1))
        keep.add(last)
    if blocks:
        kept.append("code blocks")
    out = [lines[n] for n in sorted(keep)]
    body = "\n".join(out)[:limit]
    rest = "\n".join(lines[n] for n in range(len(lines)) if n not in keep)
    names = list(dict.fromkeys(m.group(0) for m in _IDENTIFIER.finditer(rest)))
    names = [n for n in names if n not in body][:MAX_IDENTIFIERS]
    room = limit - len(body) - 1
    if names and room > 20:
        listed = " ".join(names)[:room].rsplit(" ", 1)[0]
        body = f"{body}\n{listed}"
        kept.append("identifiers")
    cut_lines = sum(1 for n in range(len(lines)) if n not in keep)
    return body, QuestionCut(chars=len(text), kept_chars=len(body), kept=tuple(kept),
                             cut_lines=cut_lines)
