"""English text, in one home: the words that never carry a subject, the stemmers and the
token estimates every package uses (the index tokenizer, the router, the controller, compaction,
the answer text, the contract and the sessions).

Word lists (each a set of lowercase words):
    FUNCTION_WORDS      function words; the index tokenizer drops them (`indexers.tokenize`)
    QUESTION_WORDS      FUNCTION_WORDS and the words of asking about a repository ("explain",
                        "implemented", "codebase"): never a question's subject (`controller.route`)
    CLAIM_WORDS         function words and the vocabulary of claiming ("found", "evidence",
                        "snippet"): never a claim's object (`helix.synthesis.absence`); it
                        keeps a few function words that can be an object ("up", "down", "out")
    QUESTION_LEADS      the question words a definition's name is never scored on
    RECAP_WORDS         what a recap question ("did we talk about X?") says besides its topic
    NEGATION_WORDS, MATERIAL_WORDS, MATERIAL_OR_CODE_WORDS, THIS_SEARCH_WORDS, FINDING_WORDS,
    FIRST_PERSON, CODE_CONDITIONS
                        the vocabulary of an absence claim made by meaning
                        (`helix.synthesis.absence`)
    LONG_FORMS          an identifier's short word -> the English words it stands for
                        ("cfg" -> configuration, "id" -> identifier), stemmed
    DEFINING_VERBS      "is", "means", "stands for": what says a named thing is something
Ordinals (one table, one parser: the continuity lanes read "the second one", "option 3", "2nd"):
    ORDINAL_WORDS, NUMBER_WORDS, LAST_WORD, BEFORE_LAST_WORD, ORDINAL_SUFFIX
    ordinal_value       "second" / "2nd" / "2" / "two" -> 2, "last" -> LAST (-1),
                        "penultimate" -> BEFORE_LAST (-2), else None
    from_end            a position counted from the end (LAST, BEFORE_LAST) in a list of n
    said_positions      a position said without an ordinal as its ordinal ("the top one" ->
                        "the first one", "the one before last" -> "the penultimate one")
    ordinal_alternation the words as one regex alternation, longest first
The stemmer, one function at three strengths (and two helpers that are not stemmers):
    stems               "tiles" -> ("tile", "tiles"): plural (the controller's exact match),
                        suffix ("tokenizers" -> "token": a recap topic's looser match),
                        inflection ("decided" -> "decide", "decid": the base forms a query word
                        may stand for; the BM25 query side keeps those its vocabulary has)
    plural_forms        "tests" -> {"test", "tests", "testes", ...}: an absence claim's term
                        looked up among the evidence's words
    looks_past_tense    "decided": a question's closing verb, not its subject's last word
Token estimates:
    tokens_by_chars     ceil(chars / chars_per_token): compaction's evidence budget
    count_tokens        words and punctuation marks: the continuity contract's caps
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Literal

_FUNCTION_WORDS = """
    a an the of to in on at by for with from into onto as about over under than then and or but
    nor not no so if is are was were be been being am it its this that these those there here
    do does did done has have had having can could should would will shall may might must what
    which who whom whose where when how why i me my we us our you your he him his she her they
    them their also just only very some such each both more most other same own too again once
    further up down out off via per yet
"""
FUNCTION_WORDS: frozenset[str] = frozenset(_FUNCTION_WORDS.split())

_ASKING_WORDS = """
    any all please tell show explain describe define mean means meaning work works working repo
    repository codebase code project find locate get give list happen happens happening used
    use uses using example examples call calls called implemented defined decided built
    computed handled set configured created located stored declared chosen made say says said
    relate relates related relation file files module modules defines contains holds implements
