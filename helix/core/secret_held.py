"""A literal a secret name holds with no assignment operator between them:

- a config directive opening its line, `name "X";` (nginx, redis, Ruby and Chef DSLs), a
  device CLI's `set psksecret X` (FortiOS, VyOS), and a C macro's value, `#define WIFI_PASS
  "X"` (the macro is a constant's declaration);
- a value set on the object the name is, `secret.assign("X", n)`, `password.set("X")`;
- a getter returning it, `getApiToken() { return "X" }`, `def get_secret(self): return "X"`,
  Kotlin's `fun getToken() = "X"`;
- C++ direct initialisation, `std::string secret("X");`;
- a setter or a builder's step named after the secret, `ds.setPassword("X")`,
  `.apiSecret("X")`, `.withToken("X")`, `client.access_token("X")`.

    held_literal(text, name_start, name_end) -> Held(start, end, name, form) | None

`secret_structure` finds the name (by its secret word) and judges the name and the literal;
this module reads only the line the name stands on, from the name on (linear).
"""

from __future__ import annotations

import re
from typing import NamedTuple

_LITERAL = r"([\"'])([^\"'\n]{1,4096})\1"
_DIRECTIVE = re.compile(rf"[ \t]+{_LITERAL}[ \t]*;?[ \t]*(?:(?:#|//)[^\n]*)?$", re.M)
# a device CLI's setting (FortiOS, VyOS: `set psksecret X`), the value maybe quoted
_SET = re.compile(r"[ \t]+([\"']?)([^\s\"']{1,4096})\1[ \t]*\r?$", re.M)
_CALL = re.compile(rf"\([ \t]*{_LITERAL}[ \t]*(?:,[ \t]*\d{{1,6}}[ \t]*)?\)")
_GETTER = re.compile(r"[ \t]*\([ \t]*(?:self|this)?[ \t]*\)[^\n{:=(]{0,60}?"
                     rf"(?:[{{:][ \t]*return[ \t]+|=[ \t]*){_LITERAL}")
_INIT = re.compile(rf"\([ \t]*{_LITERAL}[ \t]*\)[ \t]*[;,]")
_TYPE_BEFORE = re.compile(r"(?:^|[ \t;{(])([\w:<>*&]+)[ \t]+$")
_DEFINE = re.compile(r"[ \t]*#[ \t]*define[ \t]+")  # C's `#define NAME "X"`: the name is set
_SETTERS = (".assign", ".setValue", ".set_value", ".set")
_NOT_TYPES = frozenset({"return", "new", "throw", "yield", "await", "print", "echo", "else",
                        "case", "in", "not", "and", "or", "delete", "typeof", "def", "fn",
                        "func", "function", "assert", "raise", "call", "go", "defer"})


class Held(NamedTuple):
    start: int
    end: int
    name: str  # the name the literal is held by (a setter's object, a getter's name)
    form: str  # "directive", "define", "setter", "getter", "init" or "call"


_SETTER_PREFIX = re.compile(r"(?:set|with|use)(?=[A-Z_])|(?:Set|With|Use)(?=[A-Z])")
# what a call's first word says it does with a secret, other than set it
_VERBS = frozenset({
    "check", "verify", "validate", "hash", "encode", "decode", "encrypt", "decrypt", "compare",
    "reset", "change", "update", "generate", "create", "make", "new", "is", "has", "find", "load",
    "read", "fetch", "parse", "revoke", "delete", "remove", "rotate", "mask", "redact", "sign",
    "hmac", "test", "assert", "expect", "mock", "fake", "print", "log", "format", "to", "from",
    "as", "get", "require", "prompt", "ask"})
_FIRST_WORD = re.compile(r"[a-z]+|[A-Z][a-z]*")


def _called(name: str) -> str | None:
    """The secret a call sets, by the method's name: a setter or a builder's step
    (`ds.setPassword`, `.withApiKey`, `.apiSecret`, `client.access_token`), the name without
    its verb; None for a function doing something with a secret (`check_password`, `hash`)."""
    dotted = "." in name
    method = name.rsplit(".", 1)[-1]
    prefix = _SETTER_PREFIX.match(method)
    if prefix is not None:
        return method[prefix.end():].lstrip("_") or None
    first = _FIRST_WORD.match(method)
    if not dotted or first is None or first.group().lower() in _VERBS:
        return None
    return method


def _head(text: str, name_start: int) -> str:
    return text[text.rfind("\n", 0, name_start) + 1:name_start]


def held_literal(text: str, name_start: int, name_end: int) -> Held | None:
    """The literal the name at [name_start, name_end) holds in one of the forms above."""
    name = text[name_start:name_end]
    if text.startswith("(", name_end):
        setter = next((s for s in _SETTERS if name.endswith(s)), None)
        if setter is not None:
            match = _CALL.match(text, name_end)
            if match is not None:
                return Held(match.start(2), match.end(2), name[:-len(setter)], "setter")
            return None
        if name.startswith(("get", "Get")):
            match = _GETTER.match(text, name_end)
            form = "getter"
        elif (called := _called(name)) is not None:
            match = _CALL.match(text, name_end)
            if match is None:
                return None
            return Held(match.start(2), match.end(2), called, "call")
        else:
            match, form = _INIT.match(text, name_end), "init"
            typed = _TYPE_BEFORE.search(_head(text, name_start)) if match is not None else None
            if typed is None or typed.group(1) in _NOT_TYPES:
                return None  # `return secret("x");`: a call, not a declaration
    elif name.startswith(("get", "Get")) and text[name_end:name_end + 1] in " \t":
        match, form = _GETTER.match(text, name_end), "getter"
    elif not (head := _head(text, name_start).strip()) or head == "set":
        match, form = (_SET if head else _DIRECTIVE).match(text, name_end), "directive"
    elif _DEFINE.fullmatch(_head(text, name_start)):
        match, form = _DIRECTIVE.match(text, name_end), "define"
    else:
        return None
    if match is None:
        return None
    return Held(match.start(2), match.end(2), name, form)
