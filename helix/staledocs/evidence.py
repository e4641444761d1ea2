"""What a stale section's own text says that a code change made untrue or incomplete.

`relevance` keeps the changes a section would have to follow; an alarm is worth a reader's
time only when the section's text states something one of them contradicts. Each piece of
evidence is a line of the section:

    removed-definition  it names a definition a later commit removed, as code (in a code
                        block, inline, called or qualified; a plain word of prose is the
                        thing's English name), as the project's: the
                        name qualified by the project's module or class, or in a section that
                        names some other definition the project still has (a bare
                        `DjangoFilterBackend` in a note on another package is that package's)
    removed-parameter   a signature of the definition it documents (`.. method::
                        add_field(name, value, content_transfer_encoding=None)`), a
                        `:param x:` field under it, a call of it in an example
                        (`Client(proxies=...)`), or a prose line naming both, holds a
                        parameter the change removed or renamed
    old-default         a line naming the parameter shows the old default value
    unraised-error      it names an error the definition no longer raises
    removed-member      it names a removed method or field as the definition's: `.name`,
                        `Class.name`, or `name()` / `name` as inline code
    missing-parameter   it lists the definition's parameters (a signature or a list) and the
                        parameter the change added is not among them
    removed-base        a prose line names the definition and a base or decorator it lost (an
                        example's own `class Input(Widget)` restates no fact)
    asked-for           a body or annotation change, counted only when the settings ask
                        (`stale_docs.body_changes`, `annotation_changes`)

A code comment states nothing (`# logging -> auth -> request` is no `auth` member), nor does
a path in a command line. An alarm without evidence is only "the code changed after the
doc": it is listed with the lower severity `changed` and is not a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from helix.core.changes import CodeChange, Evidence, EvidenceKind, StaleDefinition
from helix.core.english import word_alternation
from helix.staledocs.relevance import (
    _INLINE,
    _STRING,
    CONSTRUCTORS,
    LISTS_AT_LEAST,
    ROOT_ERRORS,
    _no_longer,
    _unquoted,
    block_lines,
)

QUOTE_CHARS = 160  # of an evidence line kept in the report
SCAN_CHARS = 4000  # of a signature's argument list read at most
_COMMENT = re.compile(r"(?:^|\s)(?:#|//).*$")
# RST fields naming a parameter, and directives documenting a definition
PARAM_FIELDS = ("param", "parameter", "arg", "argument", "key", "keyword", "kwarg")
DIRECTIVES = ("class", "method", "function", "classmethod", "staticmethod", "coroutinemethod",
              "coroutinefunction", "decorator", "attribute", "data", "exception", "module")
# the keywords that open a definition an example writes of its own
OWN_KEYWORDS = ("class", "def", "function", "func", "interface", "const", "let", "var")
_PARAM_FIELD = re.compile(rf"^\s*:(?:{word_alternation(PARAM_FIELDS)})\s+"
                          r"(?:[^:]*\s)?\**([A-Za-z_][A-Za-z0-9_]*)\s*:")
_DIRECTIVE = re.compile(rf"^\s*\.\.\s+(?:py:|js:)?(?:{word_alternation(DIRECTIVES)})::\s*"
                        r"([A-Za-z_][\w.]*)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECORATOR = re.compile(r"@\s*((?:[A-Za-z_]\w*\s*\.\s*)*[A-Za-z_]\w*)")
_BASES = re.compile(r"\bclass\s+[A-Za-z_]\w*\s*(?:<[^>]*>\s*)?\(([^()]*)\)")
_EXTENDS = re.compile(r"\b(?:extends|implements)\s+([A-Za-z_][\w.]*)")
_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?$")


@dataclass(frozen=True)
class Line:
    number: int  # in the document
    text: str  # a code line without its comment
    code: bool  # in a code block or a doctest


def lines_of(text: str, first: int) -> list[Line]:
    """The section's lines, each marked code or prose (fenced and RST literal blocks,
    doctests), a code line without its comment."""
    return [Line(first + offset, _COMMENT.sub("", raw) if kind == "code" else raw, kind == "code")
            for offset, kind, raw in block_lines(text)]


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")


def _quote(line: Line) -> str:
    text = " ".join(line.text.split())
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS - 1] + "…"


def _found(kind: EvidenceKind, name: str, line: Line) -> Evidence:
    return Evidence(kind=kind, name=name, line=line.number, quote=_quote(line))


def _inline(line: Line) -> list[str]:
    """The inline code spans of a prose line (RST roles' targets too)."""
    return [] if line.code else [s.strip() for s in _INLINE.findall(line.text)]


def callee(symbol: str) -> str:
    """The name a call or a signature of the definition is written with (a constructor:
    its class's)."""
    parts = symbol.split(".")
    return parts[-2] if len(parts) > 1 and parts[-1] in CONSTRUCTORS else parts[-1]


def _split_args(text: str) -> Iterator[str]:
    depth, part = 0, list[str]()
    for char in text:
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        if char == "," and depth == 0:
            yield "".join(part)
            part = []
        else:
            part.append(char)
    yield "".join(part)


def _arg_names(args: str) -> set[str]:
    """The parameter (or keyword) names of an argument list: `a`, `b=1`, `*, c: int = 2`,
    `[params]` (an optional one written in brackets)."""
    out = set()
    for part in _split_args(_STRING.sub("''", args)):
        bare = part.strip().lstrip("*[").rstrip("]").strip()
        head = re.split(r"[=:]", bare, maxsplit=1)[0].strip()
        if head.isidentifier():
            out.add(head)
    return out


def signatures(lines: Sequence[Line], name: str) -> list[tuple[Line, set[str]]]:
    """Each call or signature of `name` the section writes (`name(a, b=1)`, across lines
    an RST signature continues with `\\`), with the names in its argument list."""
    out = []
    pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}\s*\(")
    joined = "\n".join(line.text.rstrip("\\") for line in lines)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line.text.rstrip("\\")) + 1)
    for match in pattern.finditer(joined):
        depth, end = 1, match.end()
        limit = min(len(joined), end + SCAN_CHARS)
        while end < limit and depth:
            depth += {"(": 1, ")": -1}.get(joined[end], 0)
            end += 1
        if depth:
            continue
        at = max(i for i, s in enumerate(starts) if s <= match.start())
        out.append((lines[at], _arg_names(joined[match.end():end - 1])))
    return out


