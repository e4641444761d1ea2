"""The vocabulary router's rules: each a matcher from a turn to a plan (or None), in
precedence order (`RULES`, first match wins; the table is in `router.py`'s docstring). After a
rule matched, the coverage gate decides whether a gated transition may consume the last answer
(`gate`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from controller.continuity import phrases as say
from controller.continuity.item_names import (
    described_item,
    item_position,
    kind_counted,
    unmentioned_thing,
    unshown_thing,
)
from controller.continuity.pending import parse_ordinal
from controller.continuity.senses import SENSE_PREFIX as _SENSE_PREFIX
from controller.continuity.senses import other_sense, other_sense_option
from controller.continuity.state import OptionSet, OptionSetKind
from controller.continuity.transitions import REGISTRY, missing_prior_state, prior_state_ok
from controller.continuity.turn_plan import ORDINAL_SHAPE_MAX, Intent, Turn, TurnPlan
from controller.continuity.wording import entity_in_scope, gate_sentence, pivot_question
from helix.core.english import SCOPE_LIMITERS, SCOPE_PREPOSITIONS, word_alternation

_AGAIN = re.compile(r"\b(?:again|same)\b")  # "open it again": the object shown before
Matcher = Callable[[Turn], TurnPlan | None]


# --- the rules, in precedence order --------------------------------------------------------

def start_over(t: Turn) -> TurnPlan | None:
    if say.RESET.match(t.body):
        return t.plan("root_query_entry", "interrupt", "reset", "hard interrupt",
                      retrieval=False)
    return None


def cancel(t: Turn) -> TurnPlan | None:
    if say.CANCEL.match(t.body):
        return t.plan("pivot_root_only_carryover", "interrupt", "cancel", "hard interrupt")
    return None


def continuity_off(t: Turn) -> TurnPlan | None:
    if t.settings.grounding_continuity:
        return None
    return t.plan("root_query_entry", "root", "root_question",
                  "grounding continuity off: every turn is a root question",
                  question=t.text.strip(), disabled=True)


def pending_answer(t: Turn) -> TurnPlan | None:
    """A pending question applies only on a strict match (else it was dropped on entry)."""
    state, pending = t.state, t.pending
    if pending.status != "applied" or state.pending is None \
            or state.pending.clarifier_type == "repair":  # the meaning router's own question
        return None
    clar = state.clarification_state
    if clar is None:  # a selection clarifier: the selection lane resolves among its options
        clause = state.pending.followup_clause  # "... and explain why" before the clarifier
        return t.plan("explicit_selected_object_drilldown", "selection", "select_item",
                      "answer to the selection clarifier",
                      option_set_id=state.pending.option_set_id,
                      selection_text=f"open {t.body} and {clause}" if clause else None,
                      disabled=not t.settings.selection_lane)
    if pending.boolean is not None:  # an offer to retry without the path scope
        if not pending.boolean:
            return t.plan("pivot_root_only_carryover", "interrupt", "cancel", "offer declined")
        return t.plan("clarification_continuation", "clarify_resume", "resume_clarified",
                      "retry offer accepted: the whole repository", question=clar.question,
                      option_set_id=clar.option_set_id or None,
                      sense=clar.resume_target_frame.sense if clar.resume_target_frame else None)
    index = pending.choice or 0
    sense = clar.candidate_scopes[index - 1] if 0 < index <= len(clar.candidate_scopes) else None
    return t.plan("clarification_continuation", "clarify_resume", "resume_clarified",
                  f"pending {state.pending.expected_type.split(':')[0]} matched",
                  question=clar.question, sense=sense, choice_index=pending.choice,
                  option_set_id=clar.option_set_id,
                  scope=clar.resume_target_frame.path_scope if clar.resume_target_frame else None)


def small_talk(t: Turn) -> TurnPlan | None:
    kind = say.small_talk(t.text)
    if kind is None:
        return None
    return t.plan("small_talk", "chat", "small_talk", f"small talk ({kind})", small_talk=kind)


_BARE_SCOPE = re.compile(rf"\b(?:(?:{word_alternation(SCOPE_LIMITERS)})\s+)?"
                         rf"(?:{word_alternation(SCOPE_PREPOSITIONS)})\s+(?:the\s+)?"
                         r"(?P<path>[a-z_][\w.-]*)\b")


def _known_directory(t: Turn, word: str) -> str | None:
    """`word` as a directory the conversation has shown ("tests" -> "tests/" when a listed
    item lives under tests/): a scope named without its slash."""
    for option_set in t.state.option_sets:
        for item in option_set.items:
            parts = (item.target.path or "").split("/")[:-1]
            if word in parts:
                return "/".join(parts[:parts.index(word) + 1]) + "/"
    return None


def scope_rerun(t: Turn) -> TurnPlan | None:
    cue = say.PATH_CUE.search(t.body)
    if not cue:
        bare = _BARE_SCOPE.search(t.body)
        directory = _known_directory(t, bare.group("path")) if bare else None
        if bare is None or directory is None:
            return None
        rest = say.RERUN_FILLER.sub(" ", t.body[:bare.start()] + " " + t.body[bare.end():])
        root = t.state.root_frame
        if re.sub(r"[\s?,.!]+", "", rest) or root is None:
            return None  # a bare word is a scope only in a rerun of the last question
        return t.plan("root_followup_scope_change", "root", "scope_rerun",
                      f"scope cue {directory} (a listed directory)", question=root.question,
                      scope=directory, sense=root.sense)
    raw = cue.group("path")
    is_dir = raw.endswith("/") or "/" in raw.rstrip("/") or "." not in raw
    scope = raw.rstrip("/") + "/" if is_dir else raw
    rest = say.RERUN_FILLER.sub(" ", t.body[:cue.start()] + " " + t.body[cue.end():])
    if not re.sub(r"[\s?,.!]+", "", rest):
        root = t.state.root_frame
        if root is None:
            return t.boundary("no earlier question to re-ask in a narrower scope")
        return t.plan("root_followup_scope_change", "root", "scope_rerun",
                      f"path scope cue {scope}", question=root.question, scope=scope,
                      sense=root.sense)
    if is_dir and not say.COMMAND.match(t.body):
        return t.plan("root_query_entry", "root", "root_question",
                      f"path scope {scope} on a new question", question=t.text.strip(),
                      scope=scope)
    return None


def correction(t: Turn) -> TurnPlan | None:
    """ "no, the other one": the last accepted choice is rejected, another one is wanted."""
    match = say.CORRECTION.match(t.body)
    rejected = t.state.last_accepted_choice_id
    if not match or rejected is None:
        return None
    rest = say.correction_rest(match.group("rest"))
    last = t.state.last_resolved_action
    source = t.state.option_set(last.option_set_id) if last and last.option_set_id else None
    other_sense = other_sense_option(t, rejected, rest)
    if other_sense is not None:
        root = t.state.root_frame
        return t.plan("root_followup_scope_change", "root", "correct_choice",
                      f"correction: sense {other_sense.sense} instead of "
                      f"{rejected[len(_SENSE_PREFIX):]}",
                      question=root.question if root else None,
                      scope=root.path_scope if root else None, sense=other_sense.sense,
                      rejected_choice_id=rejected)
    pool = t.pool() if rest else (source or t.pool())
    if pool is None:
        return t.boundary("no list to pick another one from", "selection")
    other = not rest and bool(say.OTHER.match(match.group("fix")))
    return t.plan("explicit_selected_object_drilldown", "selection", "correct_choice",
                  f"correction: {match.group('fix')}", option_set_id=pool.id,
                  rejected_choice_id=rejected,
                  selection_text=f"open {rest}" if rest else ("the other one" if other
                                                              else "open one"),
                  disabled=not t.settings.selection_lane)


def never_shown(t: Turn) -> TurnPlan | None:
    """'show me the plot you mentioned' when nothing said in the conversation names it."""
    thing = unmentioned_thing(t)
    return None if thing is None else t.boundary(
        f"nothing shown in this conversation is '{thing}': ask for it as a question")


def tell_me_more(t: Turn) -> TurnPlan | None:
    """Bind "that" / "it" / "the first one" to an object, then retrieve around it."""
    match = say.TELL_MORE.match(t.core)
    if not match:
        return None
    obj = (match.group("obj") or "").strip()
    pool = t.pool()
    if obj and not say.TELL_MORE_PRONOUN.match(obj):
        ordinal = parse_ordinal(obj, ORDINAL_SHAPE_MAX) is not None
        if not (ordinal or say.THE_X_ONE.match(obj)):
            return None  # a name: a new question ("explain build_bm25_index")
        if pool is None:
            return t.boundary("no numbered list is active", "selection")
        return t.plan("explicit_selected_object_drilldown", "selection", "explain_item",
                      f"'{obj}' in the active list, retrieved around", option_set_id=pool.id,
                      selection_text=f"open {obj}", retrieval=True,
                      disabled=not t.settings.selection_lane)
    target = t.focused() or t.shown_lead()  # an ungrounded answer's closest match: object_only
    if target is not None:
        return t.plan("short_action_on_selected_object", "explain", "explain_focused",
                      f"'{obj or 'more'}' -> focused {target.id}, retrieved around",
                      target=target, retrieval=True)
    lead = t.lead_item()
    if lead is not None:
        pool, index = lead
        return t.plan("explicit_selected_object_drilldown", "selection", "explain_item",
                      f"'{obj or 'more'}' -> what the last answer led with (item {index})",
                      option_set_id=pool.id, choice_index=index, selection_text=f"open {index}",
                      retrieval=True, carryover_depth="full",
                      disabled=not t.settings.selection_lane)
    return t.boundary("nothing is focused and no answer says what 'that' is: ask about a "
                      "name, or open an item of a list first")


def _open_item(t: Turn, pool: OptionSet, index: int, what: str) -> TurnPlan:
    """A pronoun's command ("open it") on one item of a list: `what` says which item it is."""
    return t.plan("explicit_selected_object_drilldown", "selection", "select_item",
                  f"pronoun -> {what} (item {index})", option_set_id=pool.id,
                  choice_index=index, selection_text=f"open {index}", followup_clause=t.clause,
                  disabled=not t.settings.selection_lane)


