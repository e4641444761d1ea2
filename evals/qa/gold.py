"""Gold for a natural question, derived from its reference answer (pure).

A reference answer (SWE-QA's format: `{"question", "answer"}`) names what answers the question
in prose. Gold is what it names that the repository has at the revision:

- files: a path the answer names (`src/sqlfluff/cli/formatters.py`, `formatters.py`) that is a
  file of the tree, exactly or as the unique file ending in it;
- line spans: a line range stated next to such a path (`lines 62-66 in formatters.py`,
  `formatters.py:62-66`, `(line 639 in commands.py)`), or a fenced code block's info string
  `START:END:path` (```` ```62:66:src/pkg/formatters.py ````, the lines the block quotes);
- symbol spans: a backticked name (`` `format_rules()` ``, `` `OutputStreamFormatter` ``)
  defined in a gold file, its definition's lines as the symbol index has them;
- when the answer names no file: a backticked or code-shaped name (CamelCase, snake_case,
  `call()`) that exactly one file of the tree defines gives that file and that span
  (`defined_name`: many answers name classes and methods, not files).

A question with no gold file is dropped and counted by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from helix.core.schemas import Frozen

SpanSource = Literal["line_range", "symbol", "defined_name"]
_EXTENSIONS = ("py", "pyi", "java", "kt", "scala", "js", "jsx", "ts", "tsx", "md", "rst", "txt",
               "toml", "yaml", "yml", "cfg", "ini", "json", "go", "rs", "c", "h", "cpp", "hpp",
               "rb", "php", "sql", "html", "css", "sh", "xml", "gradle", "properties")
_PATH = re.compile(r"(?<![\w/.\-])((?:[\w.\-]+/)*[\w\-][\w.\-]*\.(?:" + "|".join(_EXTENSIONS)
                   + r"))(?![\w/])")
_RANGE_BEFORE = re.compile(r"\blines?\s+(\d+)(?:\s*(?:-|–|to)\s*(\d+))?\s+(?:in|of)\s+`?$", re.I)
_RANGE_AFTER = re.compile(r"^`?\s*(?:[,(]\s*|\s+)(?:at\s+|on\s+)?lines?\s+(\d+)"
                          r"(?:\s*(?:-|–|to)\s*(\d+))?", re.I)
_COLON_RANGE = re.compile(r"^:L?(\d+)(?:\s*[-–]\s*L?(\d+))?")
_FENCE_INFO = re.compile(r"```(\d+):(\d+):$")  # a fenced block's START:END:path info string
_BACKTICKED = re.compile(r"`([^`\n]{1,120})`")
_CODE_NAME = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
                        r"\b|\b[A-Za-z_]\w*(?=\(\))")
_NAME_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Definition(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...


class GoldSpan(Frozen):
    path: str
    start_line: int
    end_line: int
    source: SpanSource
    symbol: str | None = None


class Gold(Frozen):
    files: tuple[str, ...]
    spans: tuple[GoldSpan, ...]  # line ranges and definitions: what a reader should see

    @property
    def symbols(self) -> tuple[GoldSpan, ...]:
        return tuple(s for s in self.spans if s.source != "line_range")


def _resolver(files: Sequence[str]) -> Callable[[str], str | None]:
    known = set(files)
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)

    def resolve(mention: str) -> str | None:
        mention = mention.removeprefix("./").strip("/")
        if mention in known:
            return mention
        tail = "/" + mention
        candidates = [p for p in by_name.get(mention.rsplit("/", 1)[-1], ())
                      if p.endswith(tail) or p == mention]
        return candidates[0] if len(candidates) == 1 else None

    return resolve


def _range(start: str, end: str | None) -> tuple[int, int] | None:
    first, last = int(start), int(end or start)
    return (first, last) if 0 < first <= last else None


def _line_spans(answer: str, mentions: list[tuple[int, int, str]]) -> list[GoldSpan]:
    spans: list[GoldSpan] = []
    for start, end, path in mentions:
        for match in (_RANGE_BEFORE.search(answer[max(0, start - 40):start]),
                      _RANGE_AFTER.match(answer[end:end + 40]),
                      _COLON_RANGE.match(answer[end:end + 20]),
                      _FENCE_INFO.search(answer[max(0, start - 30):start])):
            if match is not None and (lines := _range(match.group(1), match.group(2))):
                spans.append(GoldSpan(path=path, start_line=lines[0], end_line=lines[1],
                                      source="line_range"))
    return spans


def _names(text: str) -> list[str]:
    """The last name part of a backticked expression: `a.b.c(x)` -> c."""
    head = text.split("(", 1)[0].strip()
    parts = _NAME_PART.findall(head)
    return [parts[-1]] if parts else []


def derive_gold(answer: str, files: Sequence[str],
                find: Callable[[str], Sequence[Definition]]) -> Gold:
    """Gold files and spans named by `answer` among `files`; `find(name)` gives a name's
    definitions in the repository (the symbol index)."""
    resolve = _resolver(files)
    mentions: list[tuple[int, int, str]] = []
    for match in _PATH.finditer(answer):
        path = resolve(match.group(1))
        if path is not None:
            mentions.append((match.start(), match.end(), path))
    gold_files = list(dict.fromkeys(path for _, _, path in mentions))
    spans = _line_spans(answer, mentions)
    backticked = [n for m in _BACKTICKED.finditer(answer) for n in _names(m.group(1))]
    if gold_files:
        for name in dict.fromkeys(backticked):
            for definition in find(name):
                if definition.path in gold_files:
                    spans.append(GoldSpan(path=definition.path,
                                          start_line=definition.start_line,
                                          end_line=definition.end_line, source="symbol",
                                          symbol=name))
    else:
        named = list(dict.fromkeys([*backticked, *_CODE_NAME.findall(answer)]))
        for name in named:
            defined = [d for d in find(name) if d.path in set(files)]
            if len({d.path for d in defined}) == 1:
                first = min(defined, key=lambda d: (d.start_line, d.end_line))
                spans.append(GoldSpan(path=first.path, start_line=first.start_line,
                                      end_line=first.end_line, source="defined_name",
                                      symbol=name))
                gold_files.append(first.path)
        gold_files = list(dict.fromkeys(gold_files))
    unique = {(s.path, s.start_line, s.end_line, s.source): s for s in spans}
    return Gold(files=tuple(gold_files),
                spans=tuple(unique[k] for k in sorted(unique)))
