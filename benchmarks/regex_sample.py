"""Draw a string that matches a regular expression, from a seeded random generator (benchmark
tool): what gitleaks' `secrets.NewSecret(regex)` does with Go's reggen, written here from the
expression's parse tree (Python's own regular-expression parser), so a corpus extracted twice
holds the same samples.

    sample(pattern, rng) -> str   (raises ValueError for a pattern it cannot draw from)

Unbounded repeats (`+`, `*`, `{n,}`) draw at most UNBOUNDED_EXTRA more than their minimum;
assertions and anchors draw nothing; a case-insensitive pattern draws its literal case.
"""

from __future__ import annotations

import random
import re
import string
from typing import Any

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

UNBOUNDED_EXTRA = 3
MAX_REPEAT_DRAWN = 400  # a bound so `{1000,}` stays a sample, not a megabyte
_PRINTABLE = string.ascii_letters + string.digits + "_-.+/="
_CATEGORIES = {
    sre_constants.CATEGORY_DIGIT: string.digits,
    sre_constants.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_DIGIT: string.ascii_letters,
    sre_constants.CATEGORY_NOT_WORD: "-.+/=:",
    sre_constants.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
}
_GO_ONLY = ((r"\z", r"\Z"), ("[:alnum:]", "a-zA-Z0-9"), ("[:alpha:]", "a-zA-Z"),
            ("[:digit:]", "0-9"), ("[:xdigit:]", "0-9a-fA-F"), ("[:upper:]", "A-Z"),
            ("[:lower:]", "a-z"), ("[:space:]", r"\s"), ("[:punct:]", r"!-/:-@\[-`{-~"))
_GLOBAL_FLAGS = re.compile(r"\(\?[imsU]+\)")


def to_python(pattern: str) -> str:
    """A Go (RE2) pattern as Python's parser reads it: `\\z`, POSIX classes, and flag groups
    in the middle (Python allows them only at the start; drawing ignores case anyway)."""
    for go, python in _GO_ONLY:
        pattern = pattern.replace(go, python)
    pattern = _GLOBAL_FLAGS.sub("", pattern)
    return re.sub(r"\(\?P?<(\w+)>", "(?P<\\1>", pattern)


def _class(items: list[tuple[Any, Any]]) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        if op is sre_constants.NEGATE:
            negate = True
        elif op is sre_constants.LITERAL:
            chars.append(chr(arg))
        elif op is sre_constants.RANGE:
            chars += [chr(c) for c in range(arg[0], min(arg[1], arg[0] + 256) + 1)]
        elif op is sre_constants.CATEGORY:
            chars += list(_CATEGORIES.get(arg, ""))
    if negate:
        banned = set(chars)
        return "".join(c for c in _PRINTABLE if c not in banned)
    return "".join(dict.fromkeys(chars))


def _draw(tree: Any, rng: random.Random, groups: dict[int, str]) -> str:
    out: list[str] = []
    for op, arg in tree:
        if op is sre_constants.LITERAL:
            out.append(chr(arg))
        elif op is sre_constants.NOT_LITERAL:
            out.append(rng.choice([c for c in _PRINTABLE if ord(c) != arg]))
        elif op is sre_constants.ANY:
            out.append(rng.choice(string.ascii_letters + string.digits))
        elif op is sre_constants.IN:
            choices = _class(arg)
            if not choices:
                raise ValueError("empty character class")
            out.append(rng.choice(choices))
        elif op is sre_constants.BRANCH:
            out.append(_draw(rng.choice(arg[1]), rng, groups))
        elif op is sre_constants.SUBPATTERN:
            group, _, _, sub = arg
            text = _draw(sub, rng, groups)
            if group is not None:
                groups[group] = text
            out.append(text)
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT,
                    getattr(sre_constants, "POSSESSIVE_REPEAT", None)):
            low, high, sub = arg
            if high is sre_constants.MAXREPEAT:
                high = low + UNBOUNDED_EXTRA
            count = rng.randint(low, min(high, max(low, MAX_REPEAT_DRAWN)))
            out += [_draw(sub, rng, groups) for _ in range(count)]
        elif op is sre_constants.CATEGORY:
            out.append(rng.choice(_CATEGORIES.get(arg, "x")))
        elif op is sre_constants.GROUPREF:
            out.append(groups.get(arg, ""))
        elif op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            out.append(_draw(arg, rng, groups))
        else:
            raise ValueError(f"cannot draw {op}")
    return "".join(out)


def sample(pattern: str, rng: random.Random) -> str:
    try:
        tree = sre_parse.parse(to_python(pattern))
    except re.error as exc:
        raise ValueError(f"cannot parse {pattern!r}: {exc}") from None
    return _draw(tree, rng, {})
