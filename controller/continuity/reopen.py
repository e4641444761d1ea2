"""A request to show again the object in focus, whatever the reading made of it (T5).

"Step 4: re-display the method source", "REDISPLAY last answer", "helix-nvim: show again",
"sorry kid woke up. shwo the last thing agian", "plugin> reshow focused": a show verb or a
re-show verb with a word of again (`AGAIN`, read after the router's own misspellings are
respelt), while something is in focus, and what the verb asks to show names nothing but that
object: its own names, a kind or a part of an item ("the method source", "the relevant code"),
or words saying it was shown before ("the previously opened file", `shown_before`). Read as a
new question, a boundary, small talk, a cancel or a pivot, it is the object in focus shown
again. A question ("why does it build the index again?"), a named listed item, a position, a
scope ("again, code only") or a thing never shown ("show me the config loader again") is not.
"""

from __future__ import annotations

import re

from controller.continuity import phrases as say
from controller.continuity.item_names import (
    KIND_NOUNS,
    named_item,
    number_named,
    unmentioned_thing,
)
from controller.continuity.spelling import respelled
from controller.continuity.turn_plan import Turn, TurnPlan
from controller.continuity.vocabulary_data import VOCABULARY
from helix.core.english import FUNCTION_WORDS

_WORD = re.compile(r"[a-z][a-z0-9_]*")
_CLAUSE_END = re.compile(r"[,.;:!?]")
_MIN_PART = 3  # a shorter word is never read as a part of the focused object's name
SHOWN_BEFORE = frozenset(VOCABULARY["lists"]["shown_before"])
# plans that do nothing with the object in focus: a request to show it again overrides them
_OVERRIDDEN = frozenset({("T1", "root_question"), ("T10", "boundary"), ("T0", "small_talk"),
                         ("T6", "cancel"), ("T6", "pivot")})
_REFERRING = SHOWN_BEFORE | say.LIST_NOUNS - {"list"} | say.ITEM_PARTS | KIND_NOUNS


def shows_focus(t: Turn, plan: TurnPlan) -> bool:
    """The message asks to show the object in focus again (module docstring) and `plan` does
    nothing with it."""
    target = t.focused() or t.shown_lead()
    if target is None or (plan.transition, plan.intent) not in _OVERRIDDEN:
        return False
    text = respelled(t.body)[0].lower()
    asked = say.SHOW_AGAIN.search(text)
    if asked is None or not say.AGAIN.search(text) or say.QUESTION_LEAD.match(text) \
            or number_named(t) is not None or named_item(t) not in (None, _listed(t)) \
            or unmentioned_thing(t) is not None:  # "reopen the screenshot you sent"
        return False
    names = set(_WORD.findall(" ".join((target.label, target.path or "",
                                         target.symbol or "")).lower()))
    thing = _CLAUSE_END.split(say.AGAIN.sub(" ", asked.group("thing")))[0]
    words = _WORD.findall(thing)
    while words and words[0] in FUNCTION_WORDS:  # "me the class": what it asks to show ...
        words = words[1:]
    words = words[:next((i for i, w in enumerate(words) if w in FUNCTION_WORDS), len(words))]
    return all(w in _REFERRING or w in names or (len(w) >= _MIN_PART and any(
        w in n for n in names)) for w in words)


def _listed(t: Turn) -> object:
    """The listed item that is the object in focus, if any (naming it names the focus)."""
    target = t.focused() or t.shown_lead()
    pool = t.pool()
    if target is None or pool is None:
        return None
    return next((i for i in pool.items if target.id in (i.id, i.target.id)), None)