def selection(t: Turn) -> TurnPlan | None:
    body = t.core
    if any(p.match(body) for p in (say.CALLERS, say.TESTS, say.BACK)):
        # "show me the callers of it", "show me the list again": a command verb in front of
        # what the graph and back rules own is not a selection (their patterns take it)
        return None
    source = say.SOURCE_CUE.search(body)
    cue: OptionSetKind | None = None
    if source:
        cue = say.SOURCE_KIND[source.group("src")]
        body = (body[:source.start()] + body[source.end():]).strip(" ,")
        t.reasons.append(f"source scope cue {cue}")
    command = say.COMMAND.match(body)
    rest = command.group("rest").strip() if command else body
    # ordinal-shaped even when out of range ("the 99th one"): a selection, never a new question
    ordinal_like = parse_ordinal(rest, ORDINAL_SHAPE_MAX) is not None
    labelled = bool(say.THE_X_ONE.match(rest)) and not command
    described = described_item(t)  # "the one that says 'retry after'": by what it holds
    if not (command or ordinal_like or cue is not None or labelled or described) \
            or say.QUESTION_LEAD.match(rest) or say.ENTITY_MEANING.match(body):
        return None  # a question, or "from the answer, explain what X means": not a command
    pool = t.pool(cue)
    if command and cue is None and (say.FOCUS_WORDS.match(rest) or not rest):
        explained = t.explained_item()
        if explained is not None:  # "open it" right after "what's X mean?": X
            return _open_item(t, *explained, "what the last answer explained")
        lead = t.lead_item() if t.answer_lead() and not _AGAIN.search(rest) else None
        if lead is not None:  # "open it" after an answer: its lead, opened the first time
            return _open_item(t, *lead, "what the last answer led with")
        target = t.focused() or (t.shown_lead() if _AGAIN.search(rest) else None)
        if target is not None:
            return t.plan("pronoun_object_followup", "selection", "select_focused",
                          f"pronoun -> focused {target.id}", target=target,
                          followup_clause=t.clause, disabled=not t.settings.selection_lane)
        if pool is None:
            return t.boundary("nothing is focused and no list is active", "selection")
        t.reasons.append("pronoun with no focused object: resolve in the active list")
    if pool is not None:
        position, beyond_kind = _position(t, pool, rest)
        if beyond_kind is not None:
            return t.boundary(beyond_kind, "selection")
        if (beyond := _beyond(t, pool) if position is None else None) is not None:
            return t.boundary(f"there is no item {beyond}: the list has {len(pool.items)}",
                              "selection")  # "open item 40 from the results" over 24
        if position is None and cue is None and not described \
                and (unseen := unshown_thing(t, pool)) is not None:  # "the pie chart of X"
            return t.boundary(f"the list on screen shows no {unseen}", "selection")
        # a position the rules read exactly is handed to the lane as one ("open number three"
        # -> "open 3"); the lane's own reading takes names, kinds and source cues
        placed = f"open {position}" + (f" and {t.clause}" if t.clause else "") \
            if position is not None and cue is None else None
        return t.plan("explicit_selected_object_drilldown", "selection", "select_item",
                      "command on the active list", option_set_id=pool.id,
                      choice_index=position, source_cue=cue, selection_text=placed,
                      followup_clause=t.clause, disabled=not t.settings.selection_lane)
    if ordinal_like or cue is not None or labelled:
        where = f"list {source.group(0)}" if source else "numbered list"
        return t.boundary(f"no {where} is active", "selection")
    return None


