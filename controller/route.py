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
from collections.abc import Callable

from pydantic import Field

from controller.asked import Asked, read_asked, words_of
from controller.issue_text import (
    frame_names,
    frame_paths,
    headline,
    is_change_or_bug,
    is_pasted,
    reads_as_question,
)
from controller.question_words import respelt_question_words
from controller.route_paths import pathlike_spans, without_pathlike
from controller.text import is_identifier, token_set
from controller.tool_call_text import quoted_question, syntax_words
from controller.vocabulary import load
from helix.core.english import NUMBER_WORDS, QUESTION_WORDS
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
# The vocabulary of asking (controller/route_phrases.toml, compiled by controller.vocabulary):
# the route patterns, first match wins, and the words a subject is cleaned of.
VOCABULARY = load()
_PATTERNS: tuple[tuple[Route, re.Pattern[str]], ...] = tuple(
    (phrase.route, phrase.regex) for phrase in VOCABULARY.routes)  # type: ignore[misc]
# Words naming what kind of thing a document is; dropped from a document's name words.
DOC_NOUNS = frozenset(VOCABULARY.lists["doc_nouns"])
BARE_FILENAMES = ("README", "CHANGELOG", "LICENSE", "CONTRIBUTING", "Makefile", "Dockerfile",
                  "pyproject")
# "in tests/", "under indexers/": a directory (the slash ends the name: "in HTTP/1.1" is not one)
_SCOPE = VOCABULARY["SCOPE"]
_BACKTICK = re.compile(r"`([^`]+)`")
# a single quote opens and closes only at a word's edge: the apostrophes of "the class's
# dependency on the protocol's parser" quote nothing
_QUOTED = re.compile(r"\"([^\"]+)\"|(?<![\w'])'([^']{2,})'(?![\w'])")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\d+(?:\.\d+)?")
_LEAD_VERB = VOCABULARY["LEAD_VERB"]
_ARTICLE = VOCABULARY["ARTICLE"]
# Trailing verbs of a location question that name an action code performs, by base form.
ACTIONS = VOCABULARY.actions
_ACTION = VOCABULARY["ACTION"]  # "where is X built?"
# Trailing verbs that only say where something is (no action to search code for).
WHERE_VERBS = VOCABULARY.lists["where_verbs"]
_TRAILING_VERB = VOCABULARY["TRAILING_VERB"]
_LEAD_WHERE_VERB = VOCABULARY["LEAD_WHERE_VERB"]  # "where is defined X" (the verb first)
_KIND_NOUN = VOCABULARY["KIND_NOUN"]  # "the tokenize function": the name is "tokenize"
# what a message says around its question: fillers and greetings before it, a polite frame
# ("could you tell me where ..."), a courtesy after it (", please")
_CONVERSATIONAL_LEAD = VOCABULARY["CONVERSATIONAL_LEAD"]
_POLITE_FRAME = VOCABULARY["POLITE_FRAME"]
_POLITE_REQUEST = VOCABULARY["POLITE_REQUEST"]
_TRAILING_COURTESY = VOCABULARY["TRAILING_COURTESY"]
_HEDGE = VOCABULARY["HEDGE"]  # "is X actually built": the adverb only stresses
# the question words misspelt ("whre is", "how dose"), read as meant before anything routes
_RESPELL = VOCABULARY.respell
_RESPELT = re.compile(r"\b(" + "|".join(map(re.escape, _RESPELL)) + r")\b", re.IGNORECASE)
_AUX_TYPO = VOCABULARY["AUX_TYPO"]


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
    # the term came from a question about one plain word asked in other words than a bare
    # definition ("where is cavity defined?", "explain the cavity"): the senses are checked,
    # a split asks the two-option clarifier, a dominant sense leaves the run as asked
    sense_check_only: bool = False
    text: str = ""  # the question's words as asked (scope clause removed): whole-file matching
    # location: what is done to the subject, in the base form code names it ("where is the
    # index built?" -> "build"); None for verbs that only say "where" (defined, located...)
    action: str | None = None
    # the retrieval policy that runs (None: the route's own): a long question is retrieved
    # like a report ("long_question"), its route, slots and answer unchanged
    policy_route: RouteName | None = None
    # every group the route's pattern matched, cleaned ("topic", "document", "x", "y",
    # "symbol", "quantity", "unit", "owner", "noun", "term", "target")
    groups: dict[str, str] = Field(default_factory=dict)
    asked: Asked = Field(default_factory=Asked)  # what the answer echoes (controller.asked)

    @property
    def policy_name(self) -> RouteName:
        return self.policy_route or self.intent.route

    @property
    def term_words(self) -> frozenset[str]:
        """The terms' words as the index tokenizes and stems them: one definition read by every
        step (evidence order, answer spans, in-file definitions, moves); `token_set` remembers
        the text, so a copy of the plan with other terms never reads stale words."""
        return token_set(" ".join(self.intent.terms))




