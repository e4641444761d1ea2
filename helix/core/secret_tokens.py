"""Credentials known by their prefix alone (`hf_...`, `dop_v1_...`, `shpat_...`), or by a marker
inside or after their body (`<id>.atlasv1.<secret>`, `<body>-NRMA`): the markers, their bodies'
characters and least lengths are data (`secret_rules.toml` [[tokens]]).

    token_findings(text) -> (start, end, "prefixed_token") spans

A prefix counts where it starts a word (no letter, digit or `_` before it), and its body is the
longest run of the body's characters after it, at least the table's length. A body of filler
(`xxxx`, `****`, `0000`) or naming an example is a placeholder, not a credential.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from helix.core.secret_gates import (
    DISTINCT_PREFIX,
    MIN_WORDLESS_ENTROPY,
    shannon_entropy,
)
from helix.core.secret_rules import Token, rules

KIND = "prefixed_token"
_FILLER = frozenset("xX*.0-_<>")
_PLACEHOLDER_PARTS = ("xxxx", "****", "example", "your_", "your-", "redacted", "dummy",
                      "placeholder", "fake")
_WORD = frozenset(string.ascii_letters + string.digits + "_")
_TRAILING = "."  # a sentence's full stop after a body that may hold dots
# AKIAIOSFODNN7EXAMPLE, ...EXAMPLEKEY: a documentation's key ends so
_FILLER_RUN = re.compile(r"[xX]{8}|\*{8}|EXAMPLE(?:KEY)?$|(?i:fake|dummy){2}|"
                         # a template's word in any case (`sk_test_PLACEHOLDER`, `..._REPLACE_ME`)
                         r"(?i:placeholder|replace[_\-]?me|change[_\-]?me)|"
                         # words after the prefix (`xoxb-your-bot-token`, `sk_test_placeholder`)
                         r"^[A-Za-z0-9]{1,8}[_\-](?:(?:live|test)_)?[a-z]{3,}(?:[_\-][a-z]+)*$")


class _Table(NamedTuple):
    pattern: re.Pattern[str]
    by_prefix: dict[str, Token]


@cache
def _table() -> _Table:
    tokens = rules().tokens
    prefixes = sorted({t.prefix for t in tokens}, key=lambda p: (-len(p), p))
    return _Table(re.compile("|".join(re.escape(p) for p in prefixes)),
                  {t.prefix: t for t in tokens})


def prefixes() -> tuple[str, ...]:
    """Every prefix of the table (the prefilter's trigger words)."""
    return tuple(sorted(_table().by_prefix))


def placeholder_body(body: str) -> bool:
    lowered = body.lower()
    return all(c in _FILLER for c in body) or any(p in lowered for p in _PLACEHOLDER_PARTS)


def filler(value: str) -> bool:
    """A token written as a placeholder: a run of x's (`ghu_xxxx...`, `AKIAXXXXXXXX...`), or
    a documentation's example (`...EXAMPLEKEY`), a dummy's word repeated (`FAKEFAKE...`), lower
    case words after its prefix (`xoxb-your-bot-token`: an issued token has digits)."""
    return _FILLER_RUN.search(value) is not None


def _random_body(body: str) -> bool:
    """A body that reads like a random token: digits in it, or high entropy (not words run
    together: `hf_requiredCharacteristicTypes...`)."""
    return any(c.isdigit() for c in body) or shannon_entropy(body) >= MIN_WORDLESS_ENTROPY


def _run(text: str, at: int, chars: frozenset[str], step: int) -> int:
    size = len(text)
    while 0 <= at < size and text[at] in chars:
        at += step
    return at


def token_findings(text: str) -> Iterator[tuple[int, int, str]]:
    table = _table()
    for match in table.pattern.finditer(text):
        token = table.by_prefix[match.group()]
        start, body_start = match.start(), match.end()
        if token.suffix:  # the body stands before the marker: `<body>-NRMA`
            start = _run(text, start - 1, token.body, -1) + 1
            end = body_start
            if end < len(text) and text[end] in _WORD:
                continue  # the marker begins a longer word
            body = text[start:match.start()]
        else:
            if token.infix:
                start = _run(text, start - 1, token.body, -1) + 1
            elif start > 0 and token.prefix[0] in _WORD and text[start - 1] in _WORD:
                continue  # inside a longer word
            end = _run(text, body_start, token.body, 1)
            while end > body_start and text[end - 1] in _TRAILING:
                end -= 1
            body = text[body_start:end]
        if len(body) < token.min or placeholder_body(body):
            continue
        if len(token.prefix) < DISTINCT_PREFIX and not _random_body(body):
            continue  # a short prefix before words: `hf_requiredCharacteristicTypes`
        yield start, end, KIND