def _position(t: Turn, pool: OptionSet, rest: str) -> tuple[int | None, str | None]:
    """The list position the command names (an ordinal the rules parse exactly), counted among
    the listed items of a kind when the message names one ("the 12th test", "test #3":
    `item_names.kind_counted`), and why there is none when the list shows fewer of that kind."""
    position = parse_ordinal(rest, len(pool.items))
    said = position or item_position(t)
    counted, beyond = kind_counted(t.text, pool.items, said)
    return (counted if counted != said else position), beyond


def _beyond(t: Turn, pool: OptionSet) -> int | None:
    """The list position the message names (`item_names.item_position`: "number 45", "item
    40", "the 12th") when the list has fewer items: an out-of-range pick (T10), never a
    name for the lane to match."""
    said = item_position(t)
    return said if said is not None and said > len(pool.items) else None


def graph(t: Turn) -> TurnPlan | None:
    for pattern, intent in ((say.CALLERS, "graph_callers"), (say.TESTS, "graph_tests")):
        match = pattern.match(t.core)
        if match:
            obj = next((g for g in match.groups() if g), "it").strip()  # "callers?": focused
            if not say.FOCUS_WORDS.match(obj):
                return _graph_on_item(t, intent, obj)  # type: ignore[arg-type]
            target = t.focused() or t.shown_lead()
            if target is not None:
                return t.plan("short_action_on_selected_object", "graph", intent,  # type: ignore[arg-type]
                              f"{intent} on focused {target.id}", target=target)
            lead = t.lead_item()
            if lead is None:
                return t.boundary("nothing is focused and the last answer led with no single "
                                  "item: open an item first, or name it", "graph")
            pool, index = lead
            return t.plan("explicit_selected_object_drilldown", "selection", intent,  # type: ignore[arg-type]
                          f"'{obj}' -> the item the last answer led with",
                          option_set_id=pool.id, choice_index=index,
                          selection_text=f"open {index}", carryover_depth="full",
                          disabled=not t.settings.selection_lane)
    return None