def with_bare_names(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """A subject's phrases and each without a trailing code-kind noun: code names "the tokenize
    function" `def tokenize`, never "function" (the phrase as asked stays first: the answer
    echoes it)."""
    bare = (_KIND_NOUN.sub("", p).strip() for p in phrases)
    return tuple(dict.fromkeys((*phrases, *(b for b in bare if b))))


def question_core(text: str) -> str:
    """The question a message asks, without what is said around it: "ok then, could you tell
    me where the index is built, please?" -> "where the index is built?". A message that is
    nothing but those words is kept whole."""
    core = respelt_question_words(_RESPELT.sub(lambda m: _RESPELL[m.group(1).lower()], text))[0]
    core = _AUX_TYPO.sub(r"\1 does", core)
    while True:
        new = _CONVERSATIONAL_LEAD.sub("", core, count=1)
        new = _POLITE_REQUEST.sub("", _POLITE_FRAME.sub("", new, count=1), count=1)
        new = _TRAILING_COURTESY.sub(r"\1", new, count=1).strip()
        if new == core:
            break
        core = new
    core = _HEDGE.sub("", core)
    rest = _CONVERSATIONAL_LEAD.match(f"{core} .")
    return text if not _WORD.search(core) or (rest and rest.end() >= len(core)) else core


def _clean_subject(text: str) -> str:
    text = _BACKTICK.sub(r"\1", text.strip().strip("?.!").strip())
    text = _SCOPE.sub("", text).strip()
    text = _TRAILING_VERB.sub("", text).strip()
    text = _LEAD_VERB.sub("", text).strip()
    text = _LEAD_WHERE_VERB.sub("", text).strip() or text
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
    stripped = without_pathlike(_BACKTICK.sub(" ", question))
    for word in _WORD.findall(stripped):
        if is_identifier(word) or (word.lower() not in STOPWORDS and len(word) > 1):
            add(word)
    return tuple(seen.values())


def _path_hints(question: str) -> tuple[str, ...]:
    hints: list[str] = []
    unquoted = _BACKTICK.sub(lambda m: f" {m.group(1)} ", question)
    for start, end in pathlike_spans(unquoted):
        hint = unquoted[start:end].strip(".")
        if hint.endswith("/") or "." in hint.rsplit("/", 1)[-1] or "/" in hint:
            hints.append(hint)
    words = set(words_of(question.lower()))
    hints += [name for name in BARE_FILENAMES if name.lower() in words]
    return tuple(dict.fromkeys(h for h in hints if not h.endswith("/")))


def _content(phrase: str) -> list[str]:
    return [w for w in _WORD.findall(phrase)
            if is_identifier(w) or (w.lower() not in STOPWORDS and len(w) > 1)]


def _match(body: str) -> tuple[Route, dict[str, str]] | None:
    """The first route pattern that takes `body`, with its groups cleaned."""
    for candidate, pattern in _PATTERNS:
        match = pattern.match(body)
        if match:
            groups = {k: _clean_subject(v) for k, v in match.groupdict().items() if v}
            if "noun" in groups:  # "what <noun> does <owner> use by default"
                groups["quantity"] = f"{groups.pop('owner', '')} {groups.pop('noun')}".strip()
            return candidate, groups
    return None


def _unmatched(question: str, body: str, pasted: bool, routing: RoutingPolicy,
               terms: tuple[str, ...], hints: tuple[str, ...]
               ) -> tuple[Route, dict[str, str], tuple[str, ...], tuple[str, ...]]:
    """No pattern took the question: a report or a change is an issue (frames name files and
    functions); a bare word or phrase is a definition request, anything longer explains."""
    if pasted or is_change_or_bug(question, routing):
        terms = tuple(dict.fromkeys((*frame_names(question), *terms)))
        hints = tuple(dict.fromkeys((*hints, *frame_paths(question))))
        topic = " ".join(_content(headline(question))) or " ".join(terms[:6])
        return "issue", {"topic": topic}, terms, hints
    words = _content(body)
    if 0 < len(words) <= routing.short_question_words:
        return "definition", {"term": " ".join(words)}, terms, hints
    return "explanation", {"topic": " ".join(terms[:6])}, terms, hints


def _subjects(route: Route, groups: dict[str, str], terms: tuple[str, ...]
              ) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...], str | None]:
    """slot -> phrases the evidence must show; a document's name words; the unit asked."""
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
    return subjects, doc_words, unit