def _param_fields(lines: Sequence[Line], name: str) -> Iterator[tuple[Line, str]]:
    """`:param x:` fields (RST) under a directive documenting `name`."""
    current = ""
    for line in lines:
        directive = _DIRECTIVE.match(line.text)
        if directive:
            current = directive.group(1).rsplit(".", 1)[-1]
            continue
        field = _PARAM_FIELD.match(line.text)
        if field and current == name:
            yield line, field.group(1)


def removed_parameter(lines: Sequence[Line], symbol: str, param: str) -> Evidence | None:
    """The section documents `param` of the definition: a signature or call of it holding
    the name, a `:param:` field under its directive, or (when no directive documents its
    signature) a prose line naming the definition and the parameter as code of its own
    (`` `proxies` ``, `proxies=`; not `Application.router`, an attribute)."""
    name = callee(symbol)
    bare = param.lstrip("*")
    for line, names in signatures(lines, name):
        if bare in names:
            return _found("removed-parameter", bare, line)
    for line, field in _param_fields(lines, name):
        if field == bare:
            return _found("removed-parameter", bare, line)
    if any(_DIRECTIVE.match(line.text) and word_in(line.text, name) for line in lines):
        return None  # its signature is documented, without the parameter
    for line in lines:
        coded = any(re.fullmatch(rf"\**{re.escape(bare)}\s*(?:=.*)?", span)
                    for span in _inline(line)) or re.search(
            rf"(?<![A-Za-z0-9_.]){re.escape(bare)}=(?!=)", line.text)
        if not line.code and coded and word_in(line.text, name):
            return _found("removed-parameter", bare, line)
    return None