def _graph_on_item(t: Turn, intent: Intent, obj: str) -> TurnPlan | None:
    """"who calls the second one?": that item of the active list, selected, then its callers
    or tests. A name is a new question ("who calls build_bm25_index?")."""
    if parse_ordinal(obj, ORDINAL_SHAPE_MAX) is None and not say.THE_X_ONE.match(obj):
        return None
    pool = t.pool()
    if pool is None:
        return t.boundary("no numbered list is active", "selection")
    return t.plan("explicit_selected_object_drilldown", "selection", intent,
                  f"'{obj}' in the active list", option_set_id=pool.id,
                  choice_index=parse_ordinal(obj, len(pool.items)), selection_text=f"open {obj}",
                  disabled=not t.settings.selection_lane)


def semantic(t: Turn) -> TurnPlan | None:
    core = t.core
    if say.WHY_ACTION.match(core):
        intent: Intent = "explain_last_action" if core != "why" else "reflective_why_followup"
        name = "meta_followup_over_answer"
    elif say.WHAT_HAPPENED.match(core):
        intent, name = "summarize_recent_activity", "memory_recap"
    else:
        # "from the evidence, what does X mean?": a source cue keeps the question in this lane,
        # X bound within that list only (semantic lane blocker 12)
        source = say.SOURCE_CUE.search(core)
        asked = (core[:source.start()] + core[source.end():]).strip(" ,") if source else core
        entity = say.ENTITY_MEANING.match(asked)
        if entity is None:
            return None
        if source is not None:
            cue = say.SOURCE_KIND[source.group("src")]
            if t.pool(cue) is None:
                return t.boundary(f"no {source.group(0).removeprefix('from ')} list to "
                                  "answer from", "semantic")
            return t.plan("meta_followup_over_answer", "semantic", "explain_entity_meaning",
                          f"scope-cued meaning question ({source.group(0)})", source_cue=cue,
                          disabled=not t.settings.semantic_lane)
        if not entity_in_scope(t.state, next(g for g in entity.groups() if g)):
            return None
        intent, name = "explain_entity_meaning", "meta_followup_over_answer"
    return t.plan(name, "semantic", intent, "semantic follow-up",
                  disabled=not t.settings.semantic_lane)


