"""Question -> route, slots, terms, path hints and scope. Deterministic, no index needed.

Routes and the slots each needs (a slot is covered when evidence actually shows it, see
`controller.coverage`):

    definition   "define X", "what is X", "what does X mean"      term, definition_span
    location     "where is X ...", "which file ..."                target, location
    explanation  "explain P", "how does P work", "the P pipeline"  topic, mechanism
    relation     "how does X relate to Y"                          x, y, link
    value_check  "is X in U", "what is the default of X"           quantity, unit_or_value
    usage        "who calls X", "how is X used", "examples of X"   symbol, call_sites
    doc_summary  "what does document D say about T"                document, topic
    issue        a bug report, traceback or change description     topic, location
                 (its shape decides: controller.issue_text)
"""

from __future__ import annotations

import re

from controller.issue_text import frame_names, frame_paths, headline, is_change_or_bug, is_pasted
from controller.text import is_identifier, token_set
from helix.core.english import QUESTION_WORDS
from helix.core.envelope import Intent, Route
from helix.core.policy import RouteName, RoutingPolicy
from helix.core.schemas import Frozen

SLOTS: dict[Route, tuple[str, ...]] = {
    "definition": ("term", "definition_span"),
    "location": ("target", "location"),
    "explanation": ("topic", "mechanism"),
    "relation": ("x", "y", "link"),
    "value_check": ("quantity", "unit_or_value"),
    "usage": ("symbol", "call_sites"),
    "doc_summary": ("document", "topic"),
    "issue": ("topic", "location"),
}

# English words that never carry the subject of a repository question (helix.core.english).

STOPWORDS = QUESTION_WORDS
# Words naming what kind of thing a document is; dropped from a document's name words.
_DOC_NOUN_TEXT = "document doc docs file page tree guide spec readme section note notes"
DOC_NOUNS = frozenset(_DOC_NOUN_TEXT.split())
KNOWN_EXTENSIONS = (
    "py", "md", "rst", "txt", "json", "toml", "yaml", "yml", "js", "ts", "tsx", "go", "rs", "java",
    "c", "h", "cc", "cpp", "hpp", "sh", "cfg", "ini", "scm", "sql", "html", "css",
)
BARE_FILENAMES = ("README", "CHANGELOG", "LICENSE", "CONTRIBUTING", "Makefile", "Dockerfile",
                  "pyproject")
# "what is a cavity" has one subject word; `routing.short_question_words` at most is "short"
DEFAULT_ROUTING = RoutingPolicy()

