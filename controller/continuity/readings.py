"""A reading turned into a plan: what a meaning does in the current state. Pure.

    plan_for(meaning, t, reading) -> TurnPlan | None

The meaning router's class says what the message means ("pick one", "who calls it"); the state
says what that does: a pick answers a pending sense clarifier (T7), else opens an item of the list
on screen (T3), else (a sense chosen, nothing listed named) asks the other sense (T2), else is a
boundary. Each builder reuses the vocabulary router's rule when its pattern took the message, else
reads the exact rules (numbers, paths, names) and the state. None: the meaning cannot act here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from controller.continuity import phrases as say
from controller.continuity import rules
from controller.continuity.graph_focus import graph_or_explain
from controller.continuity.item_names import (
    MIN_NAME_CHARS,
    focus_named,
    item_kind,
    item_position,
    list_position,
    message_tokens,
    named_item,
    number_named,
    opens_an_entry,
    respelt_names,
    same_object,
    unshown_thing,
)
from controller.continuity.meaning import ordinals_in
from controller.continuity.pending import PendingMatch, parse_choice, selection_labels, strip_filler
from controller.continuity.selection_match import parse_selection_input
from controller.continuity.senses import names_a_sense, other_sense_pick
from controller.continuity.state import OptionSet
from controller.continuity.turn_plan import Intent, Reading, Turn, TurnPlan
from controller.continuity.wording import pivot_question
from helix.core.english import FOLLOWUP_LEADS, stems, word_alternation

Builder = Callable[[Turn, Reading], TurnPlan | None]
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")
_LEAD = re.compile(rf"^(?:{word_alternation(FOLLOWUP_LEADS)})\s+")
_WORD = re.compile(r"[a-z0-9_]+")
MIN_SUBJECT_WORDS = 4  # a pivot this long that asks a question is asked as written


def _applied(**kw: object) -> PendingMatch:
    """The pending question answered by the reading (not by a strict match of its type)."""
    return PendingMatch(status="applied", **kw)  # type: ignore[arg-type]


def _gated(t: Turn, plan: TurnPlan) -> TurnPlan:
    return rules.gate(t, plan)


def names_focus(t: Turn) -> bool:
    """The message names the focused object by a listed item's name: the item itself ("show
    me the avg_length code again"), or the file the focused object is in ("show me cli.py
    again" while `main` of search/cli.py is focused). No number: a number picks."""
    target = t.focused() or t.shown_lead()
    if target is None or number_named(t) is not None:
        return False
    named = named_item(t)
    if named is not None:
        same = (named.target.path, named.target.symbol) == (target.path, target.symbol)
        whole_file = not named.target.symbol and named.target.path == target.path
        return same or whole_file
    tokens = message_tokens(t.text)
    path = (target.path or "").lower()
    return bool(path) and (path in tokens or path.rsplit("/", 1)[-1] in tokens)


def shows_focus_again(t: Turn, plan: TurnPlan) -> bool:
    """A pick (T3) asking for the object in focus again (`AGAIN`): the item it picks is that
    object, its file, a part of it or what it is in, or it names no item, position or kind
    ("show that file again"). That object is selected already: shown again, it is T5."""
    target = t.focused() or t.shown_lead()
    if target is None or (plan.transition, plan.intent) != ("T3", "select_item") \
            or plan.source_cue or not say.AGAIN.search(t.body):
        return False
    if names_focus(t):
        return True
    pool = t.state.option_set(plan.option_set_id or "") or t.pool()
    named = named_item(t) if plan.choice_index is None else next(
        (i for i in pool.items if i.index == plan.choice_index), None) if pool else None
    if named is not None or plan.choice_index is not None:
        return named is not None and (named.target.id == target.id
                                      or same_object(named.target, target))
    return number_named(t) is None and respelt_names(t) is None \
        and parse_selection_input(t.core.rstrip("?")).kind_word is None


# --- the builders ---------------------------------------------------------------------------

def new_question(t: Turn, r: Reading) -> TurnPlan:
    return rules.root_question(t)


