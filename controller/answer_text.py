"""Text pieces of the deterministic answer: citations, quotes, a definition's signature and
docstring, a doc section's first sentences, and which spans may never lead an answer (a
changelog, a license). Pure functions of evidence items (the subject as a sentence says it
is read with the question: `controller.asked`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from controller.text import contains_phrase, lines_matching, token_set
from helix.core.english import DEFINING_VERBS, word_alternation
from helix.core.envelope import EvidenceItem
from helix.core.visible import visible_field
from indexers.languages import classify

MAX_QUOTE_CHARS = 200
MAX_LEAD_CHARS = 320  # a lead quote: a signature and docstring, or two sentences of a doc
MAX_SIGNATURE_LINES = 6  # a signature spread over lines is joined up to this many
MAX_DOC_LINES = 6  # a docstring's first sentence is looked for in this many lines
DOC_NODES = ("sec:", "tree:")  # evidence whose node is a doc section or a concept-tree node
# Files that record the project's history or terms, not how it works: they never lead an
# answer when something else answers (unless the question names them).
HISTORY_STEMS = frozenset({"changelog", "changes", "history", "news", "releases", "release-notes",
                           "release_notes", "releasenotes", "whatsnew", "whats_new", "whats-new"})
HISTORY_DIRS = frozenset({"changelog", "changelogs", "changes", "news", "whatsnew", "releases",
                          "release-notes", "release_notes", "newsfragments", "changelog.d"})
LICENSE_STEMS = frozenset({"license", "licence", "copying", "notice", "copyright", "unlicense"})


def cite(item: EvidenceItem, first: int | None = None, last: int | None = None) -> str:
    """`path:start-end` (one line: `path:line`); a sub-range of the item when given. The path
    with its control characters written out (a file named with a newline stays one line)."""
    start = item.start_line if first is None else first
    end = item.end_line if first is None else (first if last is None else last)
    path = visible_field(item.path)
    return f"{path}:{start}" if start == end else f"{path}:{start}-{end}"


# Markdown line furniture a quote does without: heading marks, quote marks, list bullets and
# numbers, table pipes; and emphasis (`**bold**`, `__bold__`).
_MD_LEAD = re.compile(r"^(?:[#>|]+\s*)*(?:(?:[-*+]|\d+[.)])\s+)?")
_MD_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def quote(text: str, markdown: bool = False, limit: int = MAX_QUOTE_CHARS) -> str:
    """One line, whitespace collapsed and cut; a documentation line loses its Markdown marks
    (a code line keeps every character: `*p = x`, `- 1`)."""
    text = text.strip()
    if markdown:
        text = _MD_EMPHASIS.sub(r"\2", _MD_LEAD.sub("", text))
    text = " ".join(text.split())
    if markdown:
        text = text.rstrip("|").rstrip()  # a table row's closing pipe
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def is_doc(item: EvidenceItem) -> bool:
    """Documentation: a doc section, a tree node, or a prose file (README, .txt, .rst)."""
    return item.node_id.startswith(DOC_NODES) or classify(item.path)[0] == "doc"


def is_code(item: EvidenceItem) -> bool:
    return not is_doc(item)


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name.split(".", 1)[0] if not name.startswith(".") else name


def weak_kind(item: EvidenceItem) -> str | None:
    """"history" (a changelog, NEWS), "license", or None: spans that record what changed or
    the terms of use, not how the code works."""
    parts = item.path.lower().split("/")
    stem = _stem(item.path)
    if stem in HISTORY_STEMS or any(p in HISTORY_DIRS for p in parts[:-1]):
        return "history"
    if stem in LICENSE_STEMS:
        return "license"
    return None


# Lines of a document that are not prose: fenced blocks, shell / REPL prompts, rst literal
# blocks, table rules, HTML comments.
_FENCE = re.compile(r"^\s*(```|~~~)")
_PROMPT = re.compile(r"^\s*(?:\$|>>>|\.\.\.|%|#!)\s")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_HEADING = re.compile(r"^\s*#{1,6}\s|^\s*[=\-~^\"'`*+#]{3,}\s*$")


def prose_lines(item: EvidenceItem) -> list[tuple[int, str]]:
    """(line number, text) of the item's prose: no headings, code fences, commands or rules.
    A code item has no prose."""
    if not is_doc(item):
        return []
    out: list[tuple[int, str]] = []
    fenced = literal = False
    title = (item.heading or "").rsplit(" > ", 1)[-1].strip().lower()
    for offset, line in enumerate(item.text.splitlines()):
        number = item.start_line + offset
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        if literal:  # an rst literal block runs while lines are indented (or blank)
            if not line.strip() or line[:1].isspace():
                continue
            literal = False
        stripped = line.strip()
        if (not stripped or _PROMPT.match(line) or _TABLE_RULE.match(line)
                or _HEADING.match(line) or stripped.startswith(("<!--", ".. "))):
            literal = literal or stripped.startswith(".. code")
            continue
        if title and quote(stripped, markdown=True).lower() == title:
            continue  # the heading again (a tree node's title line)
        if stripped.endswith("::") and not item.path.endswith(".md"):
            literal = True
        out.append((number, line))
    return out


def mentions(item: EvidenceItem, phrases: Sequence[str]) -> bool:
    """The item (text, heading, symbol or path) contains one of the phrases, word for word."""
    toks = token_set(f"{item.text} {item.heading or ''} {item.symbol or ''} {item.path}")
    return any(contains_phrase(toks, p) for p in phrases if p)


def discusses(item: EvidenceItem, phrases: Sequence[str]) -> bool:
    """A doc item whose heading or prose (not a command line or code block) names a phrase."""
    if not is_doc(item):
        return False
    if item.heading and mentions_text(item.heading, phrases):
        return True
    return any(mentions_text(line, phrases) for _, line in prose_lines(item))


def mentions_text(text: str, phrases: Sequence[str]) -> bool:
    toks = token_set(text)
    return any(contains_phrase(toks, p) for p in phrases if p)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")


def _paragraphs(lines: Sequence[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Prose lines grouped by adjacency (a gap in numbers or a list bullet starts a new one)."""
    groups: list[list[tuple[int, str]]] = []
    for number, line in lines:
        bullet = bool(re.match(r"^\s*(?:[-*+|]|\d+[.)])\s", line))  # a table row too
        if groups and groups[-1][-1][0] == number - 1 and not bullet:
            groups[-1].append((number, line))
        else:
            groups.append([(number, line)])
    return groups


