"""Code-aware tokenizer shared by the BM25 index and its queries.

Rules (deterministic, documented because the index and every query must agree):
- A word is an identifier (`[^\\W\\d]\\w*`), a dotted name (`os.path.join`) or a run of digits.
- Everything is lowercased. An identifier is kept whole (`getusername`, `get_user_name`) AND
  split into its parts: snake_case on `_`, camelCase/PascalCase on case changes (acronyms kept
  together: `HTTPServerError` -> `http`, `server`, `error`), digits split off (`utf8` -> `utf`).
- A dotted name yields the whole dotted name, then each piece as above (`os.path.join` ->
  `os.path.join`, `os`, `path`, `join`), so a query for the full name scores an exact match higher.
- Tokens of one character are dropped, and so is a small list of English function words.
  Python keywords that are also plain English (`and`, `for`, `if`, `in`, `is`, `not`, `or`,
  `with`, `from`, `as`) are dropped too: they are in nearly every code chunk, so they carry no
  signal. Code-only keywords (`def`, `class`, `return`, `yield`, `import`, `raise`, `lambda`,
  `async`, `await`, `none`, `true`, `false`, `self`, `try`, `except`) and builtins that read
  like English (`all`, `any`) are kept.

Fast path: the expansion of each distinct word is memoised, since identifiers repeat a lot.
"""

from __future__ import annotations

import re

from helix.core.english import FUNCTION_WORDS

_WORD = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*|\d+")
# The same words of an ASCII text, matched a third faster (no Unicode classes to consult).
_ASCII_WORD = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*|\d+", re.ASCII)
# camelCase / PascalCase / acronym / digit parts of one underscore-free ASCII segment
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SPLITTABLE = re.compile(r"[_0-9]|[a-z][A-Z]|[A-Z][A-Z][a-z]")


STOPWORDS: frozenset[str] = FUNCTION_WORDS  # helix.core.english: the one home of word lists

MIN_TOKEN_CHARS = 2
# Bump on any change to the rules above: cached token lists (indexers.build) must be redone.
TOKENIZER_VERSION = 1
_MEMO_LIMIT = 500_000
_memo: dict[str, tuple[str, ...]] = {}


def _keep(token: str) -> bool:
    return len(token) >= MIN_TOKEN_CHARS and token not in STOPWORDS


def _segment_parts(segment: str) -> list[str]:
    if not segment.isascii():
        return [segment.lower()]
    return [part.lower() for part in _PART.findall(segment)]


def _expand_identifier(ident: str, out: list[str]) -> None:
    whole = ident.lower()
    out.append(whole)
    if not _SPLITTABLE.search(ident):
        return
    for segment in ident.split("_"):
        if not segment:
            continue
        for part in _segment_parts(segment):
            if part != whole:
                out.append(part)


def _expand(word: str) -> tuple[str, ...]:
    out: list[str] = []
    if "." in word:
        out.append(word.lower())
        for piece in word.split("."):
            _expand_identifier(piece, out)
    else:
        _expand_identifier(word, out)
    return tuple(token for token in out if _keep(token))


def words(text: str) -> list[str]:
    """The words of `text` as `tokenize` finds them, before each is expanded (`expand`)."""
    return (_ASCII_WORD if text.isascii() else _WORD).findall(text)


def expand(word: str) -> tuple[str, ...]:
    """The tokens of one word (`words`), as `tokenize` gives them."""
    return _expand(word)


def tokenize(text: str) -> list[str]:
    """Lowercased code-aware tokens of `text`, in order of appearance (see module docstring)."""
    memo = _memo
    tokens: list[str] = []
    for word in (_ASCII_WORD if text.isascii() else _WORD).findall(text):
        expanded = memo.get(word)
        if expanded is None:
            expanded = _expand(word)
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[word] = expanded
        tokens.extend(expanded)
    return tokens