# words that never name what a one-word sense question asks about (route_phrases.toml's
# sense_asides, fillers, asides and hedges), and a phrase naming the whole repository
_SENSE_ASIDE = VOCABULARY["SENSE_ASIDE"]
_ASKS_WHAT_A_WORD_IS = VOCABULARY["ASKS_WHAT_A_WORD_IS"]
_REPOSITORY_SCOPE = VOCABULARY["REPOSITORY_SCOPE"]


Knows = Callable[[str], bool]  # the repository's text uses this (lower-case) word


def sense_terms(body: str, terms: tuple[str, ...], knows: Knows | None = None
                ) -> tuple[str, ...]:
    """The terms a sense check reads: the question's terms less the words that never name its
    subject ("um so, totally unrelated, but what's a cavity in the core repo?" -> "cavity"),
    and, when the index's vocabulary is at hand (`knows`) and the message asks what a word is
    or means, less the plain words the repository never uses: they name nothing in it ("whats
    cavity lol", "so what even is a cavity, I keep seeing the word everywhere" -> "cavity"; a
    phrase or an identifier is kept; "where is the cavity pull defined" asks no meaning)."""
    kept = {w.lower() for w in _WORD.findall(_REPOSITORY_SCOPE.sub(" ", body))} \
        - syntax_words(body)
    words = (_one_word(t) for t in terms)  # a quoted "the cavity" is the word cavity
    subject = tuple(dict.fromkeys(t for t in words if not _SENSE_ASIDE.match(t)
                                  and (" " in t or t.lower() in kept)))
    if knows is None:
        return subject
    known = tuple(t for t in subject if " " in t or is_identifier(t)
                  or (knows(t.lower()) and not _counts(t)))
    if not _asks_about_a_word(body, knows):
        return _named_in_repository(subject, known, body, knows)
    quoted = _quoted_word(body, knows)
    if quoted is not None and any(t.lower() == quoted for t in known) \
            and _ASKS_WHAT_A_WORD_IS.search(body):
        return (quoted,)  # "I'm new to Python: what does 'cavity' mean here?": the word quoted
    if len(known) == 1 and known != subject and not _heads_phrase(known[0], body):
        return subject  # "where the program counts how often ...": no word asked about
    return known


def _named_in_repository(subject: tuple[str, ...], known: tuple[str, ...], body: str,
                         knows: Knows) -> tuple[str, ...]:
    """What a question in any wording or language is about in the repository: its words the
    repository never uses name nothing in it ("wetin be cavity for dis code?", "cavity ka
    matlab kya hai is code mein?" -> "cavity"). One plain word left, standing where a subject
    stands (`_heads_phrase`, an unknown word before it counting as no content word here),
    is the subject; otherwise the question's terms as they are."""
    if len(known) != 1 or known == subject or " " in known[0] or is_identifier(known[0]):
        return subject
    return known if _heads_phrase(known[0], body, knows) else subject


# a plain word quoted alone ("what does 'cavity' denote", 'ask "cavity"'); a plain word
# standing alone before the rest of the message ("cavity. go", "cavity — which one, quick")
_QUOTED_WORD = re.compile(r"(?<![\w'’])['\"‘“]([a-z][a-z-]*)['\"’”](?![\w'’])")
_LONE_LEAD = re.compile(r"^\W*([A-Za-z][a-z-]*)\s*(?:[.,;!?]+|\s[-—–]+)\s*\S")