"""
QUESTION_WORDS: frozenset[str] = FUNCTION_WORDS | frozenset(_ASKING_WORDS.split())

_CLAIMING_WORDS = """
    within regarding whether doesn don didn cannot couldn unable able none nothing neither any
    all every much many few maybe perhaps unfortunately however though although still find
    found locate located see seen identify determine mention mentions mentioned contain
    contains contained include includes included cover covers covered describe describes
    described explain explains explained define defines defined show shows shown provide
    provides provided given available supplied retrieved tool tools search searches searched
    context evidence result results document documents documentation docs doc code codebase
    base file files snippet snippets excerpt excerpts repository repositories repo project source
    information relevant specific direct clear concrete actual supporting details detail data
    enough sufficient insufficient answer answers question questions seem seems appear appears
    missing absent present part exist exists existing implement implements implemented
    implementation handle handles handled configure configures configured set sets use uses
    used using work works working happen happens sure say says said tell returned return
    anywhere nowhere lack lacks lacking thing things way ways currently actually directly
    explicitly really related regard tool_results called call calls make makes made get gets
    look looks like specifically either whatever
    left leave leaves leaving open goes go going lies lie sits sit handed material materials
    silent mute unmentioned unexplained unsaid unstated unaddressed unanswered unspecified
    outside beyond scope answerable unanswerable determinable undeterminable anything
    something everything
    care cares asked asking wondering
"""
# words that can be a claim's object ("nothing sets it up", "does not show who calls X": the
# callers are what is claimed missing), so never dropped there
_CLAIM_OBJECT_TEXT = """
    again both down further he her him his off once out own per same she too up very via whose
    call calls