_SAYS_IT_IS = rf"(?:{word_alternation(DEFINING_VERBS)}|:|—|–)\s"


def states_text(sentence: str, phrases: Sequence[str]) -> bool:
    """The sentence says what a phrase is: "X is ...", "X means ...", "A X in optics is ..."."""
    for phrase in phrases:
        words = [re.escape(w) for w in re.findall(r"[A-Za-z0-9_.]+", phrase)]
        if words and re.search(r"(?i)\b" + r"[\s_-]+".join(words) + r"\b(?:\s+in\s+\S+"
                               r"(?:\s+\S+){0,2}?)?\s*[)`]?\s*" + _SAYS_IT_IS, sentence):
            return True
    return False


def _plain(line: str) -> str:
    return _MD_STAR.sub(r"\1", quote(line, markdown=True, limit=10_000))


_MD_STAR = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])")


def doc_sentences(item: EvidenceItem, phrases: Sequence[str], sentences: int = 2,
                  limit: int = MAX_LEAD_CHARS, stating: bool = False, together: bool = False
                  ) -> tuple[str, int, int] | None:
    """Up to `sentences` sentences of the item's prose, from the first sentence that states a
    phrase (`stating`: "X is ...") or names them all (`together`), else the first naming one,
    else the first: (text, first line, last line); None when the item has no prose."""
    paragraphs = _paragraphs(prose_lines(item))
    if not paragraphs:
        return None
    split = [_SENTENCE_END.split(" ".join(_plain(line) for _, line in p)) for p in paragraphs]
    tests: list[Callable[[str], bool]] = []
    if stating:
        tests.append(lambda s: states_text(s, phrases))
    if together:
        tests.append(lambda s: all(mentions_text(s, (p,)) for p in phrases))
    tests.append(lambda s: mentions_text(s, phrases))
    at = (0, 0)
    for test in tests:
        found = next(((i, j) for i, parts in enumerate(split) for j, part in enumerate(parts)
                      if test(part)), None)
        if found is not None:
            at = found
            break
    chosen, parts = paragraphs[at[0]], split[at[0]]
    offset = len(" ".join(parts[:at[1]])) + (1 if at[1] else 0)
    kept: list[str] = []
    for part in parts[at[1]:at[1] + sentences]:
        if kept and len(" ".join([*kept, part])) > limit:
            break
        kept.append(part)
    said = " ".join(kept)
    start, last, total = chosen[0][0], chosen[-1][0], 0
    for number, line in chosen:  # the lines the kept sentences start and end on
        before = total
        total += len(_plain(line)) + 1
        if before <= offset < total:
            start = number
        if total >= offset + len(said):
            last = number
            break
    if said.rstrip().endswith(":") and at[0] + 1 < len(paragraphs):
        # a sentence that introduces a list: the list is what it says
        items = _list_items(paragraphs, at[0] + 1)
        if items:
            listed = "; ".join(text for _, text in items)
            said = f"{said} {listed}"
            last = items[-1][0]
    return quote(said, limit=limit), start, last