def _asks_about_a_word(body: str, knows: Knows) -> bool:
    """The message asks about a word, not about what the code does: it asks what a word is
    or means, or it mentions one plain word as a word (the one word quoted: 'cavity'), or a
    word of the repository stands alone before the rest of the message as its subject
    ("cavity. go"; a greeting, an aside or a label there is none: "hello, where is ...")."""
    if _ASKS_WHAT_A_WORD_IS.search(body) or _quoted_word(body, knows) is not None:
        return True
    lone = _LONE_LEAD.match(body)
    word = lone.group(1).lower() if lone else ""
    return bool(word) and not _SENSE_ASIDE.match(word) and word not in STOPWORDS and knows(word)


def _quoted_word(body: str, knows: Knows) -> str | None:
    """The one plain word of the repository the message quotes, alone ('cavity')."""
    quoted = [w.lower() for w in _QUOTED_WORD.findall(body)]
    one = len(quoted) == 1 and quoted[0] not in STOPWORDS and knows(quoted[0])
    return quoted[0] if one else None


def _counts(word: str) -> bool:
    """A number ("10 words max", "two meanings"): how many, never what is asked about."""
    return word.isdigit() or word.lower() in NUMBER_WORDS


def _one_word(term: str) -> str:
    """A quoted phrase of one content word and function words ('the cavity') as that word."""
    content = _content(term) if " " in term else []
    return content[0] if len(content) == 1 and not is_identifier(content[0]) else term


# the last word before the text's trailing non-word characters, read on the text reversed (a
# search for it ending at `$` tried every start of a long run of them: quadratic)
_PRECEDING = re.compile(r"[^\w'’]*([\w'’]*)")


def _heads_phrase(word: str, body: str, knows: Knows | None = None) -> bool:
    """`word` stands where a word asked about stands: first in its clause, quoted, or after a
    function word or a word of asking about words ("what is a cavity", "cavity. go",
    "the term 'cavity'"), not after another content word ("the program counts")."""
    # a quote before or after the word is no clitic ("'cavity'" is the word quoted)
    found = re.search(rf"(?<!\w)(?<!\w['’])({re.escape(word)})(?!\w)(?!['’]\w)", body,
                      re.IGNORECASE)
    if found is None:
        return False
    before = body[:found.start()]
    if not before.strip() or re.search(r"[.,:;!?\"'“‘(\[]\s*$", before):
        return True
    previous = _PRECEDING.match(before[::-1])
    lead = previous.group(1)[::-1].lower() if previous else ""
    clitic = re.sub(r"['’]?s$", "", lead)  # "whats", "what's": a question word and its 's
    unknown = knows is not None and lead.isalpha() and not knows(lead)
    return (lead in STOPWORDS or clitic in STOPWORDS or bool(_SENSE_ASIDE.match(lead))
            or unknown)


_CLAUSE_END = re.compile(r"(?<=[.?!:])\s+")
_REFERS_BACK = VOCABULARY["REFERS_BACK"]


def asked_clause(text: str) -> str | None:
    """The one clause that asks, in a message of several ("What is a cavity? I saw this word
    in two places.", "A user asks: what is a cavity?", a question quoted: 'relaying from
    @oncall: "what is a cavity?"'): the sentence ending in a question mark, or what follows a
    colon when that is the question, or what follows a label of a few words and a colon
    when it reads as a question ("New query: define cavity.", "TASK: explain term 'cavity'"),
    or the one quoted question of a message saying more ('ask(query="what is a cavity")').
    None for a message of one clause, or with no or several questions, or when the clause
    points back at the others ("The bar turns red when I interrupt it. Where does that
    happen?": a report whose sentences are part of what is asked; the repository named is no
    pointer)."""
    quoted = quoted_question(text)
    if quoted is not None:
        return quoted
    parts = [p.strip() for p in _CLAUSE_END.split(text) if p.strip()]
    asks = [_QUOTE_ENDS.sub("", p) for p in parts if _QUOTE_ENDS.sub("", p).endswith("?")]
    if len(parts) < 2:
        return None
    if not asks:
        return _after_label(text)
    if len(asks) != 1 or _REFERS_BACK.search(_REPOSITORY_SCOPE.sub(" ", asks[0])):
        return None
    return asks[0]


_QUOTE_ENDS = re.compile(r"^[\"“”'‘’]+|[\"“”'‘’]+$")
_LABEL = re.compile(r"^\W*(?:\w[\w-]*\W+){0,2}?\w[\w-]*\s*:\s+(?P<rest>.+)$")


