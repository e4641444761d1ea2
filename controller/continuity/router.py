"""Route one turn: which lane handles it, under which named transition, aimed at what.

Pure: `route_turn(state, text, reply_to, settings, turns=..., now_ms=..., reader=...) -> TurnPlan`.

Two readers of a message. The vocabulary's rules (`rules.py`, the table below) read the exact
things: ordinals, paths, names, the whole-message phrases of vocabulary.toml. The meaning router
(`reader`: the session's driver embeds the message through its Embedder port and classifies it
with `meaning.classify`) reads what the words mean, with the state and the rules' own reading as
features; `readings.plan_for` turns its class into a plan. A hard interrupt ("start over",
"stop"), a strict answer to a pending question and continuity switched off are exact: the rules
decide those alone. When the meaning router is unsure, the plan carries one line saying how the
turn was read (`announce`); when two readings are close, both are offered as a two-option
clarifier (`clarify_reading`, a `repair` pending whose answer re-reads the message); a
follow-up-looking message, or one read below a bar chosen on data (`announce.py`), never
becomes a silent search. Without a reader (`continuity.router = "rules"`, no encoder) the rules.

`RULES` is the precedence, top to bottom, first match wins (each rule: a matcher that returns a
plan or None). After a rule matched, the coverage gate decides whether a gated transition may
consume the last answer (`gate`); a follow-up whose prior state is missing or not admitted becomes
a truthful boundary (T10) that says why.

    rule                 says                                         transition
    start_over           "start over", "let's start over"            T1 root_query_entry (reset)
    cancel               "stop", "never mind"                        T6 pivot_root_only_carryover
    continuity_off       (continuity.grounding_continuity false)     T1 for every other turn
    pending_answer       a strict answer to a sense clarifier        T7 clarification_continuation
                         ("the second one") / a retry offer ("yes")  (T6 for "no"); to a selection
                         / a selection clarifier ("the test one")    clarifier: T3, resolved by the
                                                                     lane's gates, not the pending
    small_talk           "hello", "thanks!", "ok", "what can you do?"  T0 small_talk (no retrieval)
    scope_rerun          "same question but only in tests/"          T2 root_followup_scope_change
    other_sense          "now the other meaning" (a sense chosen)     T2 root, the other sense
    correction           "no, the other one", "wrong one"            T3 (T2 for another sense)
    never_shown          "the plot you mentioned" (never said)        T10 boundary
    tell_me_more         "tell me more about the first one"          T3 + retrieval around it
                         "explain it", "tell me more about that"     T4 (focus) / T3 (answer lead)
    selection            "open the second one", "the test one"       T3 explicit drilldown
                         "open it", "show it again"                  T5 pronoun follow-up
    graph                "who calls it?", "is it tested?"            T4 short action on the object
                         (nothing opened: the answer's lead item;    T3, then the graph
                         "who calls the second one?")
    semantic             "why did you open that?", "what happened?"  T8 / T9 (semantic lane)
    meta                 "is that the only place?", "are you sure?"  T8 meta_followup_over_answer
    recap                "did we talk about the tokenizer?"          T9 memory_recap
    back_to_list         "back to the list"                          T6
    pivot                "what about the tokenizer?"                 T6 + retrieval, root scope kept
    root_question        anything else                               T1 root_query_entry
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from controller.continuity import phrases as say
from controller.continuity.announce import unsure_new_search
from controller.continuity.focus import TurnSummary, resolve_focus
from controller.continuity.item_names import (
    MIN_NAME_CHARS,
    described_item,
    focus_named,
    message_tokens,
    own_name_parts,
    spelt_as_words,
)
from controller.continuity.meaning import MEANINGS, Reader, features, meaning_of, said
from controller.continuity.pending import match_pending_turn, normalize, strip_filler
from controller.continuity.readings import names_focus, plan_for, shows_focus_again
from controller.continuity.reopen import shows_focus
from controller.continuity.rules import RULES, gate
from controller.continuity.senses import sense_by_meaning
from controller.continuity.spelling import misspelt_words, respelled
from controller.continuity.state import ContinuityState, TargetRef
from controller.continuity.structured import plain_words
from controller.continuity.transitions import prior_state_ok
from controller.continuity.turn_plan import Reading, Turn, TurnPlan, hold_selection_pending
from controller.continuity.wording import pivot_question
from controller.question_words import respelt_question_words
from controller.route import route_question
from controller.text import is_identifier
from helix.core.config import ContinuitySettings
from helix.core.policy import RoutingPolicy

FOLLOW_UP_WORDS_MAX = 4  # a message this short after an answer looks like a follow-up
# a message that opens with one of these continues the conversation ("and what about X?")
CONTINUING_LEADS = ("and", "also", "what about", "how about")
# ... or a later clause opening with these ("thanks! one more thing, what about the index?")
CLAUSE_LEADS = ("what about", "how about")
_CLAUSE_BREAK = re.compile(r"[,;:!?.]\s+|\s+[-\u2013\u2014]+\s+")
# the rescue bar for a message that does not ask a question in full (`_asks_in_full`): read
# by its meaning at a lower probability than `router_rescue` (leave-one-writer-out scored as
# held-apart sets are, benchmarks/router_lowo_audit.py: see the commit adding it)
RESCUE_NOT_ASKED = 0.35
# the rescue bar for a T4/T5 plan on the object in focus that the message points at with a
# pronoun or "that" (`_pointed_focus_action`): the head spreads such short or oddly worded
# questions over look-alike readings ("the user wants the tests for it": callers 0.35);
# 0.35 -> 0.25 on the tune files: +9 -1 turns (router26b's commit)
RESCUE_POINTED = 0.25


def route_turn(state: ContinuityState, text: str, reply_to: int | None,
               settings: ContinuitySettings, *, turns: Sequence[TurnSummary] = (),
               now_ms: int = 0, reader: Reader | None = None) -> TurnPlan:
    text = plain_words(text)  # '{"action": "callers"}', "<followup>...</followup>": the words
    text = say.without_channel_tag(text)  # "[ci-bot] reopen: ...": the tag asks nothing
    text = say.spoken_marks(text)  # "who calls it question mark": "who calls it?"
    text = respelt_question_words(text)[0]  # "wot calls it": "what calls it"
    last = turns[-1].transition if turns else None
    t, plan = _by_rules(state, text, reply_to, settings, turns, now_ms, last)
    if reader is None or not settings.grounding_continuity:
        return hold_selection_pending(t, plan)
    pending = state.pending
    if pending is not None and pending.clarifier_type == "repair" \
            and t.pending.status == "applied":
        return _repaired(state, t, reply_to, settings, turns, now_ms, last)
    # exact: the rules decide alone (a source cue only when they acted on it: a cue inside a
    # message they took for a new question is no reading of it, "did you take it from tests?")
    if t.pending.status == "applied" or say.RESET.match(t.body) or say.CANCEL.match(t.body) \
            or (say.SOURCE_CUE.search(t.body) and plan.intent != "root_question"):
        return hold_selection_pending(t, plan)
    f = features(t, plan)
    reading = reader(f)
    if reading is None:  # the reader could not load its model: the rules decide alone
        return hold_selection_pending(t, plan)
    return hold_selection_pending(t, read_plan(t, plan, reading, exact=f.exact))


def _by_rules(state: ContinuityState, text: str, reply_to: int | None,
              settings: ContinuitySettings, turns: Sequence[TurnSummary], now_ms: int,
              last: str | None) -> tuple[Turn, TurnPlan]:
    """The vocabulary router: (the turn as read, its plan)."""
    t, plan = _route(state, text, reply_to, settings, turns, now_ms, last)
    if plan.intent != "root_question" or not settings.grounding_continuity:
        return t, plan
    # a misspelt follow-up ("who clals it") reads as a new question: the router's own words
    # respelt, taken only when that makes it a follow-up (`spelling`)
    fixed, read = respelled(text)
    if not read:
        return t, plan
    _, second = _route(state, fixed, reply_to, settings, turns, now_ms, last)
    if second.intent == "root_question":
        return t, plan
    said = ", ".join(f"'{typed}' as '{word}'" for typed, word in read)
    return t, second.model_copy(update={"reasons": (*second.reasons, f"read {said}")})


def _turn(state: ContinuityState, text: str, reply_to: int | None,
          settings: ContinuitySettings, turns: Sequence[TurnSummary], now_ms: int,
          last: str | None) -> Turn:
    chosen = state.selected_object
    selected = chosen.focus_object_ref if chosen and not chosen.shown_only else None
    focus = resolve_focus(turns, session_id=state.session_id, text=text, reply_to=reply_to,
                          selected=selected, settings=settings)
    message = say.without_small_talk_lead(text)
    body = say.body(message)
    mixed = say.MIXED.search(body)
    return Turn(state=state, text=text, reply_to=reply_to, settings=settings, focus=focus,
                body=body, plain=strip_filler(normalize(message)),
                core=body[:mixed.start()] if mixed else body,
                clause=mixed.group("clause") if mixed else None,
                turn_id=state.turn_count + 1, now_ms=now_ms,
                last_transition=last)  # type: ignore[arg-type]


def _route(state: ContinuityState, text: str, reply_to: int | None,
           settings: ContinuitySettings, turns: Sequence[TurnSummary], now_ms: int,
           last: str | None) -> tuple[Turn, TurnPlan]:
    t = _turn(state, text, reply_to, settings, turns, now_ms, last)
    if state.pending is not None and settings.grounding_continuity \
            and not say.RESET.match(t.body) and not say.CANCEL.match(t.body):
        t.pending = match_pending_turn(state, text, reply_to, settings, t.turn_id, now_ms)
        if t.pending.status != "applied":
            t.reasons.append(f"pending dropped: {t.pending.reason or t.pending.status}")
    for name, matcher in RULES:
        plan = matcher(t)
        if plan is not None:
            return t, gate(t, plan).model_copy(update={"rule": name})
    raise AssertionError("root_question always matches")


# --- the meaning router's reading ----------------------------------------------------------

def read_plan(t: Turn, rules_plan: TurnPlan, reading: Reading, *,
              exact: bool = True) -> TurnPlan:
    """The plan for `reading`, then whether to say how the turn was read, or to ask which of
    two readings it was. The vocabulary's rules are exact where they match: their plan stands
    when they read the same meaning (a pick they could not place is placed by the reading:
    a described option of a pending clarifier, a number or a name anywhere in the message),
    and against another reading unless that one is sure (`router_override` when the rules read
    something `exact` in it, else `router_phrase`); a message the rules took for a new question
    or could not act on is planned from its reading."""
    meaning, rules = reading.meaning, meaning_of(rules_plan)
    plan: TurnPlan | None = rules_plan
    if meaning == rules == "new_question" and _continues(t):
        # "also, how does the engine rebuild things?": read as a question of its own, but the
        # lead says it continues the conversation: the root question of that subject (T6)
        plan = plan_for("pivot", t, reading)
    elif meaning == rules:
        if meaning == "pick" and _unplaced(t, rules_plan):
            plan = plan_for(meaning, t, reading)
    elif meaning == "reopen" and rules == "pick" and names_focus(t):
        plan = plan_for(meaning, t, reading)  # picking what is in focus shows it again (T5)
    elif reading.forced:
        plan = plan_for(meaning, t, reading)
    elif meaning == "pivot" and rules == "new_question" and _continues(t):
        # "and teh Cavity class itslef?": the lead says the message continues the
        # conversation, the reading says how (the root question of another subject, T6)
        plan = plan_for(meaning, t, reading)
    else:
        plan = _acted_on(t, reading, rules, exact)
        if plan is None and rules == "new_question" and _continues(t):
            # "and who creates the pool?" read as another follow-up, not surely enough to act
            # on: the lead says it continues the conversation (the root question, T6)
            plan = plan_for("pivot", t, reading)
    if plan is None:  # the meaning cannot be acted on here: the rules' reading stands
        plan = rules_plan
    sensed = sense_by_meaning(t, reading.sense_scores, rules)  # a sense in no label's words
    plan = gate(t, sensed) if sensed is not None else plan
    kept = plan is rules_plan
    again = shows_focus(t, plan)  # "re-display the method source": the object in focus (T5)
    if shows_focus_again(t, plan) or again:  # "show that file again": the focused object (T5)
        plan = plan_for("reopen", t, reading) or plan
    # a vocabulary pattern that matched is a sure reading (the classifier agreeing or not);
    # the rules' fallback (a new question) is no reading: an unsure one is said back, but
    # with the classifier reading a new question too there is no two-readings clarifier
    agreed = kept and rules not in ("new_question", "boundary")
    both_new = kept and meaning == rules == "new_question"
    led = meaning in ("pivot", "new_question") and plan is not rules_plan \
        and _continues(t)  # no two readings
    plan = plan.model_copy(update={"reading": reading, "reasons": (
        *plan.reasons[:-1], f"read as {meaning} ({reading.confidence:.2f})",
        *plan.reasons[-1:])})
    if reading.forced:
        return plan
    skip = agreed or both_new or led or again or sensed
    close = None if skip else _close_reading(t, plan, reading)
    if close is not None:
        return close
    return _announced(t, plan, reading, rules, agreed)


def _action(plan: TurnPlan) -> tuple[str, str, str]:
    """What a plan does: its transition, lane and intent, a graph question's edge kind aside
    ("who calls it" and "which tests cover it" both follow the graph from the object)."""
    intent = "graph" if plan.intent.startswith("graph_") else plan.intent
    return plan.transition, plan.lane, intent


# plans that end the exchange without a search: small talk ("thanks, that's all") and a cancel
# ("never mind, that's enough"); a closing read as both is no question to search for
_CLOSINGS = frozenset({("T0", "chat", "small_talk"), ("T6", "interrupt", "cancel")})


def _same_action(a: TurnPlan, b: TurnPlan, closings: bool = False) -> bool:
    """Two plans that do the same kind of thing (a boundary is no action), or, with
    `closings`, two closings (`_CLOSINGS`)."""
    return a.transition != "T10" and (_action(a) == _action(b) or (
        closings and {_action(a), _action(b)} <= _CLOSINGS))


ASKING_CLAUSE_WORDS = 3  # a clause this long that opens with a question word asks something


def _asks_somewhere(t: Turn) -> bool:
    """A clause of the message opens with a question word (after at most one word) and says more
    than two ("migrations, how do I run them, quick"): it asks something, so it is no closing."""
    for clause in (say.body(c).split() for c in re.split(r"[,.;:!?]", t.text)):
        # the question word first, or after one word of lead-in ("um how do we ...")
        for words in (clause, clause[1:]):
            if len(words) >= ASKING_CLAUSE_WORDS and say.QUESTION_LEAD.match(" ".join(words)):
                return True
    return False


def _acted_on(t: Turn, reading: Reading, rules: str, exact: bool = True) -> TurnPlan | None:
    """The plan of the first reading that can be acted on in this state, when it is sure
    enough against the rules' reading (`router_rescue` against a new question or nothing,
    at most `RESCUE_NOT_ASKED` for a message that does not ask a question in full,
    `router_override` against another rule's exact reading, `router_phrase` against one read
    from its phrases alone): the bars apply to what the router would do,
    not to one class. A reading the state rules out (a narrowing that names no scope, a
    pick with nothing to pick) passes its probability on: the others are read given that
    it is not meant; readings that would do the same ("which tests cover it" / "who calls
    it": one graph follow-up on the object) add up. None: the rules' reading stands."""
    s = t.settings
    base = s.router_rescue if rules in ("new_question", "boundary") else (
        s.router_override if exact else s.router_phrase)
    if rules in ("new_question", "boundary") and not _asks_in_full(t):
        base = min(base, RESCUE_NOT_ASKED)

    def bar(plan: TurnPlan) -> float:
        if rules == "new_question" and _unpointed_focus_action(t, plan):
            return max(base, s.router_phrase)
        if rules in ("new_question", "boundary") and _pointed_focus_action(t, plan):
            return min(base, RESCUE_POINTED)
        return base

    first = plan_for(reading.meaning, t, reading)
    if first is not None and reading.confidence >= bar(first):
        return first
    readings = ((reading.meaning, reading.confidence), *reading.alternatives)
    plans = [(readings[0][0], readings[0][1], first), *(
        (m, p, plan_for(m, t, reading) if m != rules else None) for m, p in readings[1:])]
    left = 1.0 - sum(p for m, p, plan in plans if plan is None and m != rules)
    for m, p, plan in plans:
        if m == rules or left <= 0:
            return None
        if plan is None:
            continue
        closings = not _asks_somewhere(t)
        same = sum(q for n, q, other in plans if n != m and other is not None
                   and _same_action(other, plan, closings))
        return plan if (p + same) / left >= bar(plan) else None
    return None


_PUNCT = ".,:;!?\"'`()[]{}"  # around a word of the message


def _unpointed_focus_action(t: Turn, plan: TurnPlan | None) -> bool:
    """A plan acting on the object in focus (T4 graph / explain, T5 show again) for a message
    that never points at that object: no pronoun or "that"
    (focus-context-pending-state, step 4), not its name nor its file's stem; and that names
    another listed item in words ("the search engine" for SearchEngine) or asks where
    something is defined or found (the controller's `location` route, no action named), or
    names a thing as code writes its names (`controller.text.is_identifier`) that is not it
    and that the root question did not name (its answer's object is the focus: "who reads
    doc_freqs" after "what is doc_freqs"), at any length; the other two only when it asks in
    full, `_asks_in_full`. Such
    a message asks about another thing: a new root question (T1: it "must not inherit stale
    focus_object"), not a short action on the selected object (T4: its relations, its
    explanation) nor a pronoun follow-up (T5); read as one only when the reading is as sure
    as against a rule's phrase (`router_phrase`)."""
    target = t.focused()
    if plan is None or target is None or plan.target is None or plan.target.id != target.id:
        return False
    if t.focus.pronoun_hint is not None or say.DEICTIC.search(t.body) or focus_named(t) \
            or names_focus(t) or _file_stem(target) in message_tokens(t.text):
        return False
    asked = message_tokens(t.state.root_frame.question) if t.state.root_frame else set()
    if any(is_identifier(w.strip(_PUNCT)) and w.strip(_PUNCT).lower() not in asked
           for w in t.body.split()):  # "what does deploy_key_body return?": another thing,
        return True  # by the name code gives it (not one the question answered asked about)
    if not _asks_in_full(t):
        return False
    pool = t.pool()
    if pool is not None and any(  # "who constructs the search engine": another listed item
            item.target.id != target.id and any(spelt_as_words(n, t.text)
                                                 for n in own_name_parts(item))
            for item in pool.items):
        return True
    route = route_question(t.text, routing=RoutingPolicy())
    return route.intent.route == "location" and route.action is None


def _pointed_focus_action(t: Turn, plan: TurnPlan | None) -> bool:
    """A plan acting on the object in focus (T4 / T5 on it) for a message that points back at
    it with a pronoun or "that" ("is that tested anywhere?", "which test exercises that
    code?"): the words asking about something shown, however long the question around them."""
    target = t.focused()
    return plan is not None and target is not None and plan.target is not None \
        and plan.target.id == target.id and plan.transition in ("T4", "T5") \
        and (t.focus.pronoun_hint is not None or bool(say.DEICTIC.search(t.body)))


def _file_stem(target: TargetRef) -> str:
    """The focused object's file by its stem ("bm25" for search/bm25.py): a name for it."""
    stem = (target.path or "").rsplit("/", 1)[-1].split(".", 1)[0].lower()
    return stem if len(stem) >= MIN_NAME_CHARS else "\0"


def _asks_in_full(t: Turn) -> bool:
    """A message that asks a question of its own: it opens with a question word and is longer
    than a follow-up (`FOLLOW_UP_WORDS_MAX` words)."""
    return bool(say.QUESTION_LEAD.match(t.body)) and len(t.text.split()) > FOLLOW_UP_WORDS_MAX


def _unplaced(t: Turn, plan: TurnPlan) -> bool:
    """A rules pick with no item placed: a pending sense clarifier's option described in
    words, or a list item with no ordinal the rules could parse (not one picked by what it
    holds, "the one that says X": the lane reads it)."""
    if plan.source_cue or plan.followup_clause or described_item(t):
        return False
    sense_pending = t.state.clarification_state is not None and t.state.pending is not None \
        and (t.reply_to is None or t.reply_to == t.state.pending.anchor_turn_id)
    return sense_pending or (plan.transition == "T3" and plan.choice_index is None)


def _close_reading(t: Turn, plan: TurnPlan, reading: Reading) -> TurnPlan | None:
    """Two readings within `router_clarify_margin` that would do different things: ask."""
    s = t.settings
    if not reading.alternatives or not s.pending_state:
        return None
    second, p = reading.alternatives[0]
    if reading.margin >= s.router_clarify_margin or p < s.router_clarify_floor:
        return None
    other = plan_for(second, t, reading)
    if other is None or (other.transition, other.lane) == (plan.transition, plan.lane) \
            or {_action(plan), _action(other)} <= _CLOSINGS:  # either way the exchange ends
        return None
    return t.plan("small_talk", "clarify", "clarify_reading",
                  f"two readings: {reading.meaning} ({reading.confidence:.2f}) / {second} "
                  f"({p:.2f})", reading=reading, readings=(reading.meaning, second))


def _continues(t: Turn) -> bool:
    """A message after an answer that opens with a continuing lead ("and ...", "what about
    ...", `CONTINUING_LEADS`), also after an assent ("ok and where is it used?": the small
    talk read off the message takes its "and" with it), or whose later clause opens with
    "what about" (`CLAUSE_LEADS`)."""
    said = (t.plain.split(), strip_filler(normalize(t.text)).split())
    clauses = [normalize(c).split() for c in _CLAUSE_BREAK.split(t.text)[1:]]
    return t.state.turn_count > 0 and (any(
        words[:len(lead.split())] == lead.split() for lead in CONTINUING_LEADS for words in said)
        or any(words[:len(lead.split())] == lead.split()
               for lead in CLAUSE_LEADS for words in clauses))


def _follow_up_looking(t: Turn, reading: Reading, rules_meaning: str) -> bool:
    """A message that points back: a pronoun, a few words after an answer, a continuing lead
    ("and what about ..."), a rule that read a follow-up, or a follow-up as the second
    reading; or one the reading cannot vouch for, with misspelt words (`_misspelt`)."""
    if t.state.turn_count == 0:
        return False
    readings = ((reading.meaning, reading.confidence), *reading.alternatives)
    follow_ups = [p for m, p in readings if m != "new_question"]
    terse = len(t.text.split()) <= FOLLOW_UP_WORDS_MAX and not say.QUESTION_LEAD.match(t.body)
    return (bool(t.focus.pronoun_hint) or terse or _continues(t)
            or rules_meaning not in ("new_question", "boundary")
            or max(follow_ups, default=0.0) >= t.settings.router_follow_up_floor
            or _misspelt(t))


_NAME_WORD = re.compile(r"[A-Z]?[a-z]+")


def _misspelt(t: Turn) -> bool:
    """The message has words the classifier cannot read, one edit from words it can
    (`spelling.misspelt_words`: "what hapens if no cavty fits"): it reads their pieces, so
    however sure its reading of a new question, that is no evidence the message stands alone
    (the typist may be following up). The words of the names on screen and in focus are read
    as they are ("carve", "tokenize")."""
    pool, focused = t.pool(), t.focused()
    said = [n for i in (pool.items if pool else ()) for n in (i.label, i.sublabel)]
    for target in ([i.target for i in pool.items] if pool else []) + ([focused] if focused else []):
        said += [target.label, target.symbol or "", target.path or ""]
    names = frozenset(w.lower() for name in said for w in _NAME_WORD.findall(name))
    return bool(misspelt_words(t.text, names))


def _announced(t: Turn, plan: TurnPlan, reading: Reading, rules_meaning: str,
               agreed: bool) -> TurnPlan:
    """One line saying how the turn was read: when unsure (the rules did not read it the same
    way, the reading below `router_announce_below`), before a follow-up-looking message or a
    new search after the first turn read below `router_announce_new_below` (docs/announce.md) is a
    search for its own words."""
    s = t.settings
    searching = plan.intent == "root_question"
    unsure = not agreed and reading.confidence < s.router_announce_below
    if not (unsure or (searching and _follow_up_looking(t, reading, rules_meaning))
            or unsure_new_search(t, plan, reading)):
        return plan
    meaning = "new_question" if searching else meaning_of(plan)
    if meaning not in MEANINGS:
        meaning = reading.meaning
    line = str(MEANINGS[meaning]["reads_as"]).format(text=(plan.question or t.text).strip())
    alt = next((m for m in (reading.meaning, *(a for a, _ in reading.alternatives))
                if m != meaning), None)
    if alt is not None:
        line += f" Say '{MEANINGS[alt]['say']}' if you meant {said(alt, t.text).lower()}."
    return plan.model_copy(update={"announce": line})


def _repaired(state: ContinuityState, t: Turn, reply_to: int | None,
              settings: ContinuitySettings, turns: Sequence[TurnSummary], now_ms: int,
              last: str | None) -> TurnPlan:
    """The answer to a two-readings clarifier: the earlier message, read the chosen way."""
    pending = state.pending
    assert pending is not None and t.pending.choice is not None
    meaning = pending.readings[t.pending.choice - 1]
    earlier = state.model_copy(update={"pending": None, "pending_clarifier_type": "none"})
    text = pending.reading_text or t.text
    t2, rules_plan = _route(earlier, text, reply_to, settings, turns, now_ms, last)
    reading = Reading(meaning=meaning, confidence=1.0, forced=True)
    plan = plan_for(meaning, t2, reading) or rules_plan
    return plan.model_copy(update={"pending": t.pending, "reading": reading, "reasons": (
        *plan.reasons, f"you chose reading {t.pending.choice}: {meaning}")})


# re-exported for the session driver and tests
__all__ = [
    "RULES",
    "Turn",
    "TurnPlan",
    "gate",
    "hold_selection_pending",
    "pivot_question",
    "prior_state_ok",
    "route_turn",
]
