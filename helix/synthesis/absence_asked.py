"""A claim that the asked thing is not shown, in a passive or short wording (issue 32,
meaning19): "The number isn't given", "whether 1.2 is accepted (the actual minimum) is not
stated", "its production values aren't visible here", "shows the message but not the exit
code", "key types? not in these results". Such a clause names no material or a short one, so
the phrase rules miss it, and the encoder reads it as close to an answer's note on a side
detail ("the default values of rate and burst are not in these excerpts"). What tells them
apart is the clause's structure: its subject (the words before the negated participle, the
noun phrase after "but not", or a question restated before a subjectless clause) names the
noun the question asks for, or a noun standing for it (data: absence_asked.toml).

    asked_nouns(question)               -> the forms of the nouns the question asks for
    asked_missing(text, question, words) -> some clause says the asked thing is not shown,
                                            while the evidence holds most of the question
    side_note(text, question, words)     -> a plain answer first, then only notes on side
                                            details that close asserting the answer stands

Deterministic, word lists as data, no encoder call.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from helix.core.english import CODE_CONDITIONS, MATERIAL_WORDS, SHOWN_PARTICIPLES, word_alternation
from helix.synthesis.absence import absence_claims, answers_from, content_terms
from helix.synthesis.absence_meaning import load_exemplars
from helix.synthesis.absence_verdict import _clause, _covers, _forms, _negates

__all__ = ["ASKED_FILE", "asked_missing", "asked_nouns", "missing_subjects", "side_note"]

ASKED_FILE = Path(__file__).with_name("absence_asked.toml")
_WORDS = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_BUT_NOT = re.compile(r"\bbut\s+not\s+", re.I)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|(?=\n)|$)")
# a condition makes the clause a statement about behaviour ("if the count isn't given, ..."); a
# "whether" clause is what is not shown ("whether 1.2 is accepted is not stated")
_CONDITIONS = CODE_CONDITIONS - {"whether"}


def _spaced(words: list[str]) -> str:
    """`words` as an alternation whose spaces match any run of white space."""
    return word_alternation(tuple(words)).replace(r"\ ", r"\s+")


@dataclass(frozen=True)
class _Asked:
    lead: frozenset[str]
    follow: frozenset[str]
    links: frozenset[str]
    proxies: dict[str, tuple[str, ...]]
    itself: tuple[str, ...]  # nouns naming the question itself
    copula: frozenset[str]
    determiners: frozenset[str]
    ends: frozenset[str]
    function: frozenset[str]
    possessives: frozenset[str]
    sighting: frozenset[str]
    not_shown: re.Pattern[str]
    not_in: re.Pattern[str]
    leads: re.Pattern[str]
    preposition: re.Pattern[str]
    relative: re.Pattern[str]
    antecedent: re.Pattern[str]
    clause: re.Pattern[str]
    measures: frozenset[str]  # "how long": what follows is its subject, not the asked noun
    nothing_about: re.Pattern[str]  # "there's nothing about <subject>"
    wh: frozenset[str]  # a subject opening with one restates a question
    restated: int  # the question's content words such a subject names, at least


@lru_cache(maxsize=1)
def _data() -> _Asked:
    with ASKED_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    not_shown = re.compile(
        r"\b(?:" + _spaced(data["negated_be"]) + r")\s+(?:\w+ly\s+)?(?:"
        + word_alternation(SHOWN_PARTICIPLES) + r")\b|\b(?:" + _spaced(data["negated_can"])
        + r")\s+be\s+(?:" + _spaced(data["answered"]) + r")\b", re.I)
    material = sorted(MATERIAL_WORDS | set(data["not_in_material"]))
    not_in = re.compile(r"(?:^|(?<=[.?!]\s))\s*not\s+(?:" + _spaced(data["not_in_prepositions"])
                        + r")\s+(?:" + _spaced(data["not_in_pointers"]) + r")\s+(?:\w+\s+)?(?:"
                        + _spaced(material) + r")\b", re.I)
    leads = re.compile(r"^\W*(?:(?:" + _spaced(data["subject_leads"]) + r")(?:\W+|$))*", re.I)
    clause_words = load_exemplars().clause.pattern  # ", but", "; ": the clause splitter's
    return _Asked(
        frozenset(data["asked_words"]), frozenset(data["asked_follow"]),
        frozenset(data["asked_links"]),
        {k: tuple(v) for k, v in data["asked_proxies"].items()}, tuple(data["question_nouns"]),
        frozenset(data["copula"]), frozenset(data["determiners"]), frozenset(data["noun_ends"]),
        frozenset(data["function_words"]), frozenset(data["possessives"]),
        frozenset(data["sighting_words"]) | load_exemplars().sighting_words, not_shown, not_in,
        leads,
        re.compile(r"\b(?:" + _spaced(data["prepositions"]) + r")\b", re.I),
        re.compile(r"[\s,]+(?:" + _spaced(data["relatives"]) + r")\s*$", re.I),
        re.compile(r"(?<![\w'’-])(?:(?:" + _spaced(data["antecedent_determiners"])
                   + r")\s+)?((?:[\w'’-]+\s+){0,2}[\w'’-]+)\s*$", re.I),
        re.compile(r"[.!;:\n]|" + clause_words), frozenset(data["asked_measures"]),
        re.compile(r"\b(?:" + _spaced(data["nothing_about"]) + r")\s+", re.I),
        frozenset(data["wh_subjects"]), int(data["restated_terms"]))


def _nouns(text: str) -> list[str]:
    """The words of `text` that may name a thing: letters, two or more, not a function word."""
    function = _data().function
    return [w for w in _WORDS.findall(text.lower()) if len(w) > 1 and w not in function
            and not w.isdigit()]


def asked_nouns(question: str | None) -> frozenset[str]:
    """The forms of the noun(s) the question asks for: after "what's the" up to the next
    function word; after "what", "which", "how many" up to an auxiliary (none follows: the
    wh-word is the subject of a verb, no noun is asked); with the proxies of the wh-phrase
    and of the noun."""
    if not question:
        return frozenset()
    data = _data()
    said = [w.replace("’", "'") for w in _WORDS.findall(question.lower())]
    nouns: list[str] = list(data.itself)
    for at, word in enumerate(said):
        phrase = " ".join(said[at:at + 2])
        if at == 0 and phrase not in data.proxies and word in data.proxies:
            phrase = word  # a question opening with a wh-word asking a measure ("when": a time)
        if word not in data.lead and phrase not in data.proxies:
            continue
        rest = said[at + (len(phrase.split()) if phrase in data.proxies else 1):]
        nouns += list(data.proxies.get(phrase, ()))
        if phrase in data.measures:  # "how long is a reset token valid": no noun of it asked
            continue
        copula = word.endswith("'s") or (rest[:1] and rest[0] in data.copula)
        if copula:
            rest = rest[1:] if not word.endswith("'s") else rest
            rest = rest[1:] if rest[:1] and rest[0] in data.determiners else rest
        taken: list[str] = []
        ended = False  # the noun ends at an auxiliary (or, after a copula, a function word)
        for w in rest:
            if w in data.follow or (copula and w in data.ends):
                ended = copula or w not in data.determiners
                break
            taken.append(w)
        if not ended and not copula and phrase not in data.proxies:
            taken = []
        terms = _nouns(" ".join(w for w in taken if w not in data.links))
        nouns += terms
        for term in terms:
            nouns += list(data.proxies.get(term, ()))
        break
    return frozenset(f for n in nouns for f in _forms(n))


def _head_terms(subject: str) -> set[str]:
    """The content words of a subject before its first preposition ("the default values of
    rate": values; "the reason for that value": reason): the thing it names, not what
    qualifies it; a relative pronoun's subject is the
    noun phrase before it, from its determiner or its last three words ("threads follow the
    scheduler's defaults, which": scheduler's defaults)."""
    data = _data()
    relative = data.relative.search(subject)
    if relative:
        antecedent = data.antecedent.search(subject[:relative.start()])
        subject = antecedent.group(1) if antecedent else ""
    head = data.preposition.split(data.leads.sub("", subject), maxsplit=1)[0]
    return {f for t in _nouns(head) for f in _forms(t)}


def missing_subjects(text: str) -> list[tuple[int, str]]:
    """(where it starts, its subject) for every clause of `text` that says its subject is not
    shown: the words before a negated participle of showing in its clause, the noun phrase
    after "but not", the question a subjectless "not in these results" follows."""
    subjects: list[tuple[int, str]] = []
    for m in _data().not_shown.finditer(text):
        head, _ = _clause(text, m.start(), m.end())
        subjects.append((head, _owner(text, head) + text[head:m.start()]))
    for m in _BUT_NOT.finditer(text):
        _, tail = _clause(text, m.end(), m.end())
        subjects.append((m.start(), text[m.end():tail]))
    for m in _data().nothing_about.finditer(text):
        _, tail = _clause(text, m.end(), m.end())
        subjects.append((m.start(), text[m.end():tail]))
    for m in _data().not_in.finditer(text):
        before = [s for s in _SENTENCE.finditer(text[:m.start()]) if s.group().strip()]
        if before and before[-1].group().rstrip().endswith("?"):
            subjects.append((before[-1].start(), before[-1].group()))
    return subjects


def _owner(text: str, head: int) -> str:
    """The code name a possessive opening the clause at `head` stands for: the last backticked
    name of its sentence before it ("`x_origins` is referenced, but its values ...": the
    subject is then "x_origins its values"), else nothing."""
    data = _data()
    said = _WORDS.findall(data.leads.sub("", text[head:head + 80]).lower())
    if not said or said[0] not in data.possessives:
        return ""
    start = max((s.start() for s in _SENTENCE.finditer(text[:head]) if s.group().strip()),
                default=0)
    names = re.findall(r"`([^`\n]+)`", text[start:head])
    return names[-1].replace("_", " ").replace(".", " ") + " " if names else ""


def _given_before(text: str, start: int, named: set[str], words: frozenset[str]) -> bool:
    """A sentence or clause before `start` that negates nothing, is no question, tells no
    sighting ("`x` is referenced", "the excerpts show `x`"), and names
    every asked noun the claim's subject names, or, when those are nouns standing for a
    quantity ("how many": number, count), gives a number the evidence holds: the answer was
    given ("The exit code is 3; the code for warnings is not stated"; "6 threads [E1]; the
    number per core isn't stated"), the claim is a side remark on it."""
    quantity = {f for key, nouns in _data().proxies.items() if key.startswith("how ")
                for n in nouns for f in _forms(n)}
    data = _data()
    for part in data.clause.split(text[:start]):
        if not part.strip() or part.rstrip().endswith("?") or _negates(part) \
                or set(_WORDS.findall(part.lower())) & data.sighting:
            continue
        if named <= {f for t in _nouns(part) for f in _forms(t)}:
            return True
        if named <= quantity and any(n in words and n not in ("0", "1")
                                     for n in re.findall(r"\b\d+(?:\.\d+)?\b", part)):
            return True
    return False


def asked_missing(text: str, question: str | None, words: frozenset[str]) -> bool:
    """Some clause of `text` says the asked thing is not shown (`missing_subjects` naming an
    `asked_nouns` noun) while the evidence holds most of the question's words."""
    asked = asked_nouns(question)
    if not asked or question is None or not _covers(question, words):
        return False
    for start, subject in missing_subjects(text):
        if set(_nouns(subject)) & _CONDITIONS:  # "if the count isn't given, 6 applies"
            continue
        named = (_head_terms(subject) & asked) or _restated(subject, question)
        if named and not _given_before(text, start, named, words):
            return True
    return False


def _restated(subject: str, question: str) -> set[str]:
    """The forms of the question's content words a subject names where it is the question
    restated: it opens with a wh-word ("how long the indicator stays", "who can unlock it")
    and names `restated_terms` of them or more; else none."""
    data = _data()
    said = _WORDS.findall(data.leads.sub("", subject).lower())
    if not said or said[0] not in data.wh:
        return set()
    asked = {f for t in content_terms(question) for f in _forms(t)}
    named = {f for t in content_terms(subject) for f in _forms(t) if _forms(t) & asked}
    shared = sum(1 for t in set(content_terms(subject)) if _forms(t) & asked)
    # opening with the wh-word the question opens with, one of its words is enough ("who can
    # transfer ownership ...?" / "who is allowed to start it ... isn't described")
    opens = _WORDS.findall(question.lower())[:1] == said[:1]
    return named & asked if shared >= (1 if opens else data.restated) else set()


def side_note(text: str, question: str | None, words: frozenset[str]) -> bool:
    """The answer opens with a plain answer (a sentence that negates nothing, no question,
    claims nothing, and names an identifier or a number of the evidence, or three of its words
    without restating the question), and
    every later sentence that negates is a claim about the material on a side detail (no
    `asked_nouns` noun; never a blanket one) that closes with a contrast asserting something
    ("..., but the lifetime itself is clear"; never a bare ", though"): an answer with a note
    on its limits, whatever the head reads (issue 32, meaning19)."""
    sentences = [s.group() for s in _SENTENCE.finditer(text)
                 if s.group().strip() and not s.group().lstrip().startswith("#")]
    if len(sentences) < 2 or not _plain(sentences[0]) or absence_claims(sentences[0]):
        return False
    if not (answers_from(sentences[0], words, terms=False) or (
            answers_from(sentences[0], words) and not _restates(sentences[0], question))):
        return False
    nouns, contrast = asked_nouns(question), load_exemplars().contrast
    for sentence in sentences[1:]:
        if _plain(sentence):
            continue
        mark = contrast.search(sentence)
        claims = absence_claims(sentence)
        if mark is None or set(_forms_of(sentence[:mark.start()])) & nouns or not claims \
                or any(c.blanket for c in claims) \
                or not _asserts(sentence[mark.end():], sentence[:mark.start()]):
            return False
    return True


def _asserts(clause: str, before: str) -> bool:
    """A contrast's clause asserts something: it has content words and negates nothing, or,
    where the note before it negates (the claim is there), it makes no claim about the
    material itself: a negation of behaviour ("The snippets don't show the proxy, but the
    gateway itself won't accept anything below 1.2")."""
    if not content_terms(clause):
        return False
    return _plain(clause) or (_negates(before) and not absence_claims(clause) and not (
        set(re.findall(r"[a-z]+", clause.lower())) & load_exemplars().polarity_words))


def _restates(sentence: str, question: str | None) -> bool:
    """Half or more of the sentence's content words are the question's ("You're asking how
    many threads start"): the question restated, no answer."""
    asked = {f for t in content_terms(question or "") for f in _forms(t)}
    terms = content_terms(sentence)
    return not terms or 2 * sum(1 for t in terms if _forms(t) & asked) >= len(terms)


def _plain(sentence: str) -> bool:
    """Negates nothing, has no word of something missing (`polarity_words`), asks nothing."""
    said = set(re.findall(r"[a-z]+", sentence.lower()))
    return not _negates(sentence) and not said & load_exemplars().polarity_words \
        and not sentence.rstrip().endswith("?")


def _forms_of(text: str) -> list[str]:
    return [f for t in content_terms(text) for f in _forms(t)]
