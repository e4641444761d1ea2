"""What people say to a code assistant, as patterns: the router's vocabulary.

The patterns are data (`vocabulary.toml` beside this module: each with its purpose, the
messages it takes and, for a whole-message pattern, the intent the router gives it); this
module compiles them once and composes the small-talk ones from their word lists. Every pattern
matches a whole normalized message body (lower case, punctuation other than path characters
dropped, polite lead-ins such as "please" / "can you" removed by `body`). Pure: no state; the
file is read once at import.
"""

from __future__ import annotations

import re
from typing import Literal

from controller.continuity.pending import normalize, strip_filler
from controller.continuity.state import OptionSetKind
from controller.continuity.vocabulary_data import PATTERNS, VOCABULARY, filler, positions_said
from helix.core.english import word_alternation

SmallTalkKind = Literal["greeting", "thanks", "acknowledgement", "farewell", "capabilities",
                        "identity"]



def _compiled(name: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(PATTERNS[name]["regex"], flags)


# --- small talk: a whole message that is not about the repository ----------------------------
_WORDS = VOCABULARY["words"]
_GREETING, _THANKS, _ACK, _FAREWELL, _JOIN = (
    _WORDS["greeting"], _WORDS["thanks"], _WORDS["ack"], _WORDS["farewell"], _WORDS["join"])
_CAPABILITIES = _compiled("_CAPABILITIES")
_IDENTITY = _compiled("_IDENTITY")
_SMALL_TALK_WORDS = re.compile(
    rf"^(?:(?:{_GREETING}|{_THANKS}|{_ACK}|{_FAREWELL})(?:\s+|$))+$")
_KIND_ORDER: tuple[tuple[SmallTalkKind, re.Pattern[str]], ...] = (
    ("farewell", re.compile(rf"\b{_FAREWELL}\b")),
    ("thanks", re.compile(rf"\b{_THANKS}\b")),
    ("greeting", re.compile(rf"\b{_GREETING}\b")),
    ("acknowledgement", re.compile(rf"\b{_ACK}\b")),
)
# a small-talk lead-in before the real message ("thanks, where is ...", "ok so open it")
_SMALL_TALK_LEAD = re.compile(
    rf"^\s*(?:(?:(?:{_GREETING}|{_THANKS}|{_ACK})\s*)+[,;:!.]+\s*(?:{_JOIN}\s+)*|"
    rf"(?:(?:{_THANKS}|{_ACK})\s+)+{_JOIN}\s+)", re.IGNORECASE)

# --- hard interrupts, corrections, "tell me more", pivots ------------------------------------
RESET = _compiled("RESET")
CANCEL = _compiled("CANCEL")
CORRECTION = _compiled("CORRECTION")
OTHER = _compiled("OTHER")
_CORRECTION_REST_LEAD = _compiled("_CORRECTION_REST_LEAD")
TELL_MORE = _compiled("TELL_MORE")
TELL_MORE_PRONOUN = _compiled("TELL_MORE_PRONOUN")
PIVOT = _compiled("PIVOT")

# --- selection: a command, an ordinal, a kind word, "the X one" -------------------------------
POLITE_LEAD = _compiled("POLITE_LEAD")
CHANNEL_TAG = _compiled("CHANNEL_TAG", re.IGNORECASE)
COMMAND = _compiled("COMMAND")
THE_X_ONE = _compiled("THE_X_ONE")
FOCUS_WORDS = _compiled("FOCUS_WORDS")
MIXED = _compiled("MIXED")
PATH_CUE = _compiled("PATH_CUE")
RERUN_FILLER = filler("rerun")
SOURCE_CUE = _compiled("SOURCE_CUE")
SCOPE_EXCLUDE = _compiled("SCOPE_EXCLUDE")
SCOPE_KIND: dict[str, str] = dict(VOCABULARY["scope_kind"])
SPOKEN_NUMBERS: dict[str, int] = dict(VOCABULARY["spoken_numbers"])
SCOPE_FOLDER: dict[str, str] = dict(VOCABULARY["scope_folder"])
LIST_NOUNS: frozenset[str] = frozenset(VOCABULARY["lists"]["list_nouns"])
CARDINALS: frozenset[str] = frozenset(VOCABULARY["lists"]["cardinals"])
ITEM_PARTS: frozenset[str] = frozenset(VOCABULARY["lists"]["item_parts"])
SOURCE_KIND: dict[str, OptionSetKind] = dict(VOCABULARY["source_kind"])
QUESTION_LEAD = _compiled("QUESTION_LEAD")
DEICTIC = _compiled("DEICTIC")
AGAIN = _compiled("AGAIN")
GRAPH_EDGE = _compiled("GRAPH_EDGE")
TEST_POINTER = _compiled("TEST_POINTER")
SHOW_AGAIN = _compiled("SHOW_AGAIN")
SENSE_WORDS = _compiled("SENSE_WORDS")
AWAY_WORDS = _compiled("AWAY_WORDS")

# --- object follow-ups over the graph; semantic follow-ups; meta; recap ------------------------
CALLERS = _compiled("CALLERS")
TESTS = _compiled("TESTS")
WHY_ACTION = _compiled("WHY_ACTION")
WHAT_HAPPENED = _compiled("WHAT_HAPPENED")
ENTITY_MEANING = _compiled("ENTITY_MEANING")
ENTITY_REFERENT = _compiled("ENTITY_REFERENT", re.IGNORECASE)
META = _compiled("META")
MENTIONED_THING = _compiled("MENTIONED_THING")  # "the plot you mentioned"
META_ASKED = _compiled("META_ASKED")  # "how sure are you that ...", "where did you get that"
RECAP = _compiled("RECAP")
RECAP_ASKED = _compiled("RECAP_ASKED")  # whether a topic came up: "did we cover X"
RECAP_CHANGED = _compiled("RECAP_CHANGED")  # a recap asking what changed under an answer
BACK = _compiled("BACK")


def body(text: str) -> str:
    """The message as the router reads it: normalized, filler and polite lead-ins dropped, a
    position said without an ordinal written as one ("the one before last": the filler
    "the one" would take it apart otherwise)."""
    return POLITE_LEAD.sub("", strip_filler(normalize(positions_said(text)))).strip()


def small_talk(text: str) -> SmallTalkKind | None:
    """The kind of small talk when the WHOLE message is small talk, else None."""
    plain = re.sub(r"[,;:.!?]+", " ", normalize(text))
    plain = re.sub(r"\s+", " ", plain).strip()
    if not plain:
        return None
    if _CAPABILITIES.match(plain):
        return "capabilities"
    if _IDENTITY.match(plain):
        return "identity"
    if not _SMALL_TALK_WORDS.match(plain):
        return None
    return next(kind for kind, pattern in _KIND_ORDER if pattern.search(plain))


def small_talk_kind(text: str) -> SmallTalkKind | None:
    """The kind of small talk a message contains anywhere ("awesome, thanks a bunch!")."""
    plain = re.sub(r"\s+", " ", re.sub(r"[,;:.!?]+", " ", normalize(text))).strip()
    return next((kind for kind, pattern in _KIND_ORDER if pattern.search(plain)), None)


def without_channel_tag(text: str) -> str:
    """`text` without a leading tag that says who sends it or which step it is ("[ci-bot] ",
    "agent> ", "@helper maria asks: ", "Step 3: "): the rest is the message."""
    match = CHANNEL_TAG.match(text)
    return text[match.end():].strip() if match and match.end() < len(text.rstrip()) else text


# dictated punctuation: a mark said as its name where the mark goes ("who calls it question
# mark", "same question comma but only in docs period"); "question mark" after an article
# is a thing asked about ("how is a question mark parsed"), "comma" after one or before
# "separated" too ("split on the comma"), and "period" only in a message that says another
# mark ("the retry period" is a word)
_SAID_END = re.compile(r"(?P<before>\w+)\s+question mark\s*$", re.IGNORECASE)
_ARTICLES = frozenset({"a", "an", "the", "one", "each", "every"})
_SAID_MID = re.compile(r"(?<=\w)\s+(?:comma|colon)\s+(?!separated|delimited)(?=\w)",
                       re.IGNORECASE)
_SAID_PERIOD = re.compile(r"\s+(?:period|full stop)\s*$", re.IGNORECASE)
_MARK_OWNERS = ("a", "an", "the", "on", "by", "each", "every", "per")
_AFTER_ARTICLE = re.compile(rf"\b(?:{word_alternation(_MARK_OWNERS)})\s+(?:comma|colon)\b",
                            re.IGNORECASE)


def spoken_marks(text: str) -> str:
    """`text` with its dictated punctuation written as the marks ("who calls it?")."""
    if _AFTER_ARTICLE.search(text):
        return text
    said = _SAID_MID.sub(lambda m: ", " if "comma" in m.group(0).lower() else ": ", text)
    said = _SAID_END.sub(lambda m: m.group(0) if m.group("before").lower() in _ARTICLES
                         else m.group("before") + "?", said)
    if said != text:
        said = _SAID_PERIOD.sub(".", said)
    return said


def without_small_talk_lead(text: str) -> str:
    """`text` without a leading "thanks," / "ok so" / "hello," (the rest is the message)."""
    match = _SMALL_TALK_LEAD.match(text)
    return text[match.end():].strip() if match else text.strip()


def correction_rest(rest: str | None) -> str:
    """What a correction names after "no, not that one," ("the BM25Index one")."""
    return _CORRECTION_REST_LEAD.sub("", (rest or "").strip(" ,;:")).strip()
