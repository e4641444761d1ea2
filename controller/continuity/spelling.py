"""Typos in the router's own words: "who clals it", "satrt over", "thnaks".

The router's vocabulary (`vocabulary.toml`: the words of its patterns and their examples) is
small and closed, so a message word one edit away from exactly one vocabulary word, and not a
vocabulary word itself, is read as that word. The router uses the reading only as a second
pass: when the message as typed is a new root question and the reading is a follow-up
(`router.route_turn`), so a real question is never rewritten. Pure; the word set is built once.

`misspelt_words` finds the slips in any word, not only the router's: a plain word the router
cannot read (not in the packaged sentence model's whole-word vocabulary, the words its tokenizer
keeps whole, nor the router's vocabulary, nor a name on screen) one edit from one it can. The
classifier reads such a word as pieces, so its reading of the message is no evidence that the
message stands alone (`router._follow_up_looking`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from controller.continuity.phrases import PATTERNS, VOCABULARY
from indexers.bm25 import one_edit_words
from indexers.english_words import is_word, whole_words

MIN_TRANSPOSED = 4  # "tset" -> "test": a swap of two letters in a word this long or longer
MIN_EDITED = 5  # a letter missing, extra or wrong: longer words only ("thnks" -> "thanks")
_WORD = re.compile(r"[a-z]+")
# a plain word of a message: not part of an identifier, a path or a dotted name
_PLAIN = re.compile(r"(?<![\w./-])[A-Za-z][a-z]+(?![\w./-])")
_ESCAPE = re.compile(r"\\[a-zA-Z]")


def _words_of(text: str) -> set[str]:
    text = _ESCAPE.sub(" ", text.lower())
    # "tests?" in a pattern: "test" is a word of it too
    return set(_WORD.findall(text)) | set(re.findall(r"([a-z]+)s\?", text))


@lru_cache(maxsize=1)
def vocabulary_words() -> frozenset[str]:
    """Every word of the router's patterns, word lists and examples."""
    words: set[str] = set()
    for spec in PATTERNS.values():
        words |= _words_of(str(spec.get("regex", "")))
        for example in spec.get("examples", ()):
            words |= _words_of(str(example))
    for alternation in VOCABULARY["words"].values():
        words |= _words_of(str(alternation))
    return frozenset(w for w in words if len(w) >= MIN_TRANSPOSED)


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


@lru_cache(maxsize=1)
def _by_deletion() -> dict[str, frozenset[str]]:
    """Every vocabulary word under itself and each string one letter shorter: two words one
    edit apart (`one_edit`: a swap, a letter replaced, missing or extra) share a key."""
    index: dict[str, set[str]] = {}
    for word in vocabulary_words():
        for key in (word, *_deletions(word)):
            index.setdefault(key, set()).add(word)
    return {key: frozenset(words) for key, words in index.items()}


def near_words(word: str) -> set[str]:
    """The vocabulary words that may be one edit from `word` (every one that is, and a few
    more: `one_edit` decides), found by key instead of comparing the whole vocabulary."""
    index = _by_deletion()
    return set().union(*(index.get(key, ()) for key in (word, *_deletions(word))))


def one_edit(a: str, b: str) -> bool:
    """`a` and `b` differ by one swap of adjacent letters, or (both long enough) one letter
    missing, extra or replaced."""
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] \
                and a[diff[1]] == b[diff[0]]:
            return len(a) >= MIN_TRANSPOSED
        return len(diff) == 1 and len(a) >= MIN_EDITED
    short, long_ = sorted((a, b), key=len)
    if len(long_) - len(short) != 1 or len(short) < MIN_EDITED - 1:
        return False
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def respelled(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(the message with each misspelt vocabulary word replaced, the (typed, read) pairs)."""
    vocabulary = vocabulary_words()
    read: list[tuple[str, str]] = []

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        low = word.lower()
        if len(low) < MIN_TRANSPOSED or low in vocabulary:
            return word
        close = [v for v in near_words(low) if abs(len(v) - len(low)) <= 1
                 and one_edit(low, v)]
        swapped = [v for v in close if len(v) == len(low) and sorted(v) == sorted(low)]
        close = swapped if len(swapped) == 1 else close  # a swap is the likelier slip
        if len(close) != 1:
            return word
        read.append((word, close[0]))
        return close[0]

    out = re.sub(r"[A-Za-z]+", fix, text)
    return out, tuple(read)


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """The words the router reads: the packaged sentence model's whole words
    (`indexers.english_words.whole_words`) and the router's vocabulary; none when the model
    cannot be read (no word is then called a slip)."""
    words = whole_words()
    if not words:  # no English to read against: nothing is called a slip
        return frozenset()
    return words | vocabulary_words()


def _read(word: str, known: frozenset[str], names: frozenset[str]) -> bool:
    return word in names or is_word(word, known)


def misspelt_words(text: str, names: frozenset[str] = frozenset()
                   ) -> tuple[tuple[str, str], ...]:
    """The plain words of `text` the router cannot read that are one edit from a word it can
    (`known_words`; `names`: the words of the names on screen, read as they are), each with
    a word it may stand for (a swap first, then the first in order)."""
    known = known_words()
    if not known:
        return ()
    out: list[tuple[str, str]] = []
    for match in _PLAIN.finditer(text):
        low = match.group(0).lower()
        if len(low) < MIN_TRANSPOSED or _read(low, known, names):
            continue
        edits = one_edit_words(low)
        near = sorted((0 if sorted(v) == sorted(low) else 1, v)
                      for v in (edits & known) | (edits & names) if one_edit(low, v))
        if near:
            out.append((match.group(0), near[0][1]))
    return tuple(out)


def respelt_against(text: str, words: frozenset[str]) -> str | None:
    """`text` with each plain word that `words` lacks, one edit from exactly one of them and
    no word the router reads (`known_words`), written as that word: an answer to a clarifier
    read against its options' descriptions ("the memroy one" -> "the memory one" when one
    option speaks of memory). None when no word was read otherwise."""
    known = known_words()
    changed = False

    def fix(match: re.Match[str]) -> str:
        nonlocal changed
        low = match.group(0).lower()
        if len(low) < MIN_TRANSPOSED or low in words or is_word(low, known):
            return match.group(0)
        close = sorted(w for w in one_edit_words(low) & words if one_edit(low, w))
        if len(close) != 1:
            return match.group(0)
        changed = True
        return close[0]

    out = _PLAIN.sub(fix, text)
    return out if changed else None