MAX_LIST_ITEMS = 6
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def _list_items(paragraphs: Sequence[Sequence[tuple[int, str]]], first: int
                ) -> list[tuple[int, str]]:
    """The list items that follow a paragraph (consecutive bullet paragraphs), each as
    (its line, its text without the bullet), at most MAX_LIST_ITEMS."""
    items: list[tuple[int, str]] = []
    for paragraph in paragraphs[first:]:
        number, line = paragraph[0]
        if not _BULLET.match(line) or (items and number > items[-1][0] + 2):
            break
        text = " ".join(_plain(_BULLET.sub("", part) if i == 0 else part)
                        for i, (_, part) in enumerate(paragraph))
        items.append((paragraph[-1][0], text.strip()))
        if len(items) >= MAX_LIST_ITEMS:
            break
    return items


def telling_line(item: EvidenceItem, phrases: Sequence[str]) -> tuple[str, int]:
    """The item's most telling line: in a doc, the first prose line naming a phrase (else the
    first prose line); in code, the first line naming a phrase (else the first non-blank)."""
    if is_doc(item):
        prose = prose_lines(item)
        for number, line in prose:
            if mentions_text(line, phrases):
                return quote(_plain(line)), number
        if prose:
            return quote(_plain(prose[0][1])), prose[0][0]
        if item.heading:
            return quote(item.heading.rsplit(" > ", 1)[-1], markdown=True), item.start_line
    lines = item.text.splitlines()
    for number in lines_matching(item.text, phrases):
        if lines[number].strip().strip("#").strip():
            return code_line(lines[number]), item.start_line + number
    for number, line in enumerate(lines):
        if line.strip() and not line.strip().startswith("#"):
            return code_line(line), item.start_line + number
    return quote(lines[0] if lines else ""), item.start_line


_DOCSTRING_LINE = re.compile(r"^\s*[rbuRBU]?(\"\"\"|\'\'\')(?P<body>.*?)(?:\1)?\s*$")


def code_line(line: str) -> str:
    """A code line as quoted: exactly as written, except a docstring line loses its quotes."""
    match = _DOCSTRING_LINE.match(line)
    if match and match.group("body").strip():
        return quote(match.group("body"))
    return quote(line)


# A definition's keyword, and the kind of thing it defines, across languages (`impl` opens a
# definition but names no kind), and the modifiers that may come before it ("export",
# "pub(crate)", "public static"): one list for the signature finder and the answer writer.
DEF_KINDS = {"class": "a class", "def": "a function", "fn": "a function", "func": "a function",
             "function": "a function", "interface": "an interface", "struct": "a struct",
             "enum": "an enum", "trait": "a trait", "type": "a type", "module": "a module"}
DEF_KEYWORDS = (*DEF_KINDS, "impl")
DEF_MODIFIERS = ("export", "public", "private", "protected", "static", "abstract", "final",
                 "async")
DEF_MODIFIER = rf"(?:{word_alternation(DEF_MODIFIERS)}|pub(?:\([^)]*\))?)"
_DEF_LINE = re.compile(rf"(?:{DEF_MODIFIER}\s+)*(?:{word_alternation(DEF_KEYWORDS)})\b")
_SIGNATURE_END = re.compile(r"(?::|\{|;|=>|\bdo)\s*(?:#.*)?$")
_COMMENT = re.compile(r"^\s*(?://+|/\*+|\*+/?|#(?!\[))\s?")