_FLAGS = re.IGNORECASE
_TAIL = r"(?:\s+(?:in|for|within)\s+(?:this|the)\s+(?:repo|repository|codebase|project))?\s*[?.!]*$"
_PATTERNS: tuple[tuple[Route, re.Pattern[str]], ...] = (
    ("doc_summary", re.compile(
        r"^what\s+(?:does|do)\s+(?P<document>.+?)\s+(?:say|said|tell us|state)\s+about\s+"
        r"(?P<topic>.+?)" + _TAIL, _FLAGS)),
    ("doc_summary", re.compile(
        r"^what\s+(?:is|are)\s+(?P<document>.+?)\s+about" + _TAIL, _FLAGS)),
    ("doc_summary", re.compile(
        r"^(?:summari[sz]e|give a summary of|summary of)\s+(?P<document>.+?)"
        r"(?:\s+(?:on|about|regarding)\s+(?P<topic>.+?))?" + _TAIL, _FLAGS)),
    ("relation", re.compile(
        r"^how\s+(?:does|do|is|are)\s+(?P<x>.+?)\s+(?:relate[sd]?|connect(?:ed)?|compare[sd]?)"
        r"\s+(?:to|with)\s+(?P<y>.+?)" + _TAIL, _FLAGS)),
    ("relation", re.compile(
        r"^(?:what\s+is\s+)?(?:the\s+)?(?:relation(?:ship)?|difference|link|connection)\s+"
        r"between\s+(?P<x>.+?)\s+and\s+(?P<y>.+?)" + _TAIL, _FLAGS)),
    ("relation", re.compile(
        r"^how\s+are\s+(?P<x>.+?)\s+and\s+(?P<y>.+?)\s+related" + _TAIL, _FLAGS)),
    ("usage", re.compile(
        r"^(?:who|what|which\s+\w+)\s+(?:calls|uses|invokes|imports)\s+(?P<symbol>.+?)" + _TAIL,
        _FLAGS)),
    ("usage", re.compile(
        r"^(?:how|where)\s+(?:is|are)\s+(?P<symbol>.+?)\s+(?:used|called|invoked)"
        r"(?:\s.*)?" + _TAIL, _FLAGS)),
    ("usage", re.compile(
        r"^(?:show\s+(?:me\s+)?)?(?:examples?|usages?|callers|call sites|uses)\s+(?:of|for)\s+"
        r"(?P<symbol>.+?)" + _TAIL, _FLAGS)),
    ("value_check", re.compile(
        r"^(?:is|are)\s+(?:the\s+)?(?P<quantity>.+?)\s+(?:measured\s+|expressed\s+|given\s+)?in\s+"
        r"(?P<unit>[\w/^*.%-]+(?:\s+[\w/^*.%-]+)?)" + _TAIL, _FLAGS)),
    ("value_check", re.compile(
        r"^what\s+(?:is|are)\s+the\s+(?:default\s+)?(?:value|values|default|unit|units|limit)\s+"
        r"(?:of|for)\s+(?P<quantity>.+?)" + _TAIL, _FLAGS)),
    ("value_check", re.compile(
        r"^what\s+(?:unit|units)\s+(?:is|are|does|do)\s+(?P<quantity>.+?)(?:\s+use|\s+in)?"
        + _TAIL, _FLAGS)),
    ("value_check", re.compile(
        r"^(?:what\s+is\s+)?(?:the\s+)?default\s+(?:value\s+)?(?:of|for)\s+(?P<quantity>.+?)"
        + _TAIL, _FLAGS)),
    ("value_check", re.compile(
        r"^what\s+(?:is|are)\s+the\s+default\s+(?P<quantity>.+?)(?:\s+(?:in|of|for|used by)\s+"
        r"(?P<owner>.+?))?" + _TAIL, _FLAGS)),
    # "what <noun> does <owner> use by default / return?" asks for a value: the quantity is
    # the owner's noun ("what timeout does connect use by default?" -> "connect timeout").
    ("value_check", re.compile(
        r"^(?:what|which|how\s+many|how\s+much)\s+(?P<noun>\w+(?:\s+\w+)?)\s+(?:does|do|is|are)"
        r"\s+(?P<owner>.+?)(?:(?:\s+\w+)?\s+by\s+default|\s+return)" + _TAIL, _FLAGS)),
    ("location", re.compile(
        r"^(?:where|in\s+which\s+(?:file|module|class|function))\s+(?:is|are|does|do|did)?\s*"
        r"(?P<target>.+?)" + _TAIL, _FLAGS)),
    ("location", re.compile(
        r"^which\s+(?:file|files|module|modules|class|function|functions|method)\s+(?P<target>.+?)"
        + _TAIL, _FLAGS)),
    ("location", re.compile(r"^(?:find|locate)\s+(?P<target>.+?)" + _TAIL, _FLAGS)),
    ("explanation", re.compile(
        r"^how\s+(?:does|do|is|are)\s+(?P<topic>.+?)\s+(?:work|works|function|happen|run|get|"
        r"computed|built|handled|done)(?:\s.*)?" + _TAIL, _FLAGS)),
    ("explanation", re.compile(r"^what\s+(?:does|do)\s+(?P<topic>.+?)\s+do" + _TAIL, _FLAGS)),
    ("explanation", re.compile(
        r"^(?:explain|describe|walk me through|give an overview of)\s+(?P<topic>.+?)" + _TAIL,
        _FLAGS)),
    ("definition", re.compile(r"^define\s+(?P<term>.+?)" + _TAIL, _FLAGS)),
    ("definition", re.compile(
        r"^what\s+(?:does|do)\s+(?P<term>.+?)\s+(?:mean|stand for|refer to)" + _TAIL, _FLAGS)),
    ("definition", re.compile(r"^(?:meaning|definition)\s+of\s+(?P<term>.+?)" + _TAIL, _FLAGS)),
    ("definition", re.compile(
        r"^what\s+(?:is|are|'s)\s+(?P<term>.+?)" + _TAIL, _FLAGS)),
)
# "in tests/", "under indexers/": a directory (the slash ends the name: "in HTTP/1.1" is not one)
_SCOPE = re.compile(
    r"\b(?:in|under|within|inside)\s+`?(?P<scope>[\w.-]+(?:/[\w.-]+)*/)(?![\w.-])`?", _FLAGS)
