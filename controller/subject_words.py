"""The words of a question's subject: what an item must show to show a subject phrase, the
question's own frame (asking verbs, hedges, kind nouns, fillers) left out. Pure; shared by the
coverage gate (`controller.coverage`) and the continuity lanes (`continuity.lead_subject`),
which may not import the gate's module (it reaches the ports)."""

from __future__ import annotations

from functools import lru_cache

from controller.route import VOCABULARY
from controller.text import is_identifier, phrase_tokens
from helix.core.english import FUNCTION_WORDS, QUESTION_WORDS, stems, verb_form_of
from indexers.tokenize import expand, words

# The words a question is asked with, in any inflection ("what does idf compute?" asks about idf:
# "computed" is an asking word, so "compute" and "computes" are too).
_ASKING = frozenset(QUESTION_WORDS - FUNCTION_WORDS)
_ASKING_BASES = frozenset(b for w in _ASKING for b in stems(w, "inflection"))
# Words of the question's frame, never of its subject: hedges ("exactly"), the nouns naming a
# kind of code ("the rebuild method"), fillers ("now") (controller/route_phrases.toml).
_FRAME_WORDS = frozenset(w for name in ("hedges", "kind_nouns", "fillers")
                         for w in VOCABULARY.lists[name] if w.isalpha())


def _frame_word(word: str) -> bool:
    """An asking word in any verb form ("computes", "compute" for "computed"; an -ing form
    is a noun as often as a verb: "setting"), a hedge, a kind noun, a filler."""
    low = word.lower()
    return (low in QUESTION_WORDS or low in _FRAME_WORDS or low in _ASKING_BASES
            or verb_form_of(low, _ASKING_BASES))


@lru_cache(maxsize=4096)
def subject_tokens(phrase: str) -> tuple[str, ...]:
    """The tokens an item must show to show a subject phrase, read the way the router reads a
    question: each word stemmed as the index stems it, an identifier whole, without function
    words and the question's own frame (asking verbs in any inflection, hedges, kind nouns):
    "idf compute" (from "what does idf compute?") -> ("idf",); "rebuild method engine" ->
    ("rebuild", "engine"). A phrase that is all frame keeps every token (`phrase_tokens`)."""
    out: list[str] = []
    for word in words(phrase.replace("`", " ")):
        if is_identifier(word):
            out.append(stems(word.lower())[0])
        elif not _frame_word(word):
            out += [stems(t)[0] for t in expand(word)]
    return tuple(dict.fromkeys(out)) or phrase_tokens(phrase)
