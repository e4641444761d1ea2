"""The other sense of the root question after one was chosen: what a correction or a message
pointing away means when a sense clarifier's choice stands (the rules `other_sense` and
`correction` read it), and which sense a message that speaks of a sense in words neither
option's label says describes (`sense_options`, `sense_by_meaning`: by the sentence encoder's
vectors, which the reader computes). Pure."""

from __future__ import annotations

import re

from controller.continuity import phrases as say
from controller.continuity.state import OptionItem
from controller.continuity.turn_plan import Turn, TurnPlan

SENSE_PREFIX = "sense:"
_SENSE_PREFIX = SENSE_PREFIX


def _label_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def other_sense_option(t: Turn, rejected: str, rest: str) -> OptionItem | None:
    """After a sense was chosen, the one other sense a correction means: "the other one",
    "the other meaning, of the light" (a word of sense), "the other cavity, the storage kind"
    (a word of the other sense's description), "other one, quick" (words naming nothing
    listed); None for another item of a list (`_names_listed`)."""
    if not rejected.startswith(_SENSE_PREFIX) or t.state.root_frame is None:
        return None
    options = next((s for s in t.state.option_sets
                    if any(i.id == rejected for i in s.items)), None)
    items = options.items if options else ()
    others = [i for i in items if i.id != rejected]
    if len(others) != 1 or not others[0].sense:
        return None
    # the words that tell the other sense from the chosen one (never the term itself)
    described = _label_words(others[0].label) - set().union(
        *(_label_words(i.label) for i in items if i.id == rejected))
    term = set.intersection(*(_label_words(i.label) for i in items))
    if rest and not say.SENSE_WORDS.search(rest) and not described & set(rest.split()) \
            and _names_listed(t, _label_words(rest) - term):
        return None
    return others[0]


def _names_listed(t: Turn, words: set[str]) -> bool:
    """A word of a correction's rest is a word of an item the list on screen shows (its
    label, path or symbol): "no, the other one, the tokenizer test" names an item."""
    pool = t.pool()
    shown: set[str] = set()
    for item in pool.items if pool else ():
        shown |= _label_words(" ".join((item.label, item.sublabel or "", item.target.path or "",
                                        item.target.symbol or "")).replace("_", " "))
    return bool(words & shown)


def other_sense(t: Turn) -> TurnPlan | None:
    """ "now the other meaning", "could we look at the storage meaning now?": after a sense of
    the root question was chosen, a message that speaks of a sense (`SENSE_WORDS`) and points
    away from the chosen one (the other, another, or a word only the other sense's option
    says) asks the root question in the other sense (T2), even when an item was opened since
    (the last accepted choice is then that item, not the sense); so does a message pointing
    away that names a word only the other sense's option says ("other one. optics")."""
    root = t.state.root_frame
    sensed = bool(say.SENSE_WORDS.search(t.body))
    away = bool(say.AWAY_WORDS.search(t.body))
    if root is None or root.sense is None or not (sensed or away):
        return None
    chosen = next((c for c in t.state.recent_accepted_choice_ids
                   if c.startswith(_SENSE_PREFIX)), None)
    if chosen is None or chosen[len(_SENSE_PREFIX):] != root.sense:
        return None
    other = other_sense_option(t, chosen, t.body)
    described = other is not None and _described(t, chosen, other)
    if other is None or not (described if not sensed else away or described):
        return None
    return t.plan("root_followup_scope_change", "root", "correct_choice",
                  f"the other sense {other.sense} instead of {root.sense}",
                  question=root.question, scope=root.path_scope, sense=other.sense,
                  rejected_choice_id=chosen)


def _described(t: Turn, chosen: str, other: OptionItem) -> bool:
    """The message names a word of the other sense's option that the chosen one's lacks."""
    options = next((s for s in t.state.option_sets if any(i.id == chosen for i in s.items)),
                   None)
    mine = next((i for i in options.items if i.id == chosen), None) if options else None
    words = set(re.findall(r"[a-z]{4,}", other.label.lower()))
    words -= set(re.findall(r"[a-z]{4,}", mine.label.lower())) if mine else set()
    return bool(words & set(re.findall(r"[a-z]+", t.body)))


def names_a_sense(t: Turn) -> bool:
    """After a sense of the root question was chosen, the message speaks of a sense
    (`SENSE_WORDS`: "the optics sense now", "flip to the laser/mirror meaning") and names no
    word only the chosen sense's option says: a word there names a sense, not a folder of the
    same name, and the sense it names is the other one."""
    state, root = t.state, t.state.root_frame
    chosen = next((c for c in state.recent_accepted_choice_ids
                   if c.startswith(_SENSE_PREFIX)), None)
    if root is None or root.sense is None or chosen is None or not say.SENSE_WORDS.search(t.body):
        return False
    options = next((s for s in state.option_sets if any(i.id == chosen for i in s.items)), None)
    labels = {i.id: _label_words(i.label) for i in (options.items if options else ())}
    mine = labels.get(chosen, set()) - set().union(*(w for c, w in labels.items() if c != chosen))
    return not mine & _label_words(t.body)


