"""One writer per route: the lead sentence that says what kind of answer it is, the quote of
the span that answers, then the rest under short headings. Each takes the `Answer` of one
question and returns its lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from controller.answer_spans import Answer, def_kind, doc_place, indented
from controller.answer_text import (
    capitalized,
    cite,
    code_line,
    code_mentions,
    doc_sentences,
    is_code,
    is_doc,
    mentions,
    mentions_text,
    quote,
    states_text,
    telling_line,
)
from controller.answer_usage import usage_answer
from controller.text import is_identifier, token_set
from controller.units import unit_lines
from helix.core.envelope import EvidenceItem
from helix.core.visible import visible_field

_ASSIGNED = re.compile(
    r"^\s*(?:export\s+)?(?:const\s+|let\s+|var\s+)?([A-Za-z_]\w*)\s*(?::[^=]*)?=")


def _definition(a: Answer) -> list[str]:
    term = (a.main[0] if a.main else "").strip("`").lower().rsplit(".", 1)[-1]
    exact = [e for e in a.evidence if e.symbol and e.node_id.startswith("def:")
             and e.symbol.lower().rsplit(".", 1)[-1] == term and a.answers(e)]
    stating = [e for e in a.evidence if is_doc(e) and a.answers(e) and _states(e, a.main)]
    defining = [e for e in a.ordered([*a.covering("definition_span"),
                                      *(e for e in a.evidence if e.kind == "definition")])
                if a.answers(e)]
    # a spelled name (an identifier) is defined by code: its definition or assignment first,
    # then a sentence saying what it is; a word or phrase ("phase lock") by a sentence saying
    # what it is, then a doc section titled by it, then code
    if a.main and is_identifier(a.main[0].strip("`")):
        leads = [*exact, *(e for e in defining if is_code(e)), *stating, *defining]
    else:
        leads = [*stating, *(e for e in defining if is_doc(e)), *exact, *defining]
    if not leads:
        return a.nothing("defines")
    top = leads[0]
    if top in exact or top in defining or top in stating:
        a.shown.update(("term", "definition_span"))
    at, said = a.lead(top, stating=True)
    subject = a.subject or "it"
    if top.symbol and top.node_id.startswith("def:"):
        kind = def_kind(top, said)
        head = f"`{top.symbol}` is {kind + ' ' if kind else ''}defined in {at}:"
    elif is_code(top) and (name := _assigned(top, a.main)):
        at, said = cite(top, (line := telling_line(top, a.main))[1]), line[0]
        head = f"`{name}` is set in {at}:"
    else:
        head = f"{capitalized(doc_place(top, at))} defines {subject}:"
    documented = a.docs_about(a.main, exclude=[top]) if is_code(top) else []
    rest = [e for e in a.ordered(a.relevant()) if e not in (top, *documented)]
    return [head, indented(said), *a.block("Documented in:", documented),
            *a.block("Also relevant:", rest, limit=3)]


def _states(item: EvidenceItem, phrases: Sequence[str]) -> bool:
    said = doc_sentences(item, phrases, 1, stating=True)
    return said is not None and states_text(said[0], phrases)


def _assigned(item: EvidenceItem, phrases: Sequence[str]) -> str | None:
    """The name a `NAME = value` line of the item assigns, when it is the asked name."""
    wanted = {p.strip("`").lower().replace("_", "").replace(" ", "") for p in phrases}
    for line in item.text.splitlines():
        match = _ASSIGNED.match(line)
        if match and match.group(1).lower().replace("_", "") in wanted:
            return match.group(1)
    return None


def _where_sentence(a: Answer, place: str) -> str:
    """"The retry policy is decided in <place>:" echoing the question's own subject and verb
    (`Asked.where_echo`), else "The best match in the code for X is <place>:"."""
    if a.plan.asked.where_echo:
        return f"{capitalized(a.plan.asked.where_echo)} in {place}:"
    if a.subject:
        return f"The best match in the code for {a.subject} is {place}:"
    return f"The best match in the code is {place}:"


def _acts(item: EvidenceItem, action: str | None, subject: Sequence[str]) -> int:
    """How well a definition's name carries the question's action and subject ("where is the
    BM25 index built?" -> build_bm25_index): 2 both, 1 the action and a subject word, 0."""
    if not action or not item.symbol:
        return 0
    root = action[:-1] if len(action) > 4 and action.endswith("e") else action
    name = re.sub(r"[^a-z0-9]", "", item.symbol.lower())
    words = [w.lower() for p in subject[:1] for w in re.findall(r"[A-Za-z0-9]+", p)]
    if root not in name or not words:
        return 0
    found = sum(w in name for w in words)
    return 2 if found == len(words) else 1 if found else 0


def _location(a: Answer) -> list[str]:
    relevant = a.relevant()
    if not relevant:
        return a.nothing("names")
    # code that names the subject (not only in a string literal), defines it, is named for
    # the action, or that a doc section about it names
    acts = {e.id: _acts(e, a.plan.action, a.main) for e in a.evidence}
    tests = _asks_about_tests(a)  # "where is X tested?": the tests are the answer
    code = [e for e in a.evidence if is_code(e) and (e.kind != "test" or tests)
            and not a.demoted(e) and (
                e.kind in ("definition", "test") or code_mentions(e, a.main) or acts[e.id]
                or "aligned" in e.reason_codes)]
    # the definition named for the action and subject, a definition of the subject, one
    # named for the action, any definition, then the rest (module code), best score first
    code.sort(key=lambda e: ((e.kind != "test") if tests else False, acts[e.id] < 2,
                             e.kind != "definition", acts[e.id] < 1,
                             not e.node_id.startswith("def:"), -e.score, e.path, e.start_line))
    if not code:
        docs = a.docs_about(a.main)
        if not docs:
            return a.nothing("names")
        subject = a.subject or "it"
        return [f"No code that names {subject} was found; the documentation that discusses "
                f"it:", *(a.claim(e) for e in docs)]
    top = code[0]
    at, said = a.lead(top)
    # the definition's name, unless the subject already spells it ("where is BM25Index
    # defined?"; a plain word such as "diameter" is still named)
    name = (top.symbol or "").rsplit(".", 1)[-1]
    spelled = name in re.findall(r"\w+", a.main[0] if a.main else "") and (
        is_identifier(name) or a.subject in (name, f"`{name}`"))
    named = top.symbol and top.node_id.startswith("def:") and not spelled
    place = f"`{top.symbol}`, {at}" if named else at
    a.shown.add("location")
    docs = a.docs_about(a.main)
    return [_where_sentence(a, place), indented(said),
            *a.block("Other places (best first):", code[1:]),
            *a.block("Documented in:", docs)]


def _asks_about_tests(a: Answer) -> bool:
    return a.plan.asked.names_tests


def _explanation(a: Answer) -> list[str]:
    # the controller's order, then how many of the question's words a span holds: a question
    # that never names its function is rarely matched word for word by the best span
    best = sorted(a.evidence, key=lambda e: (not a.spelled(e), -a.overlap(e)))
    leads = [e for e in best if a.answers(e)]
    if not leads:
        return a.nothing("explains")
    top = leads[0]
    at, said = a.lead(top)
    subject = _noun_topic(a)
    code = sorted((e for e in best if is_code(e) and e is not top and e.kind != "test"
                   and not a.demoted(e)),
                  key=lambda e: (-a.overlap(e), not e.node_id.startswith("def:")))
    # when the evidence does not show the topic (or code doing it), the lead is only the
    # closest match, and the sentence says so
    sure = not {"topic", "mechanism"} & set(a.coverage.missing)
    if is_doc(top):
        head = (f"{capitalized(doc_place(top, at))} explains {subject or 'this'}:" if sure
                else f"The closest documentation is {doc_place(top, at)}:")
        docs = a.docs_about(a.main, exclude=[top])
        return [head, indented(said),
                *a.block("In the code:", code, limit=a.policy.min_code_claims),
                *a.block("Also documented in:", docs)]
    name = (f"`{top.symbol}`, in {at}" if top.symbol and top.node_id.startswith("def:")
            else f"in {at}")
    head = (f"The closest code is {name}:" if not sure
            else f"The code for {subject} is {name}:" if subject
            else f"The code that does this is {name}:")
    docs = a.docs_about(a.main, exclude=[top]) or [
        e for e in best if is_doc(e) and a.answers(e) and e is not top][:1]
    return [head, indented(said), *a.block("Documented in:", docs),
            *a.block("Also relevant:", code, limit=a.policy.min_code_claims)]


def _noun_topic(a: Answer) -> str | None:
    """The topic as a noun phrase, only when the question is "explain X" / "how does X work"."""
    return a.plan.asked.noun_topic


def _relation(a: Answer) -> list[str]:
    subjects = a.plan.subjects
    x, y = subjects.get("x", ("",))[0], subjects.get("y", ("",))[0]
    shown_x = a.plan.asked.shown_as(x) or "the first side"
    shown_y = a.plan.asked.shown_as(y) or "the second side"
    both = a.ordered([*a.covering("link"),
                      *(e for e in a.evidence if mentions(e, (x,)) and mentions(e, (y,)))])
    # a doc sentence naming both says how they relate; code naming both comes next
    leads = sorted((e for e in both if a.answers(e)), key=lambda e: not _says_both(e, (x, y)))
    only_x = [e for e in a.ordered(a.evidence) if mentions(e, (x,)) and e not in both]
    only_y = [e for e in a.ordered(a.evidence) if mentions(e, (y,)) and e not in both]
    if leads:
        top = leads[0]
        at, said = a.lead(top, (x, y), together=True)
        if is_code(top) and (line := _line_naming_all(top, (x, y))):
            said, at = line[0], cite(top, line[1])
        where = doc_place(top, at) if is_doc(top) else (
            f"`{top.symbol}` ({at})" if top.symbol else at)
        lines = [f"Both {shown_x} and {shown_y} appear in {where}:", indented(said),
                 *a.block("Also naming both:", [e for e in both if e is not top], (x, y), 2)]
    elif only_x or only_y:
        lines = [f"No single span names both {shown_x} and {shown_y}; what each side says:"]
    else:
        return a.nothing("names")
    return [*lines, *a.block(f"On {shown_x}:", only_x, (x,), 2),
            *a.block(f"On {shown_y}:", only_y, (y,), 2)]


def _says_both(item: EvidenceItem, pair: Sequence[str]) -> bool:
    said = doc_sentences(item, pair, 1, together=True) if is_doc(item) else None
    return said is not None and all(mentions_text(said[0], (p,)) for p in pair)


def _line_naming_all(item: EvidenceItem, phrases: Sequence[str]) -> tuple[str, int] | None:
    for offset, line in enumerate(item.text.splitlines()):
        if all(mentions_text(line, (p,)) for p in phrases):
            return code_line(line), item.start_line + offset
    return None


def _unit_line(item: EvidenceItem, unit: str, denied: bool = False,
               quantity: Sequence[str] = ()) -> tuple[str, int, str | None] | None:
    """(quote, line, unit stated instead) of the first line stating the quantity in `unit`
    (`denied`: the first line naming `unit` only where a negation reaches it, "never
    expressed in GPa", "in pascal (not GPa)"); each mention is read in its sentence."""
    lines = item.text.splitlines()
    for found in unit_lines(item.text, unit, tuple(quantity)):
        if found.states != denied and found.offset < len(lines):
            line = lines[found.offset]
            said = quote(line, markdown=True) if is_doc(item) else code_line(line)
            return said, item.start_line + found.offset, found.instead
    return None


def _assignment(item: EvidenceItem, quantity: Sequence[str]) -> tuple[str, int] | None:
    """A `NAME = value` line whose name holds every word of the quantity (TIMEOUT_S for
    "timeout", FINESSE_TARGET for "finesse target")."""
    words = [w.lower() for p in quantity[:1] for w in re.findall(r"[A-Za-z0-9]+", p)]
    if not words or not is_code(item):
        return None
    for offset, line in enumerate(item.text.splitlines()):
        match = _ASSIGNED.match(line)
        if match and all(w in match.group(1).lower() for w in words):
            return code_line(line), item.start_line + offset
    return None


def _value_line(item: EvidenceItem, quantity: Sequence[str]) -> tuple[str, int] | None:
    """The line that gives the quantity a value: a keyword default or assignment of one of its
    words (`weight="weight"`), else a line with most of its words and `=`, `:` or "default";
    never a decorator."""
    words = [w.lower() for p in quantity for w in re.findall(r"[A-Za-z0-9_]+", p)]
    lines = [(offset, line) for offset, line in enumerate(item.text.splitlines())
             if not line.strip().startswith("@")]
    keyword = re.compile(r"(?i)\b(?:" + "|".join(map(re.escape, words)) + r")\w*\s*(?::[^=,)]*)?="
                         ) if words else None
    tests = [lambda ln: bool(keyword and keyword.search(ln))]
    tests.append(lambda ln: any(
        (need := set(token_set(p))) and 2 * len(need & token_set(ln)) >= len(need)
        for p in quantity) and bool(re.search(r"[=:]|default", ln)))
    for test in tests:
        for offset, line in lines:
            if test(line):
                said = quote(line, markdown=True) if is_doc(item) else code_line(line)
                return said, item.start_line + offset
    return None


def _in(item: EvidenceItem, at: str) -> str:
    return f"`{item.symbol}`, {at}" if item.symbol and item.node_id.startswith("def:") else at


def _value_check(a: Answer) -> list[str]:
    quantity = a.plan.subjects.get("quantity", a.main)
    shown = a.plan.asked.shown_as(quantity[0] if quantity else None) or ""
    if shown and not shown.startswith(("`", "the ", "a ", "an ")):
        shown = f"the {shown}"
    unit = a.plan.unit
    relevant = [e for e in a.ordered(a.evidence) if mentions(e, quantity)]
    if unit:
        with_unit = [e for e in relevant
                     if _unit_line(e, unit, quantity=quantity) and not a.demoted(e)]
        if with_unit:
            top = with_unit[0]
            said, line, _ = (_unit_line(top, unit, quantity=quantity)
                             or ("", top.start_line, None))
            return [f"The evidence gives {shown or 'it'} in {unit}, in "
                    f"{_in(top, cite(top, line))}:",
                    indented(said), *a.block(f"Also stated in {unit}:", with_unit[1:], (unit,))]
        if not relevant:
            return a.nothing("states")
        denying = [e for e in relevant if _unit_line(e, unit, denied=True, quantity=quantity)]
        if denying:  # "never expressed in GPa": what the line says, plainly
            top = denying[0]
            said, line, other = (_unit_line(top, unit, denied=True, quantity=quantity)
                                 or ("", top.start_line, None))
            at = _in(top, cite(top, line))
            head = (f"The evidence gives {shown or 'it'} in {other}, not in {unit}, in {at}:"
                    if other else f"The evidence says {shown or 'it'} is not in {unit}, in {at}:")
            return [head, indented(said),
                    *a.block("Also relevant:", [e for e in relevant if e is not top],
                             quantity, 3)]
        return [f"The evidence does not state {shown or 'it'} in {unit}; what it says:",
                *(a.claim(e, quantity) for e in relevant[:a.policy.max_list])]
    # "the default X of Live": spans whose name or path names the owner first
    owner = a.plan.subjects.get("owner", ())

    def foreign(e: EvidenceItem) -> bool:
        return bool(owner) and not mentions_text(f"{e.symbol or ''} {e.path}", owner)

    spans = sorted(a.evidence, key=foreign)
    assigned = [(e, found) for e in spans if not a.demoted(e)
                and (found := _assignment(e, quantity))]
    valued = [e for e in spans if not a.demoted(e) and _value_line(e, quantity)]
    if assigned:
        top, (said, line) = assigned[0]
        a.shown.add("unit_or_value")
    elif valued:
        top = valued[0]
        said, line = _value_line(top, quantity) or telling_line(top, quantity)
    elif relevant:
        return [f"No value for {shown or 'this'} is stated in the evidence; what it says:",
                *(a.claim(e, quantity) for e in relevant[:a.policy.max_list])]
    else:
        return a.nothing("states")
    rest = [e for e in [*valued, *relevant] if e is not top]
    of = f" of {shown}" if shown else ""
    head = (f"The value{of} is set in {_in(top, cite(top, line))}:" if assigned else
            f"The closest statement{of} is in {_in(top, cite(top, line))}:")
    return [head, indented(said),
            *a.block("Also relevant:", a.ordered(rest), quantity, 3)]


def _doc_summary(a: Answer) -> list[str]:
    topic = a.plan.subjects.get("topic", a.main)
    shown = a.plan.asked.shown_as(topic[0] if topic else None) or "this"
    from_doc = sorted(a.covering("document"), key=lambda e: not is_doc(e))
    about = sorted(a.covering("topic"), key=lambda e: not is_doc(e)) or [
        e for e in from_doc if mentions(e, topic)]
    if about:
        top = about[0]
        at, said = a.lead(top, topic)
        head = f"{visible_field(top.path)} says this about {shown}, in {doc_place(top, at)}:"
        return [head, indented(said),
                *a.block("Also in the document:", [e for e in about if e is not top], topic, 3)]
    if from_doc:
        return [f"The sections of {visible_field(from_doc[0].path)} closest to {shown}:",
                *(a.claim(e, topic) for e in from_doc[:a.policy.max_list])]
    words = " ".join(a.plan.doc_words) or "the named document"
    return [f"The evidence closest to the document “{words}”:",
            *(a.claim(e, topic) for e in a.ordered(a.evidence)[:a.policy.max_list])]


def _issue(a: Answer) -> list[str]:
    """A bug report, traceback or change description: the code it most likely concerns, one
    place per file in the controller's order (source first), then its tests and docs."""
    per_file: dict[str, list[EvidenceItem]] = {}
    for e in a.evidence:
        if is_code(e) and e.kind != "test":
            per_file.setdefault(e.path, []).append(e)
    # each file by its best definition when it has one (a module's docstring says less)
    places = [next((e for e in items if e.node_id.startswith("def:")), items[0])
              for items in per_file.values()]
    if not places:
        return a.nothing("holds code for")
    # the report's words are not a phrase the code would quote: the places are the answer
    a.shown.update({"topic", "location"})
    top = places[0]
    at, said = a.lead(top)
    name = (f"`{top.symbol}`, in {at}" if top.symbol and top.node_id.startswith("def:")
            else f"in {at}")
    tests = [e for e in a.evidence if e.kind == "test"]
    docs = [e for e in a.evidence if is_doc(e)]
    return [f"The code this most likely concerns is {name}:", indented(said),
            *a.block("Other likely places (best first):", places[1:]),
            *a.block("Tests near it:", tests, limit=a.policy.max_docs),
            *a.block("Documented in:", docs, limit=a.policy.max_docs)]


ROUTES: dict[str, Callable[[Answer], list[str]]] = {
    "definition": _definition, "location": _location, "explanation": _explanation,
    "relation": _relation, "value_check": _value_check, "usage": usage_answer,
    "doc_summary": _doc_summary, "issue": _issue}


