"""Secrets written as the fallback of a lookup, where no `name = value` puts the value right
after its name: the name is looked up (an environment variable, a setting, an attribute) and
the literal is what the code uses when the lookup finds nothing:

- an operator choosing the literal when the lookup is empty (`process.env.API_KEY || 'X'`,
  `?? 'X'`, PHP's and Kotlin's `?: 'X'`, Python's `or 'X'`), a symbol also opening the next
  line;
- a block or a method giving it (`ENV.fetch('API_KEY') { 'X' }`, Rust's
  `env::var("API_KEY").unwrap_or("X")` or `.unwrap_or_else(|_| "X".to_string())`, Java's
  `.orElse("X")`);
- a keyword argument (`config("API_KEY", default="X")`);
- a shell parameter's default (`${API_KEY:-X}`, `${API_KEY:=X}`), a Spring or Quarkus
  placeholder's (`${DB_PASSWORD:X}`, `${db.password:X}`).

The name must say it holds a secret (`secret_names.name_strength`) and the literal must pass
the test a value assigned to that name passes (`secret_values.quoted_ok`/`unquoted_ok`).

    default_findings(text) -> [(start, end, kind)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import re2

from helix.core.secret_names import name_strength
from helix.core.secret_structure import Found
from helix.core.secret_values import quoted_ok, unquoted_ok

__all__ = ["default_findings"]

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
_QUOTE = "[\"'`]"
# a looked-up name (bare, quoted, or a lookup's argument), then the fallback: an operator (a
# symbol maybe opening the next line: Kotlin's `getenv("API_KEY")\n    ?: "X"`; not Python's
# `or`, which opens the next line of any wrapped condition), a
# block `{ 'X' }` after the lookup's call (Ruby; its `|key|` maybe), a method taking the
# default (maybe through a closure: `|_|`, `() =>`, `() ->`), a `default=` argument; then
# the literal (one RE2 pass: linear, and no backtracking from each name's every start)
_FALLBACK = re2.compile(
    r"([A-Za-z_][\w.\-]*)"
    r"(?:" + _QUOTE + r"?[ \t]*[\])]{0,2}[ \t]*(?:(?:\r?\n[ \t]*)?(?:\|\||\?\?|\?:)|\bor\b)[ \t]*"
    r"|" + _QUOTE + r"?[ \t]*\)[ \t]*(\{)[ \t]*(?:\|[\w, ]{0,40}\|[ \t]*)?"
    r"|" + _QUOTE + r"?[ \t]*[\])]{0,2}\.(?:unwrap_or(?:_else)?|or_else|orElse(?:Get)?|"
    r"getOrElse|or|value_or)\([ \t]*(?:\|[\w, ]{0,40}\|[ \t]*|\([\w, ]{0,40}\)[ \t]*"
    r"(?:=>|->)[ \t]*)?"
    r"|" + _QUOTE + r"[ \t]*,[ \t]*default[ \t]*[=:][ \t]*)"
    r"(?:String::from\(|String\(|str\()?"
    r"(?:\"([^\"\n]+)\"|'([^'\n]+)'|`([^`\n]+)`)",
    options=_RE2_OPTIONS)
_BLOCK_END = re.compile(r"[ \t]*\}")
_SHELL_DEFAULT = re.compile(r"\$\{([A-Za-z_][\w.\-]{0,79})(:[-=]?|[-=])([^\s}\"'$`]{1,4096})\}")
_SUBSTRING = re.compile(r"[0-9]+(?::[0-9]*)?")  # `${PASSWORD:0:3}`: a shell's substring
# the words one of which a text must hold for a fallback to be read in it
_FALLBACK_WORDS = ("||", "??", "?:", " or ", "{", "unwrap_or", "or_else", "orElse", ".or(",
                   "getOrElse", "value_or", "default")


def _fallbacks(text: str) -> Iterator[Found]:
    subject: str | bytes = text.encode("ascii") if text.isascii() else text
    for match in _FALLBACK.finditer(subject):
        group = next(g for g in (3, 4, 5) if match.start(g) != -1)
        start, end = match.start(group), match.end(group)
        strength = name_strength(text[match.start(1):match.end(1)])
        if strength is None or not quoted_ok(text[start:end], strength):
            continue
        if match.start(2) != -1 and not _BLOCK_END.match(text, end + 1):
            continue  # a block that does more than give the literal
        yield Found(start, end, "assignment")


def _shell_defaults(text: str) -> Iterator[Found]:
    for match in _SHELL_DEFAULT.finditer(text):
        strength = name_strength(match.group(1))
        if match.group(2) == ":" and _SUBSTRING.fullmatch(match.group(3)) is not None:
            continue
        if strength is not None and unquoted_ok(match.group(3), strength, True):
            yield Found(match.start(3), match.end(3), "assignment")


def default_findings(text: str) -> list[Found]:
    found: list[Found] = []
    if any(word in text for word in _FALLBACK_WORDS):
        found += _fallbacks(text)
    if "${" in text:
        found += _shell_defaults(text)
    return found