def reset(t: Turn, r: Reading) -> TurnPlan:
    return t.plan("root_query_entry", "interrupt", "reset", "read as starting over",
                  retrieval=False)


def cancel(t: Turn, r: Reading) -> TurnPlan:
    return t.plan("pivot_root_only_carryover", "interrupt", "cancel", "read as cancel")


def back(t: Turn, r: Reading) -> TurnPlan:
    return t.plan("pivot_root_only_carryover", "interrupt", "back_to_root",
                  "read as back to the list")


def chat(t: Turn, r: Reading) -> TurnPlan:
    kind = say.small_talk(t.text) or say.small_talk_kind(t.text) or r.detail or \
        "acknowledgement"
    return t.plan("small_talk", "chat", "small_talk", f"read as small talk ({kind})",
                  small_talk=kind)


def yes(t: Turn, r: Reading) -> TurnPlan | None:
    clar, pending = t.state.clarification_state, t.state.pending
    if pending is None or pending.expected_type != "boolean" or clar is None \
            or not _live_pending(t):
        return chat(t, r)
    return t.plan("clarification_continuation", "clarify_resume", "resume_clarified",
                  "read as yes to the offer: the whole repository", question=clar.question,
                  option_set_id=clar.option_set_id or None,
                  sense=clar.resume_target_frame.sense if clar.resume_target_frame else None,
                  pending=_applied(boolean=True, reason="read as yes"))


def _option_choice(t: Turn, r: Reading, labels: tuple[str, ...]) -> int | None:
    strict = parse_choice(t.text, labels)
    if strict is not None:
        return strict
    numbers = [n for n in ordinals_in(t.body) if 1 <= n <= len(labels)]
    if numbers:
        return numbers[0]
    scores = r.option_scores
    if len(scores) == len(labels) and scores:
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        gap = scores[ranked[0]] - (scores[ranked[1]] if len(ranked) > 1 else 0.0)
        if gap >= t.settings.router_option_margin:
            return ranked[0] + 1
    return None


def _live_pending(t: Turn) -> bool:
    """A pending question the turn may answer: not expired, of this session, and not passed
    over by a reply to another turn (the reply's list is meant then)."""
    pending = t.state.pending
    return (pending is not None and t.settings.pending_state
            and t.pending.status not in ("expired", "other_thread")
            and (t.reply_to is None or t.reply_to == pending.anchor_turn_id))


def pick(t: Turn, r: Reading) -> TurnPlan | None:
    state, pending, clar = t.state, t.state.pending, t.state.clarification_state
    if not _live_pending(t):
        return _select(t, t.pool(), "the list on screen")
    if pending is not None and clar is not None and pending.expected_type.startswith(
            "selection:"):
        index = _option_choice(t, r, selection_labels(pending.expected_type))
        if index is None or not 0 < index <= len(clar.candidate_scopes):
            return None
        return t.plan("clarification_continuation", "clarify_resume", "resume_clarified",
                      f"read as option {index} of the clarifier", question=clar.question,
                      sense=clar.candidate_scopes[index - 1], choice_index=index,
                      option_set_id=clar.option_set_id,
                      scope=clar.resume_target_frame.path_scope
                      if clar.resume_target_frame else None,
                      pending=_applied(choice=index, reason=f"read as option {index}"))
    if pending is not None and pending.clarifier_type == "selection_disambiguation":
        return _select(t, state.option_set(pending.option_set_id or ""), "the open choice")
    return _select(t, t.pool(), "the list on screen")


