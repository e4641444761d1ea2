"""Which code changes a documentation section would have to follow.

A section that names a definition does not describe all of it: "use a `Client` to share
connections" says nothing of the client's fourteen parameters. A change counts against a
section only when the section says something it touches:

    removed       the definition the section names is gone                       always
    parameters    a removed parameter the section names (inline code, a keyword argument);
                  an added one when the section is about the definition and lists its
                  parameters (names half of the named ones, two at least: `*args` and
                  `**kwargs` list nothing); a guide's call of it misses no new option
    defaults      the section names the parameter, or shows its old value
    raises        the section mentions an exception raised before or after
    members       the section mentions a removed method or field
    signature     decorators, modifiers, bases: the section mentions one that is gone
                  (dropping `object` from a class's bases changes nothing)
    body          the section is about the definition (its heading is it), when
                  `stale_docs.body_changes` (off: documents state interfaces; measured on
                  other repositories, body changes alone were no alarm a reader needed)
    annotations   only when `stale_docs.annotation_changes` (documents seldom state types)

"Mentions" means as code: in an inline code span or a code block (fenced, doctest; not in
its strings), as a keyword argument (`timeout=`) or a call, or a name no prose would use by
accident (snake_case, CamelCase): "sending requests through HTTP proxies" does not mention
the `proxies` parameter, nor does `'my-app/0.0.1'` the `app` parameter. "About the
definition" is its heading being it: its name (spaces, underscores and case aside:
"Background Task" is `BackgroundTask`) or its name as code (`` `Client` ``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from helix.core.changes import CodeChange
from helix.core.history_settings import StaleDocsSettings

LISTS_AT_LEAST = 2  # parameters a section names before it counts as listing them
NO_OP_BASES = frozenset({"object"})  # `class C(object)` is `class C`
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VALUE = re.compile(r"\S+")
_INLINE = re.compile(r"``?([^`\n]+)``?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_DOCTEST = re.compile(r"^\s*(>>>|\.\.\.) ")
_CALLED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*[=(]")
_DISTINCT = re.compile(r"\b(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*|_+[A-Za-z0-9_]+|"
                       r"[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\b")


_STRING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_KEYWORD = re.compile(r"[(,]\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")  # a keyword argument
_SET = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=(?!=)")  # `timeout=5` written in prose


@dataclass(frozen=True)
class Said:
    """What a section mentions as code: any identifier in code (strings left out), and the
    names it states deliberately (inline code, a keyword argument, a distinctive name)."""

    code: frozenset[str]
    named: frozenset[str]

    def __contains__(self, name: object) -> bool:
        return name in self.code or name in self.named


def words(text: str) -> Said:
    """The identifiers `text` mentions as code (see the module docstring)."""
    code: set[str] = set()
    named: set[str] = set()
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or _DOCTEST.match(line):
            bare = _STRING.sub(" ", line)
            code.update(_WORD.findall(bare))
            named.update(_KEYWORD.findall(bare))
            continue
        for span in _INLINE.findall(line):
            named.update(_WORD.findall(_STRING.sub(" ", span)))
        named.update(_SET.findall(line))
        code.update(_CALLED.findall(line))
        named.update(_DISTINCT.findall(line))
    return Said(code=frozenset(code), named=frozenset(named))


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


def counts(change: CodeChange, *, params_then: Sequence[str], said: Said,
           text: str, is_about: bool, settings: StaleDocsSettings) -> bool:
    """Whether `change` makes the section (its identifiers `said`, its `text`) stale."""
    mentioned = any(name.lstrip("*") in said for name in change.names)
    stated = any(name.lstrip("*") in said.named for name in change.names)
    kind = change.kind
    if kind == "removed":
        return True
    if kind == "parameters":
        gone = [n for n in change.names if n in params_then]
        if gone and len(gone) == len(change.names):
            return stated  # `proxies=` or `proxies`: not an example's own `proxies`
        if all(n.startswith("_") for n in change.names):
            return False  # a private parameter is never documented
        named = [p for p in params_then if not p.startswith("*")]  # every example has kwargs
        listed = sum(p in said.named for p in named)
        return is_about and bool(named) and listed >= max(LISTS_AT_LEAST,
                                                          (len(named) + 1) // 2)
    if kind == "defaults":
        name, *old = change.names
        return name in said.named or bool(old and old[0] in _VALUE.findall(text))
    if kind in ("raises", "members"):
        return mentioned
    if kind == "signature":  # a base or decorator it names is gone (`object`: no base at all)
        return any(n in said for n in change.names if n not in NO_OP_BASES)
    if kind == "body":
        return settings.body_changes and is_about
    return settings.annotation_changes and mentioned  # annotations


def counted(found: Sequence[CodeChange], *, params_then: Sequence[str], heading: Sequence[str],
            symbol: str, text: str, settings: StaleDocsSettings) -> list[CodeChange]:
    said = words(text)
    is_about = about(heading, symbol)
    return [c for c in found if counts(c, params_then=params_then, said=said, text=text,
                                       is_about=is_about, settings=settings)]