"""
_CLAIM_OBJECTS = frozenset(_CLAIM_OBJECT_TEXT.split())
CLAIM_WORDS: frozenset[str] = ((FUNCTION_WORDS | frozenset(_CLAIMING_WORDS.split()))
                              - _CLAIM_OBJECTS)

QUESTION_LEADS: frozenset[str] = frozenset(
    {"how", "does", "what", "where", "why", "which", "when", "who", "the", "is"})

RECAP_WORDS: frozenset[str] = frozenset(
    {"the", "a", "an", "we", "about", "it", "that", "this", "of", "in", "on", "and", "or", "to",
     "is", "are", "did", "do", "you", "talk", "what"})


Strength = Literal["plural", "suffix", "inflection", "ending"]
_SUFFIXES = ("ization", "izer", "izers", "ing", "ers", "er", "ed", "es", "s")
_SUFFIX_KEEPS = 4  # letters a suffix cut leaves at least
_ENDINGS = ("ing", "ed", "es", "s")  # a verb's or a plural noun's ending ("ending" strength)
# Irregular verbs a question uses for what code names in the base form ("where is it built?").
_IRREGULAR = {"built": "build", "made": "make", "ran": "run", "written": "write",
              "wrote": "write", "chosen": "choose", "chose": "choose", "sent": "send",
              "kept": "keep", "found": "find", "held": "hold", "read": "read", "set": "set",
              "split": "split", "thrown": "throw", "taken": "take", "given": "give"}


# pure and called per word of every text the contract reads (5.4 million calls in
# tests/test_absence_sets.py's sweep): remembered, a bounded number of (short) words
@lru_cache(maxsize=1 << 16)
def stems(word: str, strength: Strength = "plural") -> tuple[str, ...]:
    """The one stemmer: the base forms `word` may stand for, most likely first, and last the
    word itself (so `stems(w)[0]` is w's stem, `w` when nothing is cut). The strength is the
    caller's:

        plural      "tiles" -> ("tile", "tiles"); "class" -> ("class",): a final "s" (not
                    "ss") cut when three letters remain. How the controller, the index's
                    history words and the continuity lanes match words: tiny and exact.
        suffix      "tokenizers" -> ("token", "tokenizers"); "uses" -> ("uses",): the first
                    common suffix cut when four letters remain. A recap topic's and an
                    absence claim's looser match.
        ending      "ranking", "ranked", "ranks" -> ("rank", ...): a verb's or plural's
                    ending cut when four letters remain ("tokenizer" keeps its "-er"). How
                    the coverage gate matches a word the evidence inflects otherwise.
        inflection  "decided" -> ("decide", "decid", "decided"); "built" -> ("build",
                    "built"): every base an inflection (irregular verbs too) may come from;
                    the BM25 query side keeps the first its vocabulary has, so a wrong guess
                    costs nothing.
    """
    if strength == "plural":
        cut = len(word) > 3 and word.endswith("s") and not word.endswith("ss")
        return (word[:-1], word) if cut else (word,)
    if strength == "ending":
        return next(((word[: -len(e)], word) for e in _ENDINGS
                     if word.endswith(e) and len(word) - len(e) >= _SUFFIX_KEEPS), (word,))
    if strength == "suffix":
        return next(((word[: -len(s)], word) for s in _SUFFIXES
                     if word.endswith(s) and len(word) - len(s) >= _SUFFIX_KEEPS), (word,))
    bases = (v for v in _inflection_bases(word) if len(v) > 2 and v != word)
    return (*dict.fromkeys(bases), word)


def _inflection_bases(token: str) -> list[str]:
    """`stems(token, "inflection")`'s guesses, most likely first (before the short ones go)."""
    out: list[str] = []
    if token in _IRREGULAR:
        out.append(_IRREGULAR[token])
    if token.endswith("ied") and len(token) > 4:
        out.append(token[:-3] + "y")
    if token.endswith("ed") and len(token) > 4:
        out += [token[:-1], token[:-2]]
        if len(token) > 5 and token[-3] == token[-4]:  # stopped -> stop
            out.append(token[:-3])
    if token.endswith("ing") and len(token) > 5:
        out += [token[:-3], token[:-3] + "e"]
        if token[-4] == token[-5]:  # running -> run
            out.append(token[:-4])
    if token.endswith("ies") and len(token) > 4:
        out.append(token[:-3] + "y")
    if token.endswith("es") and len(token) > 4:
        out.append(token[:-2])
    return [*out, *stems(token)[:-1]]  # and the plural cut, last


# How code shortens words a question spells out (general programming usage, nothing of one
# repository): the short word, then the words it stands for.
_SHORT_FORMS_TEXT = """
    arg argument; attr attribute; auth authentication authorization; buf buffer;
    cb callback; cfg configuration; conf configuration; config configuration;
    conn connection; ctx context; db database; decl declaration; desc description;
    dest destination; dict dictionary; dir directory; doc document documentation;
    elem element; env environment; err error; exc exception; expr expression; fmt format;
    fn function; func function; hdr header; id identifier; idx index;
    impl implementation; info information; init initialize initialization initial;
    iter iterator iteration; len length; lib library; lit literal; loc location;
    max maximum; min minimum; msg message; num number; obj object; op operation operator;
    opt option; param parameter; pos position; prev previous; proc process;
    prop property; ptr pointer; ref reference; repr representation; req request;
    resp response; seq sequence; sess session; spec specification; src source;
    stmt statement; temp temporary; tmp temporary; tok token; util utility; val value;
    var variable; ws websocket
"""


def _long_forms(text: str) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for entry in text.split(";"):
        short, *longs = entry.split()
        forms = {stems(w)[0] for w in longs} | {stems(w + "s")[0] for w in longs}
        forms |= {stems(w[:-1] + "ies")[0] for w in longs if w.endswith("y")}
        out[stems(short)[0]] = frozenset(forms)
    return out


LONG_FORMS: dict[str, frozenset[str]] = _long_forms(_SHORT_FORMS_TEXT)


def plural_forms(term: str) -> set[str]:
    """The term with and without a plural ending, both ways ("tests" ~ "test", "matches" ~
    "match"): how an absence claim's term is looked up among the evidence's words."""
    return {term, term.rstrip("s"), term + "s", term.removesuffix("es"), term + "es"}


def verb_form_of(word: str, bases: frozenset[str]) -> bool:
    """`word` is an -s, -es, -ed or irregular form of one of `bases` ("computes", "handled",
    "made"); an -ing form is a noun as often as a verb ("setting"), so never."""
    if word.endswith("ing"):
        return False
    return any(b in bases for b in stems(word, "inflection")[:-1])


def looks_past_tense(word: str) -> bool:
    """A regular past form ("decided", "computed"): how a question's closing verb is told
    from its subject's last word."""
    return word.lower().endswith("ed")


def tokens_by_chars(text: str, chars_per_token: int) -> int:
    """A budget estimate from length alone: ceil(chars / chars_per_token)."""
    return math.ceil(len(text) / chars_per_token)


_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def count_tokens(text: str) -> int:
    """A deterministic, model-free token count: words and punctuation marks."""
    return len(_TOKEN.findall(text))


def token_spans(text: str) -> list[re.Match[str]]:
    """The tokens `count_tokens` counts, with their places (to cut text at a token)."""
    return list(_TOKEN.finditer(text))


# --- words naming a "not given" default (`helix.staledocs.relevance.sentinel`): `_MISSING`,
# `Unset`, `NOT_GIVEN`, `PydanticUndefined` (matched inside a name, case and `_` aside)
_SENTINEL_TEXT = """
    missing unset undefined notset notgiven sentinel nothing nodefault empty
"""
SENTINEL_WORDS: tuple[str, ...] = tuple(_SENTINEL_TEXT.split())

# --- absence claims by meaning (`helix.synthesis.absence`) ----------------------------------
_NEGATION_TEXT = """
    no not nothing none never without empty lacks lack lacking absent missing neither nor
    zero unable fails failed nowhere cannot devoid nil barren
    silent mute unmentioned unexplained unsaid unstated unaddressed unanswered unspecified
    undocumented outside beyond
"""
# "left open", "leaves it open": a negation when a verb of leaving comes before "open"
LEFT_OPEN_WORDS: frozenset[str] = frozenset({"left", "leave", "leaves", "leaving"})
OPEN_WORD = "open"
NEGATION_WORDS: frozenset[str] = frozenset(_NEGATION_TEXT.split())
# the material searched or sent: a sentence about it is about this answer's evidence
_MATERIAL_TEXT = """
    evidence context tool tools tool_results excerpt excerpts snippet snippets retrieved
    provided given sent passages passage material materials handed supplied
"""
MATERIAL_WORDS: frozenset[str] = frozenset(_MATERIAL_TEXT.split())
# words that name the material or a piece of code alike ("search", "results", "index")
_MATERIAL_OR_CODE_TEXT = """
    search searches searched searching results result index matches match hits hit lookup
    retrieval documentation docs information repository repo codebase sources
"""
MATERIAL_OR_CODE_WORDS: frozenset[str] = frozenset(_MATERIAL_OR_CODE_TEXT.split())
# what this search did (past tense): not what code does ("returns")
_THIS_SEARCH_TEXT = """
    returned found turned came yielded showed surfaced produced gave got retrieved located
    were was had useless unhelpful
"""
THIS_SEARCH_WORDS: frozenset[str] = frozenset(_THIS_SEARCH_TEXT.split())
_FINDING_TEXT = """
    find found finding locate located see saw seen spot spotted identify identified turn
    turned show showed shown surface surfaced return returned yield yielded retrieve
    retrieved mention mentions mentioned cover covers covered contain contains contained
    include includes included exist exists existed present appear appears
"""
FINDING_WORDS: frozenset[str] = frozenset(_FINDING_TEXT.split())
FIRST_PERSON: frozenset[str] = frozenset({"i", "we", "my", "our"})
# --- ordinals (`controller.continuity.pending`, `.selection_match`) -----------------------------
ORDINAL_WORDS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10}
NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10}
LAST_WORD = "last"
LAST = -1  # the position "last" stands for (the caller knows the count)
BEFORE_LAST_WORD = "penultimate"
BEFORE_LAST = -2  # the position before the last
# a position said without an ordinal word (`said_positions`): the top of a list is its first
# entry, the bottom its last, and the one before the last is said in several ways
ENTRY_NOUNS: tuple[str, ...] = ("one", "result", "hit", "item", "entry", "entrie", "match",
                                "matche", "link", "file", "option", "choice")  # + "s"