def _select(t: Turn, pool: OptionSet | None, where: str) -> TurnPlan | None:
    if pool is None:  # nothing to pick from: after a sense was chosen, the other sense
        return other_sense_pick(t) or t.boundary("no numbered list is active", "selection")
    number, beyond = list_position(t, pool.items)  # "the 12th test", "the bottom one"
    if number is not None:
        if number > len(pool.items) or beyond:
            return t.boundary(beyond or f"there is no item {number}: {where} has "
                              f"{len(pool.items)}", "selection")
        unshown = _unshown_noun(t, pool)
        if unshown:
            return t.boundary(f"{where} shows no {unshown}", "selection")
        return _gated(t, t.plan("explicit_selected_object_drilldown", "selection", "select_item",
                                f"read as item {number} of {where}", option_set_id=pool.id,
                                choice_index=number, selection_text=f"open {number}",
                                disabled=not t.settings.selection_lane))
    cues = parse_selection_input(t.core.rstrip("?"))
    words = [w for w in cues.remainder.split() if len(w) >= MIN_NAME_CHARS]
    named = named_item(t)
    if (unseen := unshown_thing(t, pool)) is not None:
        return t.boundary(f"{where} shows no {unseen}", "selection")
    if named is None and not words and cues.kind_word is None:
        return None  # no name at all ("open it"): the rules' reading stands
    respelt = respelt_names(t) if named is None else None
    known = named is not None or cues.kind_word is not None or respelt is not None or any(
        w in item.label.lower() or w in (item.target.path or "").lower()
        for item in pool.items for w in words)
    if not known:  # names nothing listed (after a sense was chosen: the other sense)
        return other_sense_pick(t) or t.boundary(f"nothing like '{t.text.strip()}' is in "
                                                 f"{where}", "selection")
    # the one listed item named by its own name, of the kind the message names if any ("the
    # SearchEngine class, open it" -> item N, not a clarifier between SearchEngine and
    # SearchEngine.search): handed to the lane as its position; else the lane reads the name
    said = named is not None and named.label.lower() in t.text.lower() and not (
        cues.kind_word is None or cues.kind_word == item_kind(named))
    if respelt is not None:  # a mistyped name: the lane matches the name written right
        return _gated(t, t.plan("explicit_selected_object_drilldown", "selection",
                                "select_item", f"read as an item of {where} ('{respelt}')",
                                option_set_id=pool.id, selection_text=respelt,
                                disabled=not t.settings.selection_lane))
    # a name the lane matches itself ("the bm25 one", "the test one"): the message as typed
    return _gated(t, t.plan("explicit_selected_object_drilldown", "selection", "select_item",
                            f"read as an item of {where}", option_set_id=pool.id,
                            choice_index=named.index if named else None,
                            selection_text=f"open {named.index}" if named and not said
                            else None, disabled=not t.settings.selection_lane))


MIN_NOUN_CHARS = 4
_PARTICIPLE_ENDS = ("ed", "wn", "en")


def _unshown_noun(t: Turn, pool: OptionSet) -> str | None:
    """The noun after the number when the list holds nothing by that name ("open the 3rd
    screenshot" over a list of code and docs): the thing was never shown."""
    words = re.findall(r"[a-z0-9_]+|[,;:!?]", strip_filler(t.text.lower()))  # "the 1st, open"
    at = next((i for i, w in enumerate(words) if ordinals_in(w)), None)
    if at is None or at == 0 or at + 1 >= len(words) or words[at - 1] != "the":
        return None  # "the 3rd screenshot", not "#2 already"
    after = words[at + 1:]
    while len(after) > 1 and after[0].endswith(_PARTICIPLE_ENDS):
        after = after[1:]  # "the first listed result": a participle before the noun
    noun = after[0]
    shown = " ".join(f"{i.label} {i.sublabel} {i.target.path or ''}" for i in pool.items).lower()
    if len(noun) < MIN_NOUN_CHARS or not noun.isalpha() or noun in say.LIST_NOUNS \
            or stems(noun)[0] in say.SCOPE_KIND or noun in say.SCOPE_KIND \
            or noun[:MIN_NOUN_CHARS] in shown:
        return None
    return noun