def word_in(text: str, name: str) -> bool:
    return _word(name).search(text) is not None


def missing_parameter(lines: Sequence[Line], text: str, symbol: str, added: str,
                      params_then: Sequence[str]) -> Evidence | None:
    """A parameter the change added that the section's list of the definition's
    parameters lacks: a signature naming two or more of them, else its prose naming two or
    more as code (a list, one a line)."""
    if _word(added).search(text):
        return None  # the section mentions it already
    then = {p.lstrip("*") for p in params_then}
    listed = [(line, names & then) for name in {callee(symbol), *CONSTRUCTORS}
              for line, names in signatures(lines, name)]
    best = max(listed, key=lambda pair: (len(pair[1]), -pair[0].number), default=None)
    if best is not None and len(best[1]) >= LISTS_AT_LEAST:
        return _found("missing-parameter", added, best[0])
    seen: set[str] = set()
    first: Line | None = None
    for line in lines:  # a list of them, one a line: `queryset` *required*, ...
        spans = {w for span in _inline(line) for w in _IDENT.findall(span)} & then
        if spans - seen and first is None:
            first = line
        seen |= spans
    if first is not None and len(seen) >= LISTS_AT_LEAST:
        return _found("missing-parameter", added, first)
    return None


def _value_shown(line: str, value: str) -> bool:
    shown = {_unquoted(v) for v in re.findall(r"[^\s`,;:()\[\]{}|=]+", line)}
    want = _unquoted(value)
    if want in shown:
        return True
    if _NUMBER.match(want):
        return any(_NUMBER.match(v) and float(v) == float(want) for v in shown)
    return False


def old_default(lines: Sequence[Line], symbol: str, change: CodeChange) -> Evidence | None:
    """A line naming the parameter that shows its old default: a signature of the definition
    (`timeout=5`), or prose (`` `timeout` (default 5) ``); an argument passed in an example
    passes its value whatever the default."""
    name, *old = change.names
    if not old:
        return None
    for line, _names in signatures(lines, callee(symbol)):
        found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}\s*(?::[^=,)]*)?=\s*([^,)\s]+)",
                          line.text)
        if found and _value_shown(found.group(1), old[0]) and not line.code:
            return _found("old-default", name, line)
    word = _word(name)
    for line in lines:
        if line.code or not word.search(line.text):
            continue
        if re.search(rf"(?<![A-Za-z0-9_.]){re.escape(name)}\s*=(?!=)", line.text) and \
                not _DIRECTIVE.match(line.text):
            continue  # passed, not stated
        if _value_shown(line.text, old[0]):
            return _found("old-default", name, line)
    return None


def unraised_error(lines: Sequence[Line], change: CodeChange) -> Evidence | None:
    coded = "now raises " in change.detail
    for error in _no_longer(change):
        if coded and error.rsplit(".", 1)[-1] in ROOT_ERRORS:
            continue
        word = _word(error.rsplit(".", 1)[-1])
        for line in lines:
            if word.search(line.text):
                return _found("unraised-error", error, line)
    return None


def removed_member(lines: Sequence[Line], symbol: str, member: str) -> Evidence | None:
    """`.member` in code or prose, or inline code that is the member (`member()`,
    `Class.member`)."""
    attribute = re.compile(rf"\.{re.escape(member)}(?![A-Za-z0-9_])")
    for line in lines:
        spans = _inline(line)
        if (attribute.search(line.text) and (line.code or spans)) or any(
                _IDENT.findall(span)[-1:] == [member] for span in spans if _IDENT.findall(span)):
            return _found("removed-member", member, line)
    return None


def lost_bases(signature: str) -> set[str]:
    """The decorators (last names) and bases a header names (not a keyword of its bases:
    `can_focus=True`)."""
    out = {d.split(".")[-1].strip() for d in _DECORATOR.findall(signature)}
    for bases in _BASES.findall(signature):
        for part in _split_args(bases):
            if "=" not in part:
                out.update(_IDENT.findall(part)[-1:])
    out.update(b.rsplit(".", 1)[-1] for b in _EXTENDS.findall(signature))
    return out