TOP_WORDS: tuple[str, ...] = ("top", "topmost", "uppermost")
BOTTOM_WORDS: tuple[str, ...] = ("bottom", "bottommost", "final")
END_WORDS: tuple[str, ...] = ("bottom", "end")  # "the one at the (very) bottom": the last
BEFORE_LAST_PHRASES: tuple[str, ...] = ("second to last", "second-to-last", "next to last",
                                        "next-to-last", "last but one", "second last",
                                        "second-last")
BEFORE_LAST_LEADS: tuple[str, ...] = ("right", "just")  # "the one right before last"
_ENTRY = rf"(?:{'|'.join(ENTRY_NOUNS)})s?"
# "the one at the (very) bottom", "the result on the top" (of the list, not of a file)
PLACE_WORDS: tuple[str, ...] = ("at", "on")
_AT_THE = rf"(?:{'|'.join(PLACE_WORDS)})\s+the\s+(?:very\s+)?"
LIST_DETERMINERS: tuple[str, ...] = ("the", "that", "this")  # "at the end of the list"
_OF_NO_LIST = rf"(?!\s+of\b(?!\s+(?:{'|'.join(LIST_DETERMINERS)})\s+list\b))"
_POSITION_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\b(?:{'|'.join(TOP_WORDS)})(?=\s+{_ENTRY}\b)", re.I), "first"),
    (re.compile(rf"\b(?:{'|'.join(BOTTOM_WORDS)})(?=\s+{_ENTRY}\b)", re.I), LAST_WORD),
    (re.compile(rf"\bthe\s+(?P<entry>{_ENTRY})\s+{_AT_THE}(?:{'|'.join(END_WORDS)})\b"
                rf"{_OF_NO_LIST}", re.I), rf"the {LAST_WORD} \g<entry>"),
    (re.compile(rf"\bthe\s+(?P<entry>{_ENTRY})\s+{_AT_THE}(?:{'|'.join(TOP_WORDS)})\b"
                rf"{_OF_NO_LIST}", re.I), r"the first \g<entry>"),
    (re.compile(rf"\bone\s+(?:(?:{'|'.join(BEFORE_LAST_LEADS)})\s+)?befor(?:e)?\s+"
                rf"(?:the\s+)?{LAST_WORD}(?:\s+one)?\b", re.I), f"{BEFORE_LAST_WORD} one"),
    (re.compile(rf"\b(?:{'|'.join(re.escape(p) for p in BEFORE_LAST_PHRASES)})\b", re.I),
     BEFORE_LAST_WORD),
)
ORDINAL_SUFFIX = r"(?:st|nd|rd|th)"  # "1st", "2nd": the suffix a number may carry