_BACKTICK = re.compile(r"`([^`]+)`")
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']{2,})'")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\d+(?:\.\d+)?")
_PATHLIKE = re.compile(
    r"(?<![\w/.])([\w.-]+(?:/[\w.-]+)+|[\w-]+\.(?:" + "|".join(KNOWN_EXTENSIONS) + r"))(?![\w/])")
_LEAD_VERB = re.compile(
    r"^(?:defines|define|contains|contain|holds|implements|implement|has|declares|builds|"
    r"computes|handles|decides|creates|configures)\s+", _FLAGS)
_ARTICLE = re.compile(r"^(?:the|a|an|this|that|our|its)\s+", _FLAGS)
# Trailing verbs of a location question that name an action code performs, by base form.
ACTIONS = {"decided": "decide", "built": "build", "computed": "compute", "handled": "handle",
           "set": "set", "configured": "configure", "created": "create", "stored": "store",
           "chosen": "choose", "parsed": "parse", "loaded": "load", "written": "write",
           "read": "read", "checked": "check", "validated": "validate",
           "registered": "register", "raised": "raise"}
_ACTION = re.compile(r"\b(" + "|".join(ACTIONS) + r")\W*$", re.I)  # "where is X built?"
# Trailing verbs that only say where something is (no action to search code for).
WHERE_VERBS = ("defined", "implemented", "located", "declared", "made", "done", "used", "called",
               "tested", "happen", "happens", "live", "lives", "come from", "comes from")
_TRAILING_VERB = re.compile(
    r"\s+(?:is|are|was|gets?|got)?\s*(?:" + "|".join((*ACTIONS, *WHERE_VERBS)) + r")\b.*$",
    _FLAGS)


# routes whose policy says what the answer is (the call sites, a value, a document, a report):
# never swapped for the long-question policy
KEEPS_OWN_POLICY = frozenset({"usage", "value_check", "doc_summary", "issue"})


class RoutePlan(Frozen):
    """What the controller needs from the question; `intent` goes into the envelope."""

    intent: Intent
    subjects: dict[str, tuple[str, ...]]  # slot -> phrases the evidence must show
    doc_words: tuple[str, ...] = ()  # name words of the document a doc_summary asks about
    unit: str | None = None  # value_check: the unit or value asked about
    ambiguous_term: str | None = None  # a bare one-word subject: dominance may apply
    text: str = ""  # the question's words as asked (scope clause removed): whole-file matching
    # location: what is done to the subject, in the base form code names it ("where is the
    # index built?" -> "build"); None for verbs that only say "where" (defined, located...)
    action: str | None = None
    # the retrieval policy that runs (None: the route's own): a long question is retrieved
    # like a report ("long_question"), its route, slots and answer unchanged
    policy_route: RouteName | None = None

    @property
    def policy_name(self) -> RouteName:
        return self.policy_route or self.intent.route

    @property
    def term_words(self) -> frozenset[str]:
        """The terms' words as the index tokenizes and stems them: one definition read by every
        step (evidence order, answer spans, in-file definitions, moves); `token_set` remembers
        the text, so a copy of the plan with other terms never reads stale words."""
        return token_set(" ".join(self.intent.terms))




def _clean_subject(text: str) -> str:
    text = _BACKTICK.sub(r"\1", text.strip().strip("?.!").strip())
    text = _SCOPE.sub("", text).strip()
    text = _TRAILING_VERB.sub("", text).strip()
    text = _LEAD_VERB.sub("", text).strip()
    while True:
        new = _ARTICLE.sub("", text).strip()
        if new == text:
            break
        text = new
    return text.strip(" \t\"'`,;:")


def _terms(question: str) -> tuple[str, ...]:
    """Identifiers kept whole, quoted phrases, then content words; first occurrence wins."""
    seen: dict[str, str] = {}

    def add(term: str) -> None:
        key = term.lower()
        if term and key not in seen:
            seen[key] = term

    for match in _BACKTICK.finditer(question):
        add(match.group(1).strip())
    for match in _QUOTED.finditer(question):
        add((match.group(1) or match.group(2)).strip())
    stripped = _PATHLIKE.sub(" ", _BACKTICK.sub(" ", question))
    for word in _WORD.findall(stripped):
        if is_identifier(word) or (word.lower() not in STOPWORDS and len(word) > 1):
            add(word)
    return tuple(seen.values())


def _path_hints(question: str) -> tuple[str, ...]:
    hints: list[str] = []
    for match in _PATHLIKE.finditer(_BACKTICK.sub(lambda m: f" {m.group(1)} ", question)):
        hint = match.group(1).strip(".")
        if hint.endswith("/") or "." in hint.rsplit("/", 1)[-1] or "/" in hint:
            hints.append(hint)
    for name in BARE_FILENAMES:
        if re.search(rf"\b{re.escape(name)}\b", question):
            hints.append(name)
    return tuple(dict.fromkeys(h for h in hints if not h.endswith("/")))


