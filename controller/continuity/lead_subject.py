"""Whether the item an answer leads with is the thing its question asked about. Pure.

The coverage gate grounds an answer only when an evidence item shows every word of the asked
subject; one word the code does not say ("where are the K1 and B values", "the smallest-fit
logic", "how the CLI prints its results") or a slip ("where does MemoryError get raisd")
leaves it ungrounded, though the item it leads with is plainly that thing. Such an answer's
claims still do not carry, but the object it put first is the object asked about: "it" in a
follow-up is that object (the gate's `object_only` carryover), when the lead shows all of the
subject's words but one and at least two of them (a noun naming a kind of code, "constants",
is no word of the subject). A subject with more than one word the lead
lacks ("the tokenizer cache size"), or with a single word shown ("the tokenizer cache"), asks
about something the answer never showed.
"""

from __future__ import annotations

from controller.continuity.spelling import one_edit
from controller.route import VOCABULARY, route_question
from controller.subject_words import subject_tokens
from controller.text import token_set
from helix.core.english import stems
from helix.core.envelope import Envelope
from helix.core.policy import RoutingPolicy

MIN_SHOWN = 2  # subject words a lead must show to lack one of them
MAX_UNSHOWN = 1
# the nouns naming a kind of code ("the BM25 constants", "which methods"), in any number: the
# subject is what they name, not the word (the coverage gate drops them in the singular only)
_KINDS = frozenset(stems(w)[0] for w in VOCABULARY.lists["kind_nouns"])


def _shown(word: str, tokens: frozenset[str], bases: frozenset[str]) -> bool:
    """The item says the word: as it is, inflected otherwise, or the word is a slip of one
    of the item's words."""
    return word in tokens or stems(word, "ending")[0] in bases \
        or any(one_edit(word, token) for token in tokens)


def mostly_shown(need: tuple[str, ...], tokens: frozenset[str]) -> bool:
    """The subject's words `need` (a kind noun left out) all shown, or all but `MAX_UNSHOWN`
    with `MIN_SHOWN` of them shown."""
    need = tuple(w for w in need if w not in _KINDS) or need
    bases = frozenset(stems(t, "ending")[0] for t in tokens)
    shown = sum(_shown(word, tokens, bases) for word in need)
    return shown == len(need) or (shown >= MIN_SHOWN and len(need) - shown <= MAX_UNSHOWN)


def lead_shows_subject(envelope: Envelope, lead_id: str, question: str) -> bool:
    """The answer's lead item (`lead_id`) shows the subject of the question's main slot but
    for one word (`mostly_shown`)."""
    item = next((e for e in envelope.evidence if e.id == lead_id), None)
    if item is None:
        return False
    plan = route_question(question, routing=RoutingPolicy())
    slots = plan.intent.slots
    phrases = plan.subjects.get(slots[0], ()) if slots else ()
    tokens = token_set(" ".join((item.text, item.heading or "", item.symbol or "",
                                 item.path.replace("/", " "))))
    return any(mostly_shown(subject_tokens(phrase), tokens) for phrase in phrases)