# what says that a named thing is something ("X is ...", "X stands for ..."): how an answer
# sentence (`controller.answer_text.states_text`) or a span (`controller.coverage`) defines it
DEFINING_VERBS: tuple[str, ...] = ("is", "are", "means", "refers to", "denotes", "stands for")


def ordinal_alternation(*, numbers: bool) -> str:
    """The ordinal words (and the number words when `numbers`), and "last", as one regex
    alternation, longest first (no word is cut short by a shorter one)."""
    words = [*ORDINAL_WORDS, *(NUMBER_WORDS if numbers else ()), LAST_WORD, BEFORE_LAST_WORD]
    return "|".join(sorted(words, key=lambda w: (-len(w), w)))


def said_positions(text: str) -> str:
    """`text` with each position said without an ordinal word written as its ordinal: "the
    top one" / "top result" -> "the first one" / "first result", "the bottom one" / "the
    final item" / "the one at the very bottom" -> "the last one" / "the last item" / "the last
    one", "the one before last" / "second to last" -> "the penultimate one" /
    "penultimate". A word of position before no list entry ("why is engine.py on top?") stays."""
    for pattern, ordinal in _POSITION_PHRASES:
        text = pattern.sub(ordinal, text)
    return text


def from_end(value: int, count: int) -> int:
    """A 1-based position as counted from the start of a list of `count`: LAST -> count,
    BEFORE_LAST -> count - 1; a position from the start as it is."""
    return count + 1 + value if value < 0 else value