def _content(phrase: str) -> list[str]:
    return [w for w in _WORD.findall(phrase)
            if is_identifier(w) or (w.lower() not in STOPWORDS and len(w) > 1)]


def route_question(question: str, *, scope: str | None = None, sense: str | None = None,
                   routing: RoutingPolicy | None = None) -> RoutePlan:
    """Classify `question` and name the slots its answer needs. Total: every question routes."""
    text = " ".join(question.split())
    # A pasted report (traceback, several lines, many words) is an issue whatever it says; its
    # "in src/x/" is part of the story, not a scope the user set.
    routing = routing or DEFAULT_ROUTING
    pasted = is_pasted(question, routing)
    scope_match = None if pasted else _SCOPE.search(text)
    if scope is None and scope_match:
        scope = scope_match.group("scope")
    body = _SCOPE.sub("", text).strip() if scope_match else text
    route: Route = "explanation"
    groups: dict[str, str] = {}
    for candidate, pattern in () if pasted else _PATTERNS:
        match = pattern.match(body)
        if match:
            route = candidate
            groups = {k: _clean_subject(v) for k, v in match.groupdict().items() if v}
            if "noun" in groups:  # "what <noun> does <owner> use by default"
                groups["quantity"] = f"{groups.pop('owner', '')} {groups.pop('noun')}".strip()
            break
    terms = _terms(body)
    hints = _path_hints(body)
    if not groups and (pasted or is_change_or_bug(question, routing)):
        # A report or a change: where in the code it lives. Frames name files and functions.
        route = "issue"
        terms = tuple(dict.fromkeys((*frame_names(question), *terms)))
        hints = tuple(dict.fromkeys((*hints, *frame_paths(question))))
        groups = {"topic": " ".join(_content(headline(question))) or " ".join(terms[:6])}
    elif not groups:
        # No pattern: a bare word or phrase is a definition request, anything longer explains.
        words = _content(body)
        route = ("definition" if 0 < len(words) <= routing.short_question_words
                 else "explanation")
        key = "term" if route == "definition" else "topic"
        groups = {key: " ".join(words) if route == "definition" else " ".join(terms[:6])}
    slots = SLOTS[route]
    subjects: dict[str, tuple[str, ...]] = {}
    doc_words: tuple[str, ...] = ()
    unit: str | None = None
    for slot in slots:
        value = groups.get(slot, "")
        if slot == "document":
            doc_words = tuple(w.lower() for w in _content(value) if w.lower() not in DOC_NOUNS)
            value = " ".join(doc_words) or value
        if value and _content(value):
            subjects[slot] = (value,)
    if route == "value_check":
        unit = groups.get("unit") or None
        if unit:
            subjects["unit_or_value"] = (unit,)
        # "the default X of <owner>": the owner holds the value; its definition is looked up
        owner = groups.get("owner", "").strip()
        if owner and _content(owner):
            subjects["owner"] = (owner,)
    if route == "relation" and "x" in subjects and "y" in subjects:
        subjects["link"] = (subjects["x"][0], subjects["y"][0])
    if route in ("location", "explanation") and not subjects.get(slots[0]) and terms:
        subjects[slots[0]] = (" ".join(terms[:4]),)
    if route == "doc_summary" and not subjects.get("topic") and subjects.get("document"):
        subjects["topic"] = subjects["document"]
    main = subjects.get(slots[0], ())
    ambiguous: str | None = None
    if (route == "definition" and main and len(_content(main[0])) == 1
            and not is_identifier(main[0]) and not _path_hints(body) and scope is None
            and len(_content(body)) <= routing.short_question_words):
        ambiguous = main[0].lower()
    intent = Intent(route=route, slots=slots, terms=terms, path_hints=hints,
                    scope=scope, sense=sense)
    action_match = _ACTION.search(body) if route == "location" else None
    long_question = (route not in KEEPS_OWN_POLICY
                     and len(_WORD.findall(body)) >= routing.long_question_words)
    return RoutePlan(intent=intent, subjects=subjects, doc_words=doc_words, unit=unit,
                     ambiguous_term=ambiguous, text=" ".join(_WORD.findall(body)),
                     action=ACTIONS[action_match.group(1).lower()] if action_match else None,
                     policy_route="long_question" if long_question else None)
