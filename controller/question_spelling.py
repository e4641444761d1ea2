"""A misspelt word of a question read as the repository's word ("where is the tokneizer
defined?" -> tokenizer). Pure: the caller hands in `spelled_as` (the index's vocabulary:
`indexers.bm25.BM25Index.spelled_as`), which answers None for a word the repository knows.

Only plain words are read: identifiers (snake_case, camelCase, dotted) have their own close-name
lookup, and English function words are never respelt. The answer says what was read, so the
user sees the correction instead of a silent rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from helix.core.english import FUNCTION_WORDS

_WORD = re.compile(r"(?<![\w./-])[A-Za-z][a-z]+(?![\w./-])")


def respelled_question(question: str, spelled_as: Callable[[str], str | None]
                       ) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(the question with each misspelt plain word replaced, the (typed, read) pairs)."""
    read: list[tuple[str, str]] = []

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        low = word.lower()
        if low in FUNCTION_WORDS:
            return word
        found = spelled_as(low)
        if found is None:
            return word
        read.append((word, found))
        return found.capitalize() if word[0].isupper() else found

    return _WORD.sub(fix, question), tuple(read)


def reading_note(read: tuple[tuple[str, str], ...]) -> str:
    """The answer's first line when words were read otherwise."""
    said = ", ".join(f"'{typed}' as '{word}'" for typed, word in read)
    return f"(Read {said}: the repository has no such word.)"