def _after_label(text: str) -> str | None:
    """What follows a label of at most three words and a colon, when it reads as a question
    ("[ci-bot] query: what is a cavity", "TASK: explain term 'cavity' in repo")."""
    found = _LABEL.match(text)
    rest = found.group("rest").strip().rstrip(".") if found else ""
    return rest if rest and reads_as_question(rest) else None


# routes whose question may be about one plain word whatever its framing ("where is cavity
# defined?", "explain the cavity", "cavity. what is it."): its senses are checked
SENSE_CHECK_ROUTES = frozenset({"definition", "location", "explanation", "issue"})


def _one_plain_word(route: Route, terms: tuple[str, ...], hints: tuple[str, ...],
                    scope: str | None, pasted: bool) -> bool:
    """The question's only search term is one plain word (no identifier, path or scope):
    whatever the framing, it asks about that word, which may mean two things here."""
    return (route in SENSE_CHECK_ROUTES and len(terms) == 1 and not pasted and not hints
            and scope is None and not is_identifier(terms[0])
            and len(_content(terms[0])) == 1)


def route_question(question: str, *, routing: RoutingPolicy, scope: str | None = None,
                   sense: str | None = None, knows: Knows | None = None) -> RoutePlan:
    """Classify `question` and name the slots its answer needs. Total: every question routes.
    `knows`: the index's vocabulary, read by the sense check only (`sense_terms`)."""
    text = question_core(" ".join(question.split()))
    # A pasted report (traceback, several lines, many words) is an issue whatever it says; its
    # "in src/x/" is part of the story, not a scope the user set.
    pasted = is_pasted(question, routing)
    scope_match = None if pasted else _SCOPE.search(text)
    if scope is None and scope_match:
        scope = scope_match.group("scope")
    body = _SCOPE.sub("", text).strip() if scope_match else text
    terms = _terms(body)
    hints = _path_hints(body)
    matched = None if pasted else _match(body)
    if matched is None:
        route, groups, terms, hints = _unmatched(question if pasted else text, body, pasted,
                                                 routing, terms, hints)
    else:
        route, groups = matched
    subjects, doc_words, unit = _subjects(route, groups, terms)
    main = subjects.get(SLOTS[route][0], ())
    ambiguous: str | None = None
    if (route == "definition" and main and len(_content(main[0])) == 1
            and not is_identifier(main[0]) and not _path_hints(body) and scope is None
            and len(_content(body)) <= routing.short_question_words):
        ambiguous = _content(main[0])[0].lower()  # "cavity meaning" -> "cavity"
    subject = sense_terms(body, terms, knows)
    check_only = ambiguous is None and _one_plain_word(route, subject, hints, scope, pasted)
    if check_only:
        ambiguous = subject[0].lower()
    # a message of several lines with no traceback asks the one question it quotes, if any
    # (a tool's call: 'query = "what does cavity mean in this repo"'); else it is a report
    clause = None if ambiguous or scope or (pasted and frame_paths(question)) else (
        quoted_question(text) if pasted else asked_clause(text))
    if clause is not None:  # "A user asks: what is a cavity?": the word it asks about
        ambiguous = route_question(clause, routing=routing, knows=knows).ambiguous_term
        check_only = ambiguous is not None
    if sense is not None and ambiguous is not None and main:
        # a sense chosen for the one word asked about ("whats cavity lol", then "storage"):
        # that word is the subject the answer must show, not the words framing it
        subjects = {**subjects, SLOTS[route][0]: (ambiguous,)}
    intent = Intent(route=route, slots=SLOTS[route], terms=terms, path_hints=hints,
                    scope=scope, sense=sense)
    action_match = _ACTION.search(body) if route == "location" else None
    long_question = (route not in KEEPS_OWN_POLICY
                     and len(_WORD.findall(body)) >= routing.long_question_words)
    words = " ".join(_WORD.findall(body))
    return RoutePlan(intent=intent, subjects=subjects, doc_words=doc_words, unit=unit,
                     ambiguous_term=ambiguous, sense_check_only=check_only, text=words,
                     action=ACTIONS[action_match.group(1).lower()] if action_match else None,
                     policy_route="long_question" if long_question else None,
                     groups=groups if matched else {},
                     asked=read_asked(route, subjects, SLOTS[route][0], words, terms,
                                      reads_as_question(words), body))