def ordinal_value(token: str) -> int | None:
    """The 1-based position a token names: "second", "2nd", "2", "two" -> 2; "last" ->
    LAST, "penultimate" -> BEFORE_LAST; anything else None."""
    word = token.lower()
    if word == LAST_WORD:
        return LAST
    if word == BEFORE_LAST_WORD:
        return BEFORE_LAST
    if word in ORDINAL_WORDS or word in NUMBER_WORDS:
        return ORDINAL_WORDS.get(word) or NUMBER_WORDS[word]
    digits = re.fullmatch(r"(\d+)" + ORDINAL_SUFFIX + "?", word)
    return int(digits.group(1)) if digits else None


def word_alternation(words: tuple[str, ...]) -> str:
    """`words` as one regex alternation (escaped, in the order given)."""
    return "|".join(re.escape(w) for w in words)


# what a release entry's heading may say in place of its date ("2.1.0 (unreleased)"), and a
# pre-release's tag after the number ("2.0.0rc1")
RELEASE_STATES: tuple[str, ...] = ("unreleased", "in development", "not yet released",
                                   "upcoming", "tba", "tbd")
PRE_RELEASE_TAGS: tuple[str, ...] = ("alpha", "beta", "dev", "post", "pre", "rc", "a", "b")


# what a follow-up may start with before what it asks ("and what about the tests")
FOLLOWUP_LEADS: tuple[str, ...] = ("and", "so", "ok", "okay", "now", "then", "also", "what about",
                                   "how about", "and what about")  # tried in this order
# how a scope is said without a slash ("only in tests", "just under docs")
SCOPE_LIMITERS: tuple[str, ...] = ("only", "just")
SCOPE_PREPOSITIONS: tuple[str, ...] = ("in", "under", "within", "inside", "for")


# a condition makes a negation a statement about behaviour ("if the file does not exist")
CODE_CONDITIONS: frozenset[str] = frozenset(
    {"if", "when", "unless", "whenever", "until", "once", "whether"})


# what an absence claim says the material does not do ("Nothing in [E1] indicates ...": a
# verb of saying; "nothing in [E2] contradicts that" is no claim)
SAYING_VERBS: tuple[str, ...] = (
    "says", "say", "shows", "show", "indicates", "indicate", "explains", "explain", "tells",
    "tell", "mentions", "mention", "names", "name", "covers", "cover", "describes", "describe",
    "specifies", "states", "state", "reveals", "reveal", "suggests", "suggest", "addresses",
    "answers", "answer", "documents", "document", "defines", "define")
# what the material is said not to hold a thing in ("no retry cap mentioned in these
# snippets", "no cap is shown in the excerpts"): a participle of showing
SHOWN_PARTICIPLES: tuple[str, ...] = (
    "found", "present", "mentioned", "included", "covered", "shown", "described", "specified",
    "documented", "listed", "given", "visible", "stated")
# the auxiliaries before such a participle, and the words that point at the material after it
SHOWN_AUXILIARIES: tuple[str, ...] = ("is", "are", "was", "were", "gets", "get", "being")
MATERIAL_POINTERS: tuple[str, ...] = ("the", "these", "this", "those", "any")
# "neither" as the subject of a verb of telling, the pieces of material named before it ("I
# checked a.py and b.md; neither states the default", "neither one gives a limit", "neither
# file seems to specify it"): what may follow "neither", an adverb, the verb
NEITHER_SUBJECTS: tuple[str, ...] = (
    "one", "of them", "of the two", "of these", "of those", "file", "files", "snippet",
    "snippets", "excerpt", "excerpts", "source", "sources", "document", "documents", "result",
    "results", "piece", "pieces")
NEITHER_ADVERBS: tuple[str, ...] = ("actually", "really", "explicitly", "clearly",
                                    "appears to", "seems to")
# "neither" the subject of a passive of showing or answering, by or in the material ("Neither
# is answered by a.py or b.md"): the participles besides SHOWN_PARTICIPLES, what comes before
# the material
NEITHER_ANSWERED: tuple[str, ...] = ("answered", "addressed", "explained", "defined")
NEITHER_BY: tuple[str, ...] = ("by", "in", "within", "anywhere in")
NEITHER_TELLING: tuple[str, ...] = (
    *SAYING_VERBS, "specify", "gives", "give", "lists", "list", "contains", "contain",
    "includes", "include", "discusses")