def reopen(t: Turn, r: Reading) -> TurnPlan:
    explained = t.explained_item()
    target = t.focused() or t.shown_lead()  # nothing chosen: what the answer showed first
    if explained is None and target is not None:
        return _gated(t, t.plan("pronoun_object_followup", "selection", "select_focused",
                                f"read as showing {target.id} again", target=target,
                                disabled=not t.settings.selection_lane))
    if explained is not None:
        pool, index = explained
        return _gated(t, t.plan("explicit_selected_object_drilldown", "selection",
                                "select_item", f"read as showing item {index} again",
                                option_set_id=pool.id, choice_index=index,
                                selection_text=f"open {index}",
                                disabled=not t.settings.selection_lane))
    active = t.pool()
    if active is None:
        return t.boundary("nothing is focused and no list is active", "selection")
    # nothing opened yet: the list on screen, whose lane asks which item "it" is
    return _gated(t, t.plan("explicit_selected_object_drilldown", "selection", "select_item",
                            "read as showing something again: nothing is focused, the list "
                            "on screen asks which", option_set_id=active.id,
                            disabled=not t.settings.selection_lane))


def _on_object(t: Turn, intent: Intent) -> TurnPlan | None:
    """A graph question or "tell me more" on the object the message means: a numbered or named
    item of the list, the focused object, else what an ungrounded answer showed first."""
    explain = intent in ("explain_focused", "explain_item")
    item_intent: Intent = "explain_item" if explain else intent
    pool = t.pool()
    target = t.focused()
    # with an object in focus (chosen, or the grounded answer's lead), a number is a value of
    # it unless said as a position; with nothing in focus the list is all it can be about
    number = item_position(t) if target is not None else number_named(t)
    named = named_item(t) if not focus_named(t) else None
    if number is None and named is not None and target is not None \
            and same_object(named.target, target):
        target, named = named.target, None  # a part of the focused object, or its whole
    index = number if number is not None else (named.index if named else None)
    if index is not None:
        if pool is None:
            return t.boundary("no numbered list is active", "selection")
        if index > len(pool.items):
            return t.boundary(f"there is no item {index}: the list has {len(pool.items)}",
                              "selection")
        return _gated(t, t.plan("explicit_selected_object_drilldown", "selection", item_intent,
                                f"read as item {index} of the list", option_set_id=pool.id,
                                choice_index=index, selection_text=f"open {index}",
                                retrieval=explain, disabled=not t.settings.selection_lane))
    target = target or t.shown_lead()
    if target is not None:
        if explain:
            return _gated(t, t.plan("short_action_on_selected_object", "explain",
                                    "explain_focused", f"read as more on {target.id}",
                                    target=target, retrieval=True))
        return _gated(t, t.plan("short_action_on_selected_object", "graph", intent,
                                f"read as {intent} on {target.id}", target=target))
    lead = t.lead_item()
    if lead is None:
        return t.boundary("nothing is focused and no answer says what 'it' is: ask about a "
                          "name, or open an item of a list first")
    pool, index = lead
    return _gated(t, t.plan("explicit_selected_object_drilldown", "selection", item_intent,
                            f"read as item {index}, what the last answer led with",
                            option_set_id=pool.id, choice_index=index,
                            selection_text=f"open {index}", retrieval=explain,
                            carryover_depth="full", disabled=not t.settings.selection_lane))


def callers(t: Turn, r: Reading) -> TurnPlan | None:
    return graph_or_explain(lambda i: _on_object(t, i), "graph_callers", t)


def tests(t: Turn, r: Reading) -> TurnPlan | None:
    return graph_or_explain(lambda i: _on_object(t, i), "graph_tests", t)


def explain(t: Turn, r: Reading) -> TurnPlan | None:
    return _on_object(t, "explain_focused")


def _listed_dirs(t: Turn) -> dict[str, set[str]]:
    """Top folders of every listed item, by the kind of file there (code / doc / test)."""
    out: dict[str, set[str]] = {}
    for option_set in t.state.option_sets:
        for item in option_set.items:
            path = item.target.path or ""
            if "/" in path:
                out.setdefault(path.split("/", 1)[0] + "/", set()).add(item_kind(item))
    return out


