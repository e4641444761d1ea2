"""An answer in another language that negates nothing is no absence claim (issue 32,
meaning25; pure).

The phrase rules and the sentence encoder read English; an answer in French, Portuguese or
Japanese shares few words with English evidence, so the learned head, reading its features,
can take a plain answer for a claim ("La semaine commence selon la locale ...", "Só o
proprietário atual pode transferir ..."). A claim that the evidence lacks something negates, in
any language ("ne précisent pas", "não dizem", "keine Angaben", "記載がありません", "没有说明");
an answer in another language that negates nothing, and asks nothing, says what it gives. The
words are data (absence_language.toml).

    plain_foreign(text) -> `text` is in another language, negates nothing and asks nothing
    foreign_claim(text) -> `text` is in another language, and a sentence of it negates and then
                           opens an indirect question: what is not shown ("no aparece cuánto")
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LANGUAGE_FILE = Path(__file__).with_name("absence_language.toml")
_WORD = re.compile(r"[^\W\d_]+")
_ELIDED = re.compile(r"(?i)(?<![^\W\d_])n['’](?=[^\W\d_])|n['’]t\b")  # "n'y", "doesn't"
_QUESTION = ("?", "？")


@dataclass(frozen=True)
class _Language:
    english: frozenset[str]
    others: frozenset[str]
    min_words: int
    script_chars: int
    negations: frozenset[str]
    negation_marks: tuple[str, ...]
    interrogatives: tuple[str, ...]
    interrogative_marks: tuple[str, ...]


@lru_cache(maxsize=1)
def _language() -> _Language:
    with LANGUAGE_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    return _Language(english=frozenset(data["english"]), others=frozenset(data["others"]),
                     min_words=int(data["min_words"]), script_chars=int(data["script_chars"]),
                     negations=frozenset(data["negations"]),
                     negation_marks=tuple(data["negation_marks"]),
                     interrogatives=tuple(data["interrogatives"]),
                     interrogative_marks=tuple(data["interrogative_marks"]))


def _script(char: str) -> bool:
    """A letter of Chinese, Japanese, Cyrillic or Greek script."""
    return "\u3040" <= char <= "\u9fff" or "\u0370" <= char <= "\u04ff"


def foreign(text: str) -> bool:
    """`text` is written in another language than English: in another script, or with more of
    the other languages' function words than of English's."""
    lang = _language()
    if sum(_script(c) for c in text) >= lang.script_chars:
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    others = sum(w in lang.others for w in words)
    return len(words) >= lang.min_words and others >= 2 and others > sum(
        w in lang.english for w in words)


def negates(text: str) -> bool:
    """`text` negates something, in any language the table names."""
    lang = _language()
    words = {w.lower() for w in _WORD.findall(text)}
    return bool(words & lang.negations) or bool(_ELIDED.search(text)) or any(
        mark in text for mark in lang.negation_marks)


def plain_foreign(text: str) -> bool:
    return foreign(text) and not negates(text) and not any(q in text for q in _QUESTION)


_SENTENCES = re.compile(r"[^.!?。！？\n]+")


def _negation_at(sentence: str) -> int | None:
    """Where the first negation of `sentence` is, in any language the table names."""
    lang = _language()
    found = [m.start() for m in _WORD.finditer(sentence) if m.group().lower() in lang.negations]
    found += [m.start() for m in _ELIDED.finditer(sentence)]
    found += [i for mark in lang.negation_marks if (i := sentence.find(mark)) >= 0]
    return min(found, default=None)


def foreign_claim(text: str) -> bool:
    lang = _language()
    if not foreign(text) or any(q in text for q in _QUESTION):
        return False
    for sentence in _SENTENCES.findall(text):
        at = _negation_at(sentence)
        if at is None:
            continue
        after = sentence[at:]
        lowered = " " + " ".join(w.lower() for w in _WORD.findall(after)) + " "
        if any(f" {word} " in lowered for word in lang.interrogatives) or any(
                mark in after for mark in lang.interrogative_marks):
            return True
    return False