def signature_and_doc(item: EvidenceItem) -> tuple[str, str]:
    """A code definition's signature (decorators skipped, continuation lines joined) and the
    first line of its docstring or leading doc comment ("" when it has none)."""
    lines = [ln.strip() for ln in item.text.splitlines() if ln.strip()]
    if not lines:
        return "", ""
    # decorators (`@...`, Rust `#[...]`, and their continuation lines) come before the
    # signature: the signature is the first line that opens a definition, else the first
    # line that is neither a decorator (nor inside one's open brackets) nor a comment; a
    # window of a long decorator stack without its definition line shows the first decorator
    decorated = _decorator_lines(lines)
    at = next((i for i, ln in enumerate(lines) if _DEF_LINE.match(ln)),
              next((i for i, ln in enumerate(lines)
                    if i not in decorated and not _COMMENT.match(ln)), 0))
    end = at
    while (end < len(lines) - 1 and end - at < MAX_SIGNATURE_LINES - 1
           and not _SIGNATURE_END.search(lines[end]) and _DEF_LINE.match(lines[at])):
        end += 1
    signature = re.sub(r"([(\[])\s+", r"\1", " ".join(lines[at:end + 1]))
    signature = re.sub(r"\s+([)\]])", r"\1", signature)
    doc = ""
    body = lines[end + 1:end + 1 + MAX_DOC_LINES]
    if body and body[0].lstrip("rbuRBU").startswith(('"""', "'''", '"', "'")):
        doc = _first_sentence(body)
    else:  # a doc comment above the definition (`///`, `/** */`, `#`)
        comments = [_COMMENT.sub("", ln).strip() for ln in lines[:at] if _COMMENT.match(ln)]
        doc = next((c for c in comments if c), "")
    return quote(signature.rstrip(":{ ").rstrip()), quote(doc)


def _decorator_lines(lines: Sequence[str]) -> set[int]:
    """The lines that belong to a decorator: one that starts with `@` or `#[`, and every line
    after it while its brackets are open (`@click.option("--x",\n help="...")`)."""
    inside: set[int] = set()
    depth = 0
    for number, line in enumerate(lines):
        if depth <= 0 and not line.startswith(("@", "#[")):
            depth = 0
            continue
        inside.add(number)
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
    return inside


_QUOTES = ('"""', "'''")


def _first_sentence(body: Sequence[str]) -> str:
    """The first sentence of the docstring that opens `body` (stripped lines): it may wrap
    over lines, and ends at a full stop, a blank line or the closing quotes."""
    parts: list[str] = []
    for number, line in enumerate(body):
        text = line.lstrip("rbuRBU") if number == 0 else line
        opened = number == 0 and text.startswith(_QUOTES)
        closes = (text.endswith(_QUOTES) and (number > 0 or len(text) > 3 or not opened)) or (
            number == 0 and not opened)  # a one-quote string is one line
        text = text.strip("\"' ")
        if text:
            parts.append(text)
        elif number > 0:
            break  # a blank line ends the summary
        joined = " ".join(parts)
        if closes or (joined.endswith((".", "!", "?")) and parts):
            break
    joined = " ".join(parts)
    return _SENTENCE_END.split(joined, maxsplit=1)[0] if joined else ""


def capitalized(text: str) -> str:
    return text if text.startswith("`") else text[:1].upper() + text[1:]


def module_doc(item: EvidenceItem) -> str:
    """The first sentence of a code span's leading docstring ("" when it has none)."""
    match = re.match(r'\s*[rbuRBU]?("""|\'\'\')(.*?)(?:\1|$)', item.text, re.S)
    if not match:
        return ""
    text = " ".join(match.group(2).split())
    return _SENTENCE_END.split(text, maxsplit=1)[0] if text else ""


# One-line string literals ("...", '...'): a list of example questions in a script names every
# subject without being code that handles it. Triple-quoted docstrings are kept.
_SHORT_LITERAL = re.compile(r"(?<![\"'\\])(\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')(?![\"'])")


def code_mentions(item: EvidenceItem, phrases: Sequence[str]) -> bool:
    """A code span names a phrase outside its one-line string literals (in its code, its
    docstrings or comments, its symbol or its path)."""
    text = _SHORT_LITERAL.sub(" ", item.text)
    toks = token_set(f"{text} {item.symbol or ''} {item.path}")
    return any(contains_phrase(toks, p) for p in phrases if p)