def scope_of_words(t: Turn) -> str | None:
    """The folders a narrowed question keeps, from a path, a folder the conversation showed
    ("the search folder"), or a kind of file ("code only", "leave out the docs")."""
    dirs = _listed_dirs(t)
    words = _WORD.findall(t.body)
    excluded = {m.group("what").strip("/") for m in say.SCOPE_EXCLUDE.finditer(t.body)}
    paths = [p.rstrip("/") + "/" for p in re.findall(r"[\w.-]+/[\w./-]*", t.body)]
    named = [f"{w}/" for w in words if f"{w}/" in dirs]
    kinds = {say.SCOPE_KIND[w] for w in words if w in say.SCOPE_KIND}
    keep_excluded = {f"{w}/" for w in excluded if f"{w}/" in dirs} | {
        d for d, k in dirs.items() for w in excluded if say.SCOPE_KIND.get(w) in k}
    wanted = set(paths) | {d for d in named if d not in keep_excluded}
    for kind in kinds:
        if any(say.SCOPE_KIND.get(w) == kind for w in excluded):
            continue
        found = {d for d, k in dirs.items() if kind in k}
        # nothing of that kind was listed: its conventional folder ("tests only" -> tests/)
        wanted |= found or ({say.SCOPE_FOLDER[kind]} if kind in say.SCOPE_FOLDER else set())
    if not wanted and keep_excluded:
        wanted = set(dirs) - keep_excluded
    wanted -= keep_excluded if wanted - keep_excluded else set()
    return ",".join(sorted(wanted)) or None


def narrow(t: Turn, r: Reading) -> TurnPlan | None:
    if opens_an_entry(t) and not names_a_sense(t):  # "the doc file of storage, open it" (T3)
        return pick(t, r)
    if (rule := rules.scope_rerun(t)) is not None and rule.transition == "T2":
        return _gated(t, rule)
    if (root := t.state.root_frame) is None:
        return t.boundary("no earlier question to re-ask in a narrower scope")
    sense = _other_sense(t) if names_a_sense(t) else None  # "the optics sense now"
    if sense is not None:
        return sense
    scope = scope_of_words(t)
    if scope is None:  # no scope named after a sense was chosen: the other sense (T2)
        return _other_sense(t)
    return _gated(t, t.plan("root_followup_scope_change", "root", "scope_rerun",
                            f"read as the same question in {scope}", question=root.question,
                            scope=scope, sense=root.sense))


def _other_sense(t: Turn) -> TurnPlan | None:
    """The root question again in the sense not chosen (the one sense clarifier's options)."""
    state, root = t.state, t.state.root_frame
    chosen = next((c for c in state.recent_accepted_choice_ids if c.startswith("sense:")), None)
    if root is None or root.sense is None or chosen is None:
        return None
    options = next((s for s in state.option_sets if any(i.id == chosen for i in s.items)), None)
    others = [i for i in (options.items if options else ()) if i.id != chosen and i.sense]
    if len(others) != 1:
        return None
    sense = others[0].sense
    return _gated(t, t.plan("root_followup_scope_change", "root", "correct_choice",
                            f"read as the other sense {sense}", question=root.question,
                            scope=root.path_scope, sense=sense, rejected_choice_id=chosen))


def other(t: Turn, r: Reading) -> TurnPlan | None:
    """The other sense of the question, unless an item was just opened: then another item."""
    state = t.state
    chosen = state.last_accepted_choice_id
    just_opened = t.last_transition == "T3" and chosen is not None \
        and not chosen.startswith("sense:") and not say.SENSE_WORDS.search(t.body)
    sense = None if just_opened else _other_sense(t)
    if sense is not None or chosen is None:
        return sense
    last = state.last_resolved_action
    pool = state.option_set(last.option_set_id) if last and last.option_set_id else t.pool()
    if pool is None:
        return None
    return _gated(t, t.plan("explicit_selected_object_drilldown", "selection", "correct_choice",
                            "read as another item than the last", option_set_id=pool.id,
                            rejected_choice_id=chosen, selection_text="the other one",
                            disabled=not t.settings.selection_lane))