def meta(t: Turn) -> TurnPlan | None:
    if not (say.META.match(t.core) or say.META_ASKED.match(t.core)):
        return None
    if t.focus.source == "reply_anchor" and t.focus.anchor_turn_id is not None:
        return t.plan("meta_followup_over_answer", "meta", "meta_answer",
                      f"meta question over turn {t.focus.anchor_turn_id} (reply anchor)")
    if t.state.answer_context_state is None:
        return t.boundary("no earlier answer to discuss", "meta")
    return t.plan("meta_followup_over_answer", "meta", "meta_answer",
                  "meta question over the last answer")


def recap(t: Turn) -> TurnPlan | None:
    """'did we talk about the tokenizer?': whether a topic came up (T9); 'we covered X' only
    when it is asked ('?', 'or not')."""
    match = say.RECAP.match(t.core) or say.RECAP_ASKED.match(t.core)
    if not match or (match.re is say.RECAP_ASKED and match.group("topic3")
                     and not (t.text.rstrip().endswith("?") or t.core.endswith("or not"))):
        return None
    topic = next((g for g in match.groups() if g), None)
    topic = re.sub(r"^(?:the|a|an)\s+", "", topic.strip(" ?")) if topic else None
    return t.plan("memory_recap", "recap", "recap_topic", "recap of the conversation",
                  topic=topic or None)


def back_to_list(t: Turn) -> TurnPlan | None:
    if not say.BACK.match(t.core):
        return None
    return t.plan("pivot_root_only_carryover", "interrupt", "back_to_root",
                  "back to the root question's list")


def pivot(t: Turn) -> TurnPlan | None:
    """'what about the tokenizer?': the root question asked of another subject, in the root's
    path scope (organization scope kept), the focused object dropped."""
    match = say.PIVOT.match(t.core) or say.PIVOT.match(t.plain)
    root = t.state.root_frame
    if not match or root is None:
        return None
    subject = (match.group("subject") or match.group("subject2") or "").strip(" ?")
    if not subject or say.TELL_MORE_PRONOUN.match(subject):
        return None
    return t.plan("pivot_root_only_carryover", "root", "pivot",
                  f"pivot to '{subject}', root scope {root.path_scope or 'repo'} kept",
                  question=pivot_question(root.question, subject), scope=root.path_scope,
                  retrieval=True)


def root_question(t: Turn) -> TurnPlan:
    return t.plan("root_query_entry", "root", "root_question", "new root question",
                  question=say.without_small_talk_lead(t.text) or t.text.strip())


RULES: tuple[tuple[str, Matcher], ...] = (
    ("start_over", start_over),
    ("cancel", cancel),
    ("continuity_off", continuity_off),
    ("pending_answer", pending_answer),
    ("small_talk", small_talk),
    ("scope_rerun", scope_rerun),
    ("other_sense", other_sense),
    ("correction", correction),
    ("never_shown", never_shown),
    ("tell_me_more", tell_me_more),
    ("selection", selection),
    ("graph", graph),
    ("semantic", semantic),
    ("meta", meta),
    ("recap", recap),
    ("back_to_list", back_to_list),
    ("pivot", pivot),
    ("root_question", root_question),
)



def gate(t: Turn, plan: TurnPlan) -> TurnPlan:
    """The coverage gate and the required prior state, for the transitions that consume them.
    Binding "that" to what the answer said needs a grounded answer (`full` carryover)."""
    if plan.transition == "T10":
        return plan
    spec = REGISTRY[plan.transition]
    if not spec.gated and plan.carryover_depth is None and not missing_prior_state(spec, t.state):
        return plan
    ok, why = prior_state_ok(t.state, plan.transition, plan.carryover_depth)
    if ok:
        return plan
    return t.boundary(gate_sentence(t.state, plan.transition_name, plan.text, why), plan.lane)