def other_sense_pick(t: Turn) -> TurnPlan | None:
    """A pick "the X one" with nothing listed by that name, or no list at all ("now the memory
    one", "the laser one now"), after a sense of the root question was chosen: the choice the
    message points back to is the sense, so one that names no number and no word only the
    chosen sense's option says is the other sense (T2)."""
    root, state = t.state.root_frame, t.state
    chosen = next((c for c in state.recent_accepted_choice_ids if c.startswith(_SENSE_PREFIX)),
                  None)
    if root is None or root.sense is None or chosen is None \
            or chosen[len(_SENSE_PREFIX):] != root.sense or re.search(r"\d", t.body) \
            or not re.search(r"\bone\b", t.body):
        return None
    options = next((s for s in state.option_sets if any(i.id == chosen for i in s.items)), None)
    labels = {i.id: _label_words(i.label) for i in (options.items if options else ())}
    mine = labels.get(chosen, set()) - set().union(*(w for c, w in labels.items() if c != chosen))
    other = other_sense_option(t, chosen, "")
    if other is None or mine & _label_words(t.body):
        return None
    return t.plan("root_followup_scope_change", "root", "correct_choice",
                  f"a pick naming nothing listed after the sense {root.sense} was chosen: the "
                  f"other sense {other.sense}", question=root.question, scope=root.path_scope,
                  sense=other.sense, rejected_choice_id=chosen)


# how much closer (cosine, rounded as the classifier rounds) the message must be to the other
# sense's description than to the chosen one's for `sense_by_meaning` to take the other sense
SENSE_MARGIN = 0.1


def _chosen_senses(t: Turn) -> tuple[str, tuple[OptionItem, ...]] | None:
    """The sense of the root question the user chose (the last accepted sense choice, also
    when an item was opened since) and its clarifier's options, when there were two senses."""
    root = t.state.root_frame
    chosen = next((c for c in t.state.recent_accepted_choice_ids
                   if c.startswith(_SENSE_PREFIX)), None)
    if root is None or root.sense is None or chosen is None \
            or chosen[len(_SENSE_PREFIX):] != root.sense:
        return None
    options = next((s for s in t.state.option_sets if any(i.id == chosen for i in s.items)),
                   None)
    items = options.items if options else ()
    if len(items) != 2 or not all(i.sense for i in items):
        return None
    return chosen, items


def sense_options(t: Turn) -> tuple[OptionItem, ...]:
    """The two senses to tell apart by meaning: after a sense of the root question was chosen,
    a message that speaks of a sense (`SENSE_WORDS`: "same question but for the allocator
    sense") and says no word that only one option's label says (the rules read those:
    `other_sense`, `names_a_sense`). The reader embeds their descriptions (`Features.senses`);
    () otherwise (nothing is embedded)."""
    found = _chosen_senses(t)
    if found is None or not say.SENSE_WORDS.search(t.body):
        return ()
    _, items = found
    first, second = (_label_words(i.label) for i in items)
    said = set(re.findall(r"[a-z]+", t.body.lower()))
    return () if said & (first ^ second) else items


def sense_by_meaning(t: Turn, scores: tuple[float, ...], rules: str) -> TurnPlan | None:
    """The root question in the other sense (T2) when the message (`sense_options`) is closer
    to the other sense's description than to the chosen one's by `SENSE_MARGIN` (`scores`:
    its cosine to each option's description, in the options' order): it describes the other
    sense in words of its own. None when it is not clearly closer, nothing was scored, or the
    vocabulary's rules read the message as something other than a new question (`rules`: their
    reading, `meaning.meaning_of`; a boundary is no reading)."""
    found = _chosen_senses(t)
    options = sense_options(t)
    if rules not in ("new_question", "boundary") or found is None or not options \
            or len(scores) != len(options):
        return None
    chosen, _ = found
    mine = next(s for o, s in zip(options, scores, strict=True) if o.id == chosen)
    other, theirs = next((o, s) for o, s in zip(options, scores, strict=True) if o.id != chosen)
    root = t.state.root_frame
    if root is None or round(theirs - mine, 4) < SENSE_MARGIN:
        return None
    return t.plan("root_followup_scope_change", "root", "correct_choice",
                  f"the other sense {other.sense} by meaning: the message is closer to its "
                  f"description ({theirs:.2f}) than to the chosen one's ({mine:.2f})",
                  question=root.question, scope=root.path_scope, sense=other.sense,
                  rejected_choice_id=chosen)