def pivot(t: Turn, r: Reading) -> TurnPlan | None:
    rule = rules.pivot(t)
    if rule is not None:
        return rule
    root = t.state.root_frame
    if root is None:
        return None
    message = say.without_small_talk_lead(t.text).strip()
    subject = _LEAD.sub("", t.plain).strip(" ?")
    if not subject:
        return None
    asks = bool(say.QUESTION_LEAD.match(subject)) and len(subject.split()) >= MIN_SUBJECT_WORDS
    question = message if asks else pivot_question(root.question, subject)
    return t.plan("pivot_root_only_carryover", "root", "pivot",
                  f"read as the root question about '{subject}', root scope "
                  f"{root.path_scope or 'repo'} kept", question=question, scope=root.path_scope,
                  retrieval=True)


# a name shaped like code: snake_case, camelCase or dotted (one word of prose never is)
_CODE_NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9]*(?:_[A-Za-z0-9]+|[a-z][A-Z][A-Za-z0-9]*"
                        r"|\.[A-Za-z_][A-Za-z0-9_]*)+\b")


def names_other_code(t: Turn) -> bool:
    """Code no listed file, nor the last answer or its question, mentions ("what does
    deploy_key_body return?" after an answer about billing): a question about that code, not
    the answer; a listed file's name asks what it rests on ("all tests or just test_pool?")."""
    context = t.state.answer_context_state
    if context is None:
        return False
    files = " ".join(i.target.path or "" for s in t.state.option_sets for i in s.items)
    shown = f"{context.question}\n{context.answer_excerpt}\n{files}".lower()
    return any(name.lower() not in shown for name in _CODE_NAME.findall(t.text))


def meta(t: Turn, r: Reading) -> TurnPlan | None:
    if t.state.answer_context_state is None:
        return t.boundary("no earlier answer to discuss", "meta")
    if not r.forced and names_other_code(t):
        return None  # how sure / where from is asked of the answer, not of other code
    return t.plan("meta_followup_over_answer", "meta", "meta_answer",
                  "read as a question about the last answer")


def why(t: Turn, r: Reading) -> TurnPlan | None:
    if t.state.last_resolved_action is None and t.state.answer_context_state is None:
        return t.boundary("nothing was done yet to explain", "semantic")
    if t.state.last_resolved_action is None or t.state.last_resolved_action.type in (
            "answer_root", "rerun_scoped", "pivot_root", "resume_clarified"):
        return meta(t, r)  # "why that file?" about an answer: the meta lane says its basis
    return t.plan("meta_followup_over_answer", "semantic", "explain_last_action",
                  "read as why the last action was taken", disabled=not t.settings.semantic_lane)


def meaning(t: Turn, r: Reading) -> TurnPlan:
    return t.plan("meta_followup_over_answer", "semantic", "explain_entity_meaning",
                  "read as what a name means", disabled=not t.settings.semantic_lane)


def recap(t: Turn, r: Reading) -> TurnPlan:
    rule = rules.recap(t)
    return rule or t.plan("memory_recap", "recap", "recap_topic",
                          "read as a recap of the conversation")


def activity(t: Turn, r: Reading) -> TurnPlan:
    return t.plan("memory_recap", "semantic", "summarize_recent_activity",
                  "read as what was just done", disabled=not t.settings.semantic_lane)


BUILDERS: dict[str, Builder] = {
    "new_question": new_question, "pick": pick, "reopen": reopen, "callers": callers,
    "tests": tests, "explain": explain, "narrow": narrow, "other": other, "pivot": pivot,
    "cancel": cancel, "back": back, "meta": meta, "why": why, "meaning": meaning,
    "recap": recap, "activity": activity, "yes": yes, "chat": chat, "reset": reset,
}


def plan_for(meaning_name: str, t: Turn, reading: Reading) -> TurnPlan | None:
    return BUILDERS[meaning_name](t, reading)