# an inability to answer ("Can't answer from this", "couldn't tell from what was shown"), and
# what it is unable to do
INABILITY_WORDS: tuple[str, ...] = ("can't", "cannot", "can not", "couldn't", "could not",
                                    "unable to")
ANSWERING_VERBS: tuple[str, ...] = ("answer", "tell", "say", "determine", "judge", "confirm")
# where "nothing" is said to be when it is the material ("nothing here tells ..."), the negated
# having of "don't have enough ... to say", and who sees ("I can see X in a.py": a sighting)
HERE_WORDS: tuple[str, ...] = ("here", "in here", "over here", "on hand")
NOT_HAVING: tuple[str, ...] = ("do not", "don't", "did not", "didn't")
SEERS: tuple[str, ...] = ("i", "we", "you", "can", "could")
# what such an inability is "from": the material sent ("from this", "from the provided ...")
FROM_MATERIAL: tuple[str, ...] = ("this", "that", "these", "those", "what", "the provided",
                                  "the given", "the shown", "the available", "the retrieved",
                                  "the supplied")


# the words a follow-up points back at an object with ("who calls it", "a test that checks this")
POINTING_WORDS: tuple[str, ...] = ("it", "that", "this", "them", "these", "those")
# words that follow a question word and rarely anything else a clause opens with
# ("wen does it run", "wat about the pool"): controller.question_words
QUESTION_FOLLOWERS = frozenset({
    "is", "are", "was", "were", "am", "be", "does", "do", "did", "done", "doing", "can", "could",
    "should", "would", "will", "has", "have", "had", "about", "if", "else"})
# what follows "why" said as the letter "y" ("y does it", "y not", "y the plus one"): a word
# other languages open a clause with after a "y" ("y el", "y la": and the) is none of these
AFTER_WHY = frozenset({"not", "no", "the", "that", "this", "these", "those", "it", "its",
                       "u", "you", "we", "they", "he", "she", "so"})


def looks_third_person(word: str) -> bool:
    """A lower-case word that may be a verb's third person singular ("calls", "opens"): more
    than three letters ending in a single s."""
    return len(word) > 3 and word.endswith("s") and not word.endswith("ss")


def looks_finite_verb(word: str) -> bool:
    """A word that may be a finite verb after a noun phrase ("which test verifies ...", "the
    test failed"): a regular past form or a single final s (not "ss")."""
    return word.endswith("ed") or (word.endswith("s") and not word.endswith("ss"))


# words that close a noun phrase (controller.test_subject): prepositions, relative words,
# conjunctions and subordinators, then determiners
_PHRASE_CLOSERS_TEXT = """
    of for in on at by with from to into onto about across against over under between through
    throughout during without within via as than since until per after before behind beyond
    upon around like among that which who whom whose where when while whether if because so and
    or but nor not once unless although
"""
PHRASE_CLOSERS: frozenset[str] = frozenset(_PHRASE_CLOSERS_TEXT.split())
_DETERMINERS_TEXT = """
    the a an this that these those its their each every some any our my your his her
"""
DETERMINERS: frozenset[str] = frozenset(_DETERMINERS_TEXT.split())
_WH_TEXT = "how why where what which when who whose whom"
WH_WORDS: frozenset[str] = frozenset(_WH_TEXT.split())
_DO_TEXT = "does do did can could should would will may might must shall"
DO_AUXILIARIES: frozenset[str] = frozenset(_DO_TEXT.split())
_BE_TEXT = "is are was were has have had be been"
BE_AUXILIARIES: frozenset[str] = frozenset(_BE_TEXT.split())
# prepositions saying what a named thing is for before its value ("the password for the guest
# network is: ...", "code for the side door: 4411#"): the secret rules' qualifiers
PURPOSE_PREPOSITIONS = ("for", "to", "of", "on", "at")
