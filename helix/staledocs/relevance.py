"""Which code changes a documentation section would have to follow.

A section that names a definition does not describe all of it: "use a `Client` to share
connections" says nothing of the client's fourteen parameters. A change counts against a
section only when the section says something it touches:

    removed       the definition the section names is gone                       always
    parameters    a removed parameter the section's prose names as code, or its example
                  passes to a call of the definition (`Client(proxies=...)`, not to an
                  example's own class); `*args, **kwargs` spelled out as named parameters
                  remove none; an added one when the section is about the definition and
                  lists its parameters (names half of the named ones, two at least: `*args`
                  and `**kwargs` list nothing); a guide's call of it misses no new option
    defaults      the section states it: a line naming the parameter says "default" or shows
                  the old value (not as an argument passed); a value that now stands for
                  "not given" (`None`, `_MISSING`) is chosen in the body: none
    raises        the section mentions an exception no longer raised, itself or through
                  the project's functions it calls (`reachable`); a root error (`Error`)
                  now raised as coded subclasses is raised still
    members       the section mentions a removed method or field
    signature     decorators, modifiers, bases: the section mentions one that is gone on a
                  line naming the definition ("a `Request` is a `Mapping`"; dropping
                  `object` from a class's bases, `class` becoming `def`, change nothing)
    body          the section is about the definition (its heading is it), when
                  `stale_docs.body_changes` (off: documents state interfaces; measured on
                  other repositories, body changes alone were no alarm a reader needed)
    annotations   only when `stale_docs.annotation_changes` (documents seldom state types;
                  a change of type parameters only, `<T extends Object>`, is one)

"Mentions" means as code: in an inline code span or a code block (fenced, doctest; not in
its strings), as a keyword argument (`timeout=`) or a call, or a name no prose would use by
accident (snake_case, CamelCase): "sending requests through HTTP proxies" does not mention
the `proxies` parameter, nor does `'my-app/0.0.1'` the `app` parameter. "About the
definition" is its heading being it: its name (spaces, underscores and case aside:
"Background Task" is `BackgroundTask`) or its name as code (`` `Client` ``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from helix.core.changes import CodeChange
from helix.core.english import SENTINEL_WORDS, word_alternation
from helix.core.history_settings import StaleDocsSettings

LISTS_AT_LEAST = 2  # parameters a section names before it counts as listing them
NO_OP_BASES = frozenset({"object"})  # `class C(object)` is `class C`
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VALUE = re.compile(r"\S+")
_INLINE = re.compile(r"``?([^`\n]+)``?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_DOCTEST = re.compile(r"^\s*(>>>|\.\.\.) ")
# a line opening an RST literal block: `Like this::`, `.. code-block:: python`
# RST directives whose indented body is code
CODE_DIRECTIVES = ("code-block", "code", "sourcecode", "doctest", "testcode", "ipython",
                   "literalinclude")
_LITERAL = re.compile(rf"(?:::\s*$|^\s*\.\.\s+(?:{word_alternation(CODE_DIRECTIVES)})::)")
_CALLED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*[=(]")
_DISTINCT = re.compile(r"\b(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*|_+[A-Za-z0-9_]+|"
                       r"[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\b")


_STRING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
# the root of a language's errors: one raised as a subclass now is raised still
ROOT_ERRORS = frozenset({"Error", "Exception", "BaseException", "Throwable", "StandardError"})
CONSTRUCTORS = frozenset({"__init__", "constructor", "initialize", "__construct", "new"})
# a "not given" default (`helix.staledocs.relevance.sentinel`)
NOT_GIVEN = frozenset({"None", "null", "undefined", "...", "Ellipsis", "object()", "nil"})
# words of a header that are no base or decorator a reader could lose (`class` -> `def`)
KEYWORDS = frozenset({"class", "def", "function", "export", "default", "const",
                      "let", "var", "fn", "pub", "func", "struct", "interface", "type"})
_GONE_RAISES = re.compile(r"no longer raises ([^;]+)")
_DEFAULT_WORD = re.compile(r"\bdefault", re.I)
# the keywords that open a definition in the languages Helix parses
_DEF_KEYWORDS: tuple[str, ...] = ("def", "function", "func", "fn")
_DEF_LINE = re.compile(rf"^\s*(?:[-*|]\s*)?(?:async\s+)?(?:{'|'.join(_DEF_KEYWORDS)})\s")
_PASSED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)")  # `name=value`: an argument passed
_PUNCT = re.compile(r"[`,;:()\[\]{}|=]")
_KEYWORD = re.compile(r"[(,]\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")  # a keyword argument
_SET = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=(?!=)")  # `timeout=5` written in prose
# a callee and its opening bracket, any other bracket, or a keyword argument (`, name=`)
_CALL_TOKEN = re.compile(r"(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*)?(?P<bracket>[()\[\]{}])"
                         r"|(?<=[(,])\s*(?P<keyword>[A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")


@dataclass(frozen=True)
class Said:
    """What a section mentions as code: any identifier in code (strings left out), the
    names it states deliberately (inline code, a keyword argument, a distinctive name), those
    of them its prose states (not an example's code), and the keyword arguments its code
    passes to each callee (by the callee's last name: `httpx.Client(proxies=p)` -> Client)."""

    code: frozenset[str]
    named: frozenset[str]
    prose: frozenset[str] = frozenset()
    passed: tuple[tuple[str, frozenset[str]], ...] = ()

    def __contains__(self, name: object) -> bool:
        return name in self.code or name in self.named

    def passed_to(self, callee: str) -> frozenset[str]:
        return next((kws for name, kws in self.passed if name == callee), frozenset())


def block_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """Each line of `text` but the fence markers, with its offset and what it is: "code" (in a
    fenced or RST literal block, or a doctest), "opens" (the line opening an RST literal block)
    or "prose"."""
    fenced = False
    literal: int | None = None  # the indentation of the line opening an RST literal block
    for offset, line in enumerate(text.splitlines()):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        indent = len(line) - len(line.lstrip())
        if literal is not None and line.strip() and indent <= literal:
            literal = None
        if not fenced and literal is None and _LITERAL.search(line):
            literal = indent
            yield offset, "opens", line
            continue
        code = fenced or literal is not None or bool(_DOCTEST.match(line))
        yield offset, "code" if code else "prose", line


def words(text: str) -> Said:
    """The identifiers `text` mentions as code (see the module docstring)."""
    code: set[str] = set()
    named: set[str] = set()
    prose: set[str] = set()
    examples: list[str] = []
    for _, kind, line in block_lines(text):
        if kind == "opens":
            if not line.lstrip().startswith(".."):  # `Call it like this::` is prose
                _prose(line, named, prose, code, examples)
            continue
        if kind == "code":
            bare = _STRING.sub(" ", line)
            code.update(_WORD.findall(bare))
            named.update(_KEYWORD.findall(bare))
            examples.append(_DOCTEST.sub("", bare))
            continue
        _prose(line, named, prose, code, examples)
    passed: dict[str, set[str]] = {}
    for callee, keyword in keyword_arguments("\n".join(examples)):
        passed.setdefault(callee, set()).add(keyword)
    return Said(code=frozenset(code), named=frozenset(named), prose=frozenset(prose),
                passed=tuple(sorted((k, frozenset(v)) for k, v in passed.items())))


def _prose(line: str, named: set[str], prose: set[str], code: set[str],
           examples: list[str]) -> None:
    """What a line of prose mentions as code (its inline code, `name=`, distinctive names,
    calls)."""
    for span in _INLINE.findall(line):
        found = _WORD.findall(_STRING.sub(" ", span))
        named.update(found)
        prose.update(found)
        examples.append(_STRING.sub(" ", span))
    said = {*_SET.findall(line), *_DISTINCT.findall(line)}
    named |= said
    prose |= said
    code.update(_CALLED.findall(line))


def keyword_arguments(code: str) -> list[tuple[str, str]]:
    """(callee's last name, keyword) for each keyword argument of a call in `code`
    (`httpx.Client(proxies=p, timeout=5)` -> (Client, proxies), (Client, timeout)); a
    keyword of a call nested in the arguments is that call's."""
    out: list[tuple[str, str]] = []
    open_calls: list[str | None] = []
    at = 0
    for match in _CALL_TOKEN.finditer(code):
        if match.start() < at:
            continue
        name, bracket, keyword = match.group("name"), match.group("bracket"), \
            match.group("keyword")
        if bracket and bracket in "([{":
            open_calls.append(name if bracket == "(" else None)
        elif bracket:
            if open_calls:
                open_calls.pop()
        elif keyword and open_calls and open_calls[-1]:
            out.append((open_calls[-1], keyword))
        at = match.end()
    return out


def _squeezed(text: str) -> str:
    return re.sub(r"[\s_\-`().]+", "", text).lower()


def about(heading: Sequence[str], symbol: str) -> bool:
    """The section's own heading is the definition: it is its name ("Background Task" for
    `BackgroundTask`, case, spaces and underscores aside), or names it as code
    ("The `Client` class", "`Request.send_push_promise`")."""
    if not heading:
        return False
    name, title = symbol.rsplit(".", 1)[-1], heading[-1]
    if _squeezed(title) == _squeezed(name):
        return True
    coded = {part.rsplit(".", 1)[-1].rstrip("()") for span in _INLINE.findall(title)
             for part in span.split()}
    return name in coded


def sentinel(value: str | None) -> bool:
    """A default that stands for "not given" (`None`, `...`, `object()`, `_MISSING`,
    `Unset`, `NOT_GIVEN`): the value a body reads as "use the usual", whatever its repr."""
    if value is None:
        return True
    bare = value.replace(" ", "")
    name = bare.rsplit(".", 1)[-1]
    squeezed = name.replace("_", "").lower()
    return bare in NOT_GIVEN or (name.startswith("_") and name.isidentifier()) or (
        name.isidentifier() and any(word in squeezed for word in SENTINEL_WORDS))


def _line_names(line: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_])", line) is not None


def _default_stated(change: CodeChange, text: str) -> bool:
    """A changed default misleads a reader only where the section states it: a line naming
    the parameter that says "default", or shows the old value other than as an argument
    passed (`f(timeout=5)` passes 5 whatever the default) or in a `def` line. A change from
    any value to a "not given" one (`512` -> `_SENTINEL`, `None` -> `_MISSING`) is none a
    reader sees: the body picks the value then, and may pick the one stated."""
    name, *old = change.names
    was = old[0] if old else None
    now = change.detail.rsplit(" -> ", 1)[-1]
    if sentinel(None if now == "(none)" else now):
        return False  # the value is chosen in the body now: not seen to change here
    shown = _unquoted(was) if was else None
    for line in text.splitlines():
        if not _line_names(line, name):
            continue
        if _DEFAULT_WORD.search(line):
            return True
        if shown and shown in {_unquoted(v) for v in _VALUE.findall(_PUNCT.sub(" ", line))} \
                and (_DEF_LINE.match(line) or not _PASSED.search(line)):
            return True
    return False


def _no_longer(change: CodeChange) -> list[str]:
    """The errors a `raises` change says are raised no more (an error raised anew that a
    section already mentions is one it describes: it misses nothing)."""
    found = _GONE_RAISES.search(change.detail)
    return [n.strip() for n in found.group(1).split(",")] if found else []


def _unquoted(value: str) -> str:
    return value.replace(" ", "").strip("'\"`")


def _beside(text: str, gone: str, symbol: str) -> bool:
    """The section relates the definition to a base or decorator it lost on one line ("a
    `Request` is a `Mapping`", `class View(Base)`): naming both apart (a guide that uses
    `@view_config` and `@view_defaults`) says nothing of one being the other's base."""
    name = symbol.rsplit(".", 1)[-1]
    return any(_line_names(line, gone) and _line_names(line, name)
               and not re.search(rf"(?<![A-Za-z0-9_.]){re.escape(gone)}\s*=(?!=)", line)
               for line in text.splitlines())


def _callee(symbol: str) -> str:
    """The name a call of the definition is written with (a constructor: its class's)."""
    parts = symbol.split(".")
    return parts[-2] if len(parts) > 1 and parts[-1] in CONSTRUCTORS else parts[-1]


def _states_parameter(name: str, said: Said, symbol: str) -> bool:
    """The section states the parameter of this definition: its prose names it as code
    (`proxies`, `proxies=`, `max_redirects`), or its example passes it to a call of the
    definition (`Client(proxies=...)`, not `ProxyRoundRobin(proxies=...)`, an example's own
    class taking a parameter of that name)."""
    bare = name.lstrip("*")
    return bare in said.prose or bare in said.passed_to(_callee(symbol))


def counts(change: CodeChange, *, params_then: Sequence[str], said: Said,
           text: str, is_about: bool, settings: StaleDocsSettings, symbol: str = "",
           params_now: Sequence[str] = ()) -> bool:
    """Whether `change` makes the section (its identifiers `said`, its `text`) stale."""
    mentioned = any(name.lstrip("*") in said for name in change.names)
    kind = change.kind
    if kind == "removed":
        return True
    if kind == "parameters":
        gone = [n for n in change.names if n in params_then]
        if gone and len(gone) == len(change.names):
            if all(n.startswith("*") for n in gone) and any(
                    p not in params_then and not p.startswith("*") for p in params_now):
                return False  # `*args, **kwargs` spelled out: every call still works
            return any(_states_parameter(n, said, symbol) for n in gone)
        if all(n.startswith("_") for n in change.names):
            return False  # a private parameter is never documented
        named = [p for p in params_then if not p.startswith("*")]  # every example has kwargs
        listed = sum(p in said.named for p in named)
        return is_about and bool(named) and listed >= max(LISTS_AT_LEAST,
                                                          (len(named) + 1) // 2)
    if kind == "defaults":
        return _default_stated(change, text)
    if kind == "raises":  # an error it says is raised that no longer is
        coded = "now raises " in change.detail  # a root error raised as others now
        return any(name in said for name in _no_longer(change)
                   if not (coded and name.rsplit(".", 1)[-1] in ROOT_ERRORS))
    if kind == "members":
        return mentioned
    if kind == "signature":  # a base or decorator it names is gone (`object`: no base at all)
        return any(n in said and _beside(text, n, symbol) for n in change.names
                   if n not in NO_OP_BASES and n not in KEYWORDS)
    if kind == "body":
        return settings.body_changes and is_about
    return settings.annotation_changes and mentioned  # annotations


def counted(found: Sequence[CodeChange], *, params_then: Sequence[str], heading: Sequence[str],
            symbol: str, text: str, settings: StaleDocsSettings,
            params_now: Sequence[str] = ()) -> list[CodeChange]:
    said = words(text)
    is_about = about(heading, symbol)
    return [c for c in found if counts(c, params_then=params_then, said=said, text=text,
                                       is_about=is_about, settings=settings, symbol=symbol,
                                       params_now=params_now)]