def removed_base(lines: Sequence[Line], symbol: str, change: CodeChange) -> Evidence | None:
    was = change.detail.split(" -> ", 1)[0]
    roles = lost_bases(was)
    last = symbol.rsplit(".", 1)[-1]
    name = _word(last)
    own = _own(last)
    for gone in (n for n in change.names if n in roles):
        word = _word(gone)
        for line in lines:
            if line.code or own.search(line.text):
                continue
            if word.search(line.text) and name.search(line.text):
                return _found("removed-base", gone, line)
    return None


def asked_for(lines: Sequence[Line], change: CodeChange) -> Evidence:
    """A change of a kind the settings ask to be told of (`stale_docs.body_changes`,
    `annotation_changes`): the line naming what it is about, else the section's first."""
    names = [n for n in change.names if n.isidentifier()]
    line = next((line for line in lines for n in names if _word(n).search(line.text)),
                lines[0])
    return _found("asked-for", change.kind, line)


def _own(name: str) -> re.Pattern[str]:
    """An example's own definition of `name` (`class Input(Widget):`, `def create(...)`)."""
    return re.compile(rf"\b(?:{word_alternation(OWN_KEYWORDS)})\s+{re.escape(name)}\b")


def removed_definition(lines: Sequence[Line], name: str, anchored: bool) -> Evidence | None:
    """The removed definition named on a line (not where an example defines its own), when
    the section is about the project (`anchored`)."""
    if not anchored:
        return None
    word = _word(name)
    own = _own(name)
    for line in lines:
        if word.search(line.text) and not own.search(line.text) and _as_code(line, name):
            return _found("removed-definition", name, line)
    return None


def _as_code(line: Line, name: str) -> bool:
    """The line writes `name` as code: in a code block, as inline code, called (`name()`)
    or qualified (`mod.name`, `name.attr`); a plain word of prose (a heading 'WikiLinks', a
    link's text) is the thing's name in English, which a renamed class leaves true."""
    if line.code or any(name in _IDENT.findall(span) for span in _inline(line)):
        return True
    return re.search(rf"(?<![A-Za-z0-9_])(?:[A-Za-z_]\w*\.{re.escape(name)}(?![A-Za-z0-9_])|"
                     rf"{re.escape(name)}(?:\(|\.[A-Za-z_]))", line.text) is not None


def of_definition(found: StaleDefinition, lines: Sequence[Line], text: str,
                  params_then: Sequence[str] = (), anchored: bool = True
                  ) -> tuple[Evidence, ...]:
    """The evidence the section holds against one stale definition's changes."""
    out: list[Evidence] = []
    for change in found.changes:
        kind = change.kind
        hits: list[Evidence | None] = []
        if kind == "removed":
            hits.append(removed_definition(lines, found.symbol.rsplit(".", 1)[-1], anchored))
        elif kind == "parameters":
            gone = [n for n in change.names if n in params_then]
            if gone and len(gone) == len(change.names):
                hits += [removed_parameter(lines, found.symbol, n) for n in gone]
            else:
                hits += [missing_parameter(lines, text, found.symbol, n, params_then)
                         for n in change.names if n not in params_then]
        elif kind == "defaults":
            hits.append(old_default(lines, found.symbol, change))
        elif kind == "raises":
            hits.append(unraised_error(lines, change))
        elif kind == "members":
            hits += [removed_member(lines, found.symbol, n) for n in change.names]
        elif kind == "signature":
            hits.append(removed_base(lines, found.symbol, change))
        elif lines:  # body, annotations: counted only when the settings ask for them
            hits.append(asked_for(lines, change))
        out += [h for h in hits if h is not None]
    unique = {(e.kind, e.name): e for e in out}
    return tuple(unique[k] for k in sorted(unique))
