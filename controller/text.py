"""Small text helpers shared by the controller: token sets, phrase matching, identifiers.

Matching uses the index's own tokenizer (`indexers.tokenize`), so "the term appears in the span"
means the same thing to coverage, dominance and compaction as it does to BM25.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from helix.core.english import LONG_FORMS, stems
from indexers.tokenize import expand, tokenize, words

# An identifier worth keeping whole: snake_case, CamelCase, dotted, or with digits.
_IDENT = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*$"  # dotted
    r"|^[A-Za-z]*_[A-Za-z0-9_]*[A-Za-z0-9]$"  # snake_case / SNAKE
    r"|^_?[a-z]+[A-Z][A-Za-z0-9]*$"  # camelCase
    r"|^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$"  # PascalCase with a second hump
    r"|^[A-Za-z]+[0-9]+[A-Za-z0-9]*$"  # with digits
)


def is_identifier(word: str) -> bool:
    return bool(_IDENT.match(word))


TOKEN_CACHE = 32768  # distinct texts whose token sets are remembered (chunks repeat a lot)


_WORD_TOKENS: dict[str, frozenset[str]] = {}  # a word -> its tokens, stemmed
_WORDS_KEPT = 500_000


@lru_cache(maxsize=TOKEN_CACHE)
def token_set(text: str) -> frozenset[str]:
    """`frozenset(stems(t)[0] for t in tokenize(text))`, each distinct word expanded and stemmed
    once (the cost of a question is mostly this, for the chunks it has not seen before)."""
    memo = _WORD_TOKENS
    out: set[str] = set()
    for word in set(words(text)):
        tokens = memo.get(word)
        if tokens is None:
            if len(memo) >= _WORDS_KEPT:
                memo.clear()
            tokens = memo[word] = frozenset(stems(t)[0] for t in expand(word))
        out |= tokens
    return frozenset(out)


def held_at_most(wanted: frozenset[str], text: str) -> int:
    """An upper bound of `len(wanted & token_set(text))` that reads the text without
    tokenizing it: a token is a lowercased piece of one of the text's words (less a plural
    `s`), so each word among the tokens is a piece of the lowercased text."""
    if not all(word.isascii() for word in wanted):
        return len(wanted)
    lowered = text.lower()
    return sum(1 for word in wanted if word in lowered)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.0
    shared = len(a & b) if len(a) <= len(b) else len(b & a)
    return shared / (len(a) + len(b) - shared)  # |a | b| without building the union


@lru_cache(maxsize=TOKEN_CACHE)
def phrase_tokens(phrase: str) -> tuple[str, ...]:
    """The tokens that must all appear for `phrase` to count as present (whole words only)."""
    parts = tokenize(phrase)
    if not parts:
        return ()
    # For an identifier, the whole lowercased name is the first token; its parts follow.
    if is_identifier(phrase.strip("`")):
        return (stems(parts[0])[0],)
    return tuple(dict.fromkeys(stems(p)[0] for p in parts))


def contains_phrase(tokens: frozenset[str], phrase: str) -> bool:
    need = phrase_tokens(phrase)
    return bool(need) and all(t in tokens for t in need)


def lines_matching(text: str, phrases: Iterable[str], first: bool = False) -> list[int]:
    """0-based line numbers whose tokens contain any phrase's tokens (all of them); `first`:
    only the first such line (the lines after it are not read)."""
    wanted = [p for p in phrases if phrase_tokens(p)]
    out: list[int] = []
    if not wanted:
        return out
    for number, line in enumerate(text.splitlines()):
        toks = token_set(line)
        if any(contains_phrase(toks, p) for p in wanted):
            out.append(number)
            if first:
                break
    return out


def symbol_variants(phrase: str) -> tuple[str, ...]:
    """Code spellings of a multi-word phrase: `retry policy` -> RetryPolicy, retry_policy."""
    words = [w for w in re.findall(r"[A-Za-z0-9]+", phrase) if w]
    if not words:
        return ()
    if len(words) == 1:
        word = words[0]
        return tuple(dict.fromkeys((word, word[:1].upper() + word[1:])))
    camel = "".join(w[:1].upper() + w[1:] for w in words)
    snake = "_".join(w.lower() for w in words)
    return tuple(dict.fromkeys((camel, snake, snake.upper())))


_NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def spelled_out(tokens: frozenset[str]) -> frozenset[str]:
    """`tokens` and the words their short forms stand for (`helix.core.english.LONG_FORMS`:
    `BrowserContextID` answers "the browser context identifier")."""
    longer = [LONG_FORMS[t] for t in tokens if t in LONG_FORMS]
    return tokens.union(*longer) if longer else tokens


def name_tokens(symbol: str) -> frozenset[str]:
    """An identifier's words, stemmed like the question's: `OutputStreamFormatter.format_rules`
    -> {output, stream, formatter, format, rule}."""
    return frozenset(stems(p.lower())[0] for p in _NAME_PARTS.findall(symbol) if len(p) > 1)
