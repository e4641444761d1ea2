"""The English words the packaged sentence model's tokenizer keeps whole (its `vocab.txt`):
a word list that tells a real word ("pool", "wat", "gonna") from a slip ("cavty", "memry").

Read once per process; empty when the model cannot be read (then nothing is called a slip).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from helix.core.config import IndexSettings
from helix.core.english import stems
from helix.core.errors import HelixError

# the endings a base form takes ("tokens" is read: the vocabulary holds "token")
FORMS = ("s", "es", "d", "ed", "ing", "er")


@lru_cache(maxsize=1)
def whole_words() -> frozenset[str]:
    """The model's whole words (letters only, two or more; no '##' piece), lower case."""
    from indexers.encoder import default_model_path, model_dir

    try:
        lines = (model_dir(default_model_path(IndexSettings())) / "vocab.txt").read_text(
            encoding="utf-8").splitlines()
    except (HelixError, ImportError, OSError, UnicodeDecodeError):
        return frozenset()
    return frozenset(w for w in lines if len(w) >= 2 and w.isascii() and w.isalpha()
                     and w.islower())


def is_word(word: str, known: frozenset[str]) -> bool:
    """`word` is one of `known`, an inflection of one, or one with an ending added."""
    return word in known or any(s in known for s in stems(word, "inflection")) \
        or any(word + ending in known for ending in FORMS)


def short_respelling(word: str, near: Sequence[str], doc_freq: Callable[[str], int],
                     min_docs: int, real_words: frozenset[str]) -> str | None:
    """The one repository word a short `word` (not an English word of `real_words`) stands
    for: among its one-edit neighbours the index holds (`near`), the only adjacent swap, else
    the only one with a letter more, held by `min_docs` documents; None otherwise (and
    always when `real_words` is empty)."""
    if not real_words or is_word(word, real_words):
        return None
    swaps = [c for c in near if len(c) == len(word) and sorted(c) == sorted(word)]
    missing = [c for c in near if len(c) == len(word) + 1]
    for fits in (swaps, missing):
        if fits:
            return fits[0] if len(fits) == 1 and doc_freq(fits[0]) >= min_docs else None
    return None
