"""Secrets written as the fallback of a lookup, where no `name = value` puts the value right
after its name: the name is looked up (an environment variable, a setting, an attribute) and
the literal is what the code uses when the lookup finds nothing:

- an operator choosing the literal when the lookup is empty (`process.env.API_KEY || 'X'`,
  `?? 'X'`, PHP's `?: 'X'`, Python's `or 'X'`);
- a block or a method giving it (`ENV.fetch('API_KEY') { 'X' }`, Rust's
  `env::var("API_KEY").unwrap_or("X")` or `.unwrap_or_else(|_| "X".to_string())`, Java's
  `.orElse("X")`);
- a keyword argument (`config("API_KEY", default="X")`);
- a shell parameter's default (`${API_KEY:-X}`, `${API_KEY:=X}`).

The name must say it holds a secret (`secret_names.name_strength`) and the literal must pass
the test a value assigned to that name passes (`secret_values.quoted_ok`/`unquoted_ok`).

    default_findings(text) -> [(start, end, kind)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_names import name_strength
from helix.core.secret_structure import Found
from helix.core.secret_values import quoted_ok, unquoted_ok

__all__ = ["default_findings"]

# a looked-up name (bare, quoted, or a lookup's argument) and what closes its lookup
_NAME = r"([A-Za-z_][\w.\-]{0,79})[\"'`]?[ \t]*[\])]{0,2}"
_LITERAL = r"(?:String::from\(|String\(|str\()?([\"'`])([^\"'`\n]{1,4096})\3"
# the fallback: an operator, a block `{ 'X' }` (Ruby, its `|key|` maybe), a method taking the
# default (maybe through a closure: `|_|`, `() =>`, `() ->`), a `default=` argument
_FALLBACK = re.compile(
    _NAME + r"(?:[ \t]*(?:\|\||\?\?|\?:|\bor\b)[ \t]*"
    r"|(?<=\))[ \t]*(\{)[ \t]*(?:\|[\w, ]{0,40}\|[ \t]*)?"
    r"|\.(?:unwrap_or(?:_else)?|or_else|orElse(?:Get)?|getOrElse|or|value_or)\([ \t]*"
    r"(?:\|[\w, ]{0,40}\|[ \t]*|\([\w, ]{0,40}\)[ \t]*(?:=>|->)[ \t]*)?"
    r"|(?<=[\"'`])[ \t]*,[ \t]*default[ \t]*[=:][ \t]*)" + _LITERAL)
_BLOCK_END = re.compile(r"[ \t]*\}")
_SHELL_DEFAULT = re.compile(r"\$\{([A-Za-z_]\w{0,79}):?[-=]([^\s}\"'$`]{1,4096})\}")
# the words one of which a line must hold for a fallback to be read on it
_FALLBACK_WORDS = ("||", "??", "?:", " or ", "{", "unwrap_or", "or_else", "orElse", ".or(",
                   "getOrElse", "value_or", "default")


def _fallbacks(text: str) -> Iterator[Found]:
    for match in _FALLBACK.finditer(text):
        strength = name_strength(match.group(1))
        value = match.group(4)
        if strength is None or not quoted_ok(value, strength):
            continue
        if match.group(2) is not None and not _BLOCK_END.match(text, match.end()):
            continue  # a block that does more than give the literal
        yield Found(match.start(4), match.end(4), "assignment")


def _shell_defaults(text: str) -> Iterator[Found]:
    for match in _SHELL_DEFAULT.finditer(text):
        strength = name_strength(match.group(1))
        if strength is not None and unquoted_ok(match.group(2), strength, True):
            yield Found(match.start(2), match.end(2), "assignment")


def default_findings(text: str) -> list[Found]:
    found: list[Found] = []
    if any(word in text for word in _FALLBACK_WORDS):
        found += _fallbacks(text)
    if "${" in text:
        found += _shell_defaults(text)
    return found
