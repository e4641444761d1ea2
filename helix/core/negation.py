"""Which words of a sentence a negation denies: clauses and the reach of negation cues (pure).

    read(text) -> Reading: the tokens of `text` and, for each, whether a cue denies it
    Reading.denied_at(offset) -> whether the word at a character offset is denied

A sentence ends at `.`, `!`, `?` or a line break; a clause at other punctuation (`, ; : | #`)
and a code comment's marks (`//`, `/*`, `*/`), at a word that starts a new clause ("but",
"when", "now", ...), at "and"/"or" followed by a new predicate, and at "that" after a factive
predicate ("nobody should be surprised that it is GPa": what a factive's complement says
holds, negated or not); never at a mark inside inline code. A parenthetical is a clause
inside its clause: a scope opened outside runs through it, one opened inside ends at its ")".
The cues (data: helix/core/negation.toml) reach:

    forward     what follows, to the end of the clause: "never expressed in GPa",
                "pascal rather than GPa", "unlike the modulus (GPa)", "isn't in GPa"
    subject     a negated predicate denies its subject: "GPa is not the unit", "MHz isn't used",
                "Bar readings are not what it returns" (not a word after a preposition:
                "values in GPa are not rounded")
    label       a negated or evaluative predicate with no subject after a label and a colon or
                dash denies the label: "psi: not used for the pressure", "MPa: deprecated"
    evaluative  as the predicate, the clause before it ("quoting it in GPa would be wrong",
                "GPa is deprecated in favour of pascal"); heading an infinitive, what follows
                ("a mistake to read it as GPa"); as an adverb ("wrongly"), the clause; before
                a noun, the words up to the next verb ("the deprecated GPa field")
    past        the whole clause: "formerly GPa", "used to be stored in GPa"
    past tense  the whole clause, when the sentence says what holds now or when it changed:
                "was GPa, now pascal", "(was GPa before the 2024 refactor)"
    change      "switched from GPa to pascal": the words from "from" up to "to"
    anaphora    an evaluative predicate of "that label" / "this assumption" / "which" judges the
                clause before it: "if you see GPa there, that label is wrong"
    reply       a question answered no denies the question: "kPa? No: it is pascal"; so
                does a reported one ("asked whether it is in dB. It isn't.")
    postpositive a negation after what it denies ("dB ではなく"): its clause's words before it
    elliptical  a clause that is only a negation denies the clause before: "bar in the beta,
                not anymore"; as the reply to a question, the question ("GPa? Not since 2.0.")
    received    an error message's report of the input, after a requirement: "must be a
                step index; got 270, which looks like degrees" (the clause and a relative one)
    harmful     a predicate of harm, the clause before it: "assuming GPa will break it", and
                a conditional clause opening its sentence ("if you pass GPa, it will fail")
    manner      a negated manner that names back what came before denies the sentence up to
                it: "(drafts said GPa,) it is not expressed that way anywhere"
    interjected a forward cue's scope skips an interjection: "not, as some say, in MPa"
    relative    a relative clause after a contrasted phrase describes it: "unlike the gauge
                readings, which use bar, ..."
    double      a forward cue inside another's scope negates that negation ("we never
                stopped using GPa", "nothing here is in anything other than GPa", "no unit
                except GPa", "nobody questioned that it is GPa"), unless it joins a list
                ("never GPa and not MPa", "neither GPa nor kPa"); so does a forward cue
                reaching an evaluative one ("it is not wrong to read it as GPa", "GPa is
                not deprecated"): the evaluative cue denies nothing, what both reach is stated
    heading     an evaluative cue heading its sentence as a label judges the rest of it
                ("Deprecated: the GPa field for tile pressure")
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache
from itertools import accumulate

from helix.core.negation_cues import Cues, cues
from helix.core.negation_reach import Counts, Levels, Parities
from helix.core.negation_reports import first_requirements, negated_identifiers
from helix.core.negation_reports import named_back as _named_back
from helix.core.negation_reports import previous_clause as _previous_clause
from helix.core.negation_reports import received as _received
from helix.core.negation_reports import refuted as _refuted
from helix.core.negation_tokens import (
    CLOSE,
    OPEN,
    Reading,
    Token,
    aside,
    condition,
    coordinated,
    in_code,
    misread_headlines,
    past_time,
    raises_error,
    replied_no,
    superseded,
    tokenize,
)
from helix.core.negation_tokens import match as _match

_NEGATIVE_ENDING = "n't"
_COMMENT_MARKS = frozenset({"//", "/*", "*/"})


class _Clauses:
    """Where each clause of a token list ends, and the walks a scope takes through it."""

    def __init__(self, tokens: tuple[Token, ...], c: Cues) -> None:
        self.tokens, self.c = tokens, c
        self.code = in_code(tokens)
        self.boundary = [self._is_boundary(i) for i in range(len(tokens))]
        self.rename_ends: dict[tuple[tuple[int, int], int], int | None] = {}  # `_renamed`'s
        self.nexts: dict[frozenset[str], list[int]] = {}  # `next_of`'s

    def _dash(self, i: int) -> bool:
        """A hyphen written as a dash, " - " or " -- ", not one joining words ("e-mail") or a
        sign ("-5")."""
        tokens = self.tokens
        spaced_before = i == 0 or tokens[i - 1].end < tokens[i].start or tokens[i - 1].text == "-"
        spaced_after = i == len(tokens) - 1 or tokens[i].end < tokens[i + 1].start \
            or tokens[i + 1].text == "-"
        return spaced_before and spaced_after

    def _comment_mark(self, i: int) -> bool:
        """A code comment's opener or closer, "//", "/*" or "*/": what follows the code."""
        tokens = self.tokens
        return any(a >= 0 and b < len(tokens) and tokens[a].end == tokens[b].start
                   and tokens[a].text + tokens[b].text in _COMMENT_MARKS
                   for a, b in ((i - 1, i), (i, i + 1)))

    def _is_boundary(self, i: int) -> bool:
        token, c = self.tokens[i], self.c
        if i in self.code:
            return False  # a mark inside inline code is the code's: "read `gain: 6` as dB"
        if token.text == "." and 0 < i < len(self.tokens) - 1 \
                and self.tokens[i - 1].end == token.start == self.tokens[i + 1].start - 1:
            return False  # a member access joins its name: "unit).not.toBe('GPa')"
        if token.lower in c.boundary_words and i > 0 \
                and _match(self.tokens, i - 1, c.forward) == 2:
            return False  # a word of a cue phrase: "anything but N·m" is an exception
        if token.lower in c.punctuation or (token.lower in c.boundary_words and (
                token.lower not in c.boundary_as_written
                or token.text in (token.lower, token.lower.capitalize()))):  # "ma", not "mA"
            return True
        if token.text == "-" and self._dash(i):
            return True
        if self._comment_mark(i):
            return True
        if token.lower == "that" and i > 0 and self.tokens[i - 1].lower in c.factives:
            return True  # a factive's complement holds whatever is said of the factive
        nxt = self.tokens[i + 1].lower if i + 1 < len(self.tokens) else ""
        return token.lower in c.coordinators and nxt in c.predicate_starts

    def _stops(self, i: int, origin: int) -> bool:
        """Token i ends a scope opened at token `origin`."""
        here, there = self.tokens[i], self.tokens[origin]
        if here.sentence != there.sentence or here.depth < there.depth:
            return True
        if here.text in (OPEN, CLOSE):
            return here.depth < there.depth
        return here.depth == there.depth and self.boundary[i]

    @cached_property
    def levels(self) -> Levels:  # where a scope stops, found without walking it (`_stops`)
        return Levels(self.tokens, self.boundary)

    def forward(self, origin: int, start: int) -> list[int]:
        return list(self.forward_span(origin, start))

    def backward(self, origin: int) -> list[int]:
        return list(range(origin - 1, self.levels.backward_end(origin), -1))

    def clause(self, origin: int) -> list[int]:
        return [*self.backward(origin), origin, *self.forward(origin, origin + 1)]

    def forward_span(self, origin: int, start: int) -> range:
        return range(start, self.levels.forward_end(origin, start))

    def backward_span(self, origin: int) -> range:
        return range(self.levels.backward_end(origin) + 1, origin)

    def next_of(self, words: frozenset[str]) -> list[int]:
        """The first token from each on (or len) that is one of `words` in lower case."""
        if words not in self.nexts:
            at = [i if t.lower in words else len(self.tokens) for i, t in enumerate(self.tokens)]
            self.nexts[words] = [*accumulate(reversed(at), min, initial=len(self.tokens))][::-1]
        return self.nexts[words]

    def clause_span(self, origin: int) -> range:
        return range(self.backward_span(origin).start, self.forward_span(origin, origin + 1).stop)


def _postpositive(cl: _Clauses, at: int) -> list[int]:
    """A negation written after what it denies (`postpositive`: "dB ではなく"): the words before
    it in its clause, back to a particle marking the topic or subject."""
    if not cl.tokens[at].lower.startswith(cl.c.postpositive):
        return []
    out = []
    for i in cl.backward(at):
        if cl.tokens[i].text.endswith(cl.c.postpositive_stops):  # "は", "ゲインは"
            break
        out.append(i)
    return out


def _negative(token: Token) -> bool:
    return token.lower.endswith(_NEGATIVE_ENDING)


def _evaluative_scope(cl: _Clauses, at: int, length: int) -> list[Sequence[int]]:
    tokens, c = cl.tokens, cl.c
    after = at + length
    if tokens[at].lower.endswith("ly"):  # "wrongly", "mistakenly": the whole clause
        return [cl.clause_span(at)]
    if after + 1 < len(tokens) and tokens[after].lower in c.infinitive \
            and tokens[after + 1].lower not in c.determiners:  # "a mistake to read ..."
        return [cl.forward_span(at, after)]  # ("unrelated to the pressure": a preposition)
    before = [t.lower for t in tokens[max(0, at - 3):at]]
    if any(w in c.copulas for w in before):  # "GPa is wrong", "would be wrong", "was dropped"
        scope = cl.backward_span(at)
        first = scope.start if scope else at
        if tokens[first].lower in c.demonstratives:  # "That page is wrong."
            return [scope, _named_back(cl, first)]
        if tokens[first].lower in c.anaphora or (
                first > 0 and tokens[first - 1].lower in c.anaphora):  # "that label is wrong"
            return [scope, _previous_clause(cl, first)]
        return [scope]
    span = cl.forward_span(at, after)  # "the deprecated GPa field": up to the next verb
    return [span[:cl.next_of(c.fillers)[after] - after]]


def _attributive(cl: _Clauses, at: int) -> bool:
    """A cue after a determiner, no "be" before it: "don't use the deprecated GPa field"."""
    before = [t.lower for t in cl.tokens[max(0, at - 3):at]]
    return bool(before) and before[-1] in cl.c.determiners and not set(before) & cl.c.copulas


def _forward_scope(cl: _Clauses, at: int, length: int) -> list[range]:
    """What a forward cue at token `at` denies: the rest of its clause; past an interjection
    right after it ("not, as some comments say, in MPa"); through a relative clause right
    after a contrasted phrase ("unlike the gauge readings, which use bar, ..."). As ranges of
    token indexes, never listed: a clause of thousands of cues is not read once per cue."""
    tokens, c = cl.tokens, cl.c
    start = at + length
    opens_clause = at == 0 or cl.boundary[at - 1] or tokens[at - 1].sentence != tokens[at].sentence
    if start < len(tokens) and tokens[start].lower == "," and not opens_clause:
        close = next((j for j in range(start + 1, len(tokens))
                      if tokens[j].sentence != tokens[at].sentence or tokens[j].lower == ","),
                     None)
        if close is not None and tokens[close].sentence == tokens[at].sentence:
            return [range(close + 1, cl.levels.forward_end(at, close + 1))]
    scope = [range(start, cl.levels.forward_end(at, start))]
    end = (scope[0][-1] if scope[0] else at) + 1
    if (_match(tokens, at, c.relatives_after) and end + 1 < len(tokens)
            and tokens[end].lower == "," and tokens[end + 1].lower in c.relatives):
        scope.append(range(end + 1, cl.levels.forward_end(end + 1, end + 2)))
    return scope


def _alone(cl: _Clauses, at: int, length: int) -> bool:
    """The phrase at token `at` is its clause, whole ("..., not anymore.")."""
    before, after = at - 1, at + length
    return ((before < 0 or cl.boundary[before]
             or cl.tokens[before].sentence != cl.tokens[at].sentence)
            and (after >= len(cl.tokens) or cl.boundary[after]
                 or cl.tokens[after].sentence != cl.tokens[at].sentence))


def _change_verb(cl: _Clauses, at: int) -> int | None:
    """The change verb before "from" at token `at`, in its clause ("switched ... from")."""
    before = range(at - 1, max(cl.levels.backward_end(at), at - 1 - cl.c.change_verb_words), -1)
    return next((i for i in before if cl.tokens[i].lower in cl.c.change_verbs), None)


def _change_scope(cl: _Clauses, at: int) -> range:
    """"switched from GPa to pascal": the words after "from", up to "to"."""
    if _change_verb(cl, at) is None:
        return range(0)
    return cl.forward_span(at, at + 1)[:cl.next_of(cl.c.change_to)[at + 1] - at - 1]


def _renamed(cl: _Clauses, at: int) -> list[int]:
    """"rename `dpi` to `dpr`", "rename max_ma -> max_a": the old name, the words after the
    verb at token `at` up to "to" or an arrow in its clause."""
    tokens, c = cl.tokens, cl.c
    key, walked = (tokens[at].sentence, tokens[at].depth), []
    end = None  # the walk's end is the same from every token it passes under the same key
    for i in range(at + 1, len(tokens)):
        if (key, i) in cl.rename_ends or cl._stops(i, at):
            end = cl.rename_ends.get((key, i))
            break
        joined = tokens[i].text + (tokens[i + 1].text if i + 1 < len(tokens)
                                   and tokens[i + 1].start == tokens[i].end else "")
        if tokens[i].lower in c.change_to or c.rename_arrows & {tokens[i].text, joined}:
            end = i
            break
        walked.append(i)
    cl.rename_ends.update(((key, i), end) for i in walked)
    return list(range(at + 1, end)) if end is not None else []


def _subject(cl: _Clauses, negator: int) -> list[int]:
    """The subject a negated predicate denies: "GPa is not the unit", "GPa isn't" -> GPa; a
    verb stands between them (never "pascal not GPa")."""
    tokens, c = cl.tokens, cl.c
    if not (_match(tokens, negator, c.negators) or _negative(tokens[negator])) \
            or _predicate_evaluative(cl, negator):
        return []
    i = negator - 1
    while i >= 0 and tokens[i].lower in c.fillers and not cl.boundary[i]:
        i -= 1
    validity = _validity_after(cl, negator)  # "GPa not accepted": no verb needed
    verb = _negative(tokens[negator]) or i < negator - 1 or validity
    if not verb or i < 0 or cl.boundary[i] or not tokens[i].text[:1].isalnum() \
            or (i > 0 and tokens[i - 1].text[-1:].isdigit()):  # "0.0 kPa is not valid": a value
        return []
    return _noun_phrase(cl, i, whole=validity)


def _heading(cl: _Clauses, at: int, length: int) -> list[int]:
    """An evaluative cue heading its sentence as a label ("Deprecated: the GPa field ..."):
    the clause after the mark."""
    tokens, c = cl.tokens, cl.c
    mark = at + length
    opens = at == 0 or tokens[at - 1].sentence != tokens[at].sentence
    mark = past_time(tokens, mark, c.heading_times, c.label_marks)
    if not opens or mark + 1 >= len(tokens) or tokens[mark].lower not in c.label_marks \
            or tokens[mark + 1].sentence != tokens[at].sentence:
        return []
    return cl.forward(mark, mark + 1)


def _predicate_evaluative(cl: _Clauses, negator: int) -> bool:
    """The negated predicate is an evaluative cue ("GPa is not wrong"): a double negation."""
    tokens, c = cl.tokens, cl.c
    after = negator + (_match(tokens, negator, c.negators) or 1)
    while after < len(tokens) and tokens[after].lower in c.fillers:
        after += 1
    return after < len(tokens) and bool(_match(tokens, after, c.evaluative))


def _validity_after(cl: _Clauses, negator: int) -> bool:
    """The negated predicate is one of validity ("is no longer supported", "isn't used")."""
    tokens, c = cl.tokens, cl.c
    after = negator + (_match(tokens, negator, c.negators) or 1)
    while after < len(tokens) and tokens[after].lower in c.fillers:
        after += 1
    return after < len(tokens) and tokens[after].lower in c.validity


def _noun_phrase(cl: _Clauses, head: int, *, whole: bool = False) -> list[int]:
    """The subject ending at token `head`: its head and the words before it that modify it
    ("Bar readings are not ...", "the GPa values aren't ..."), up to `subject_words` words; none
    when the head is the object of a preposition ("values in GPa are not rounded"), unless the
    `whole` phrase is judged (a validity predicate: "pressure in GPa is not supported"), which
    runs through its prepositions, up to twice as many words."""
    tokens, c = cl.tokens, cl.c
    phrase = [head]
    i = head - 1
    stops = c.determiners | c.coordinators | (frozenset() if whole else c.prepositions)
    while i >= 0 and len(phrase) < c.subject_words * (2 if whole else 1) \
            and not cl.boundary[i] and tokens[i].sentence == tokens[head].sentence \
            and tokens[i].text[:1].isalnum() and tokens[i].lower not in stops \
            and tokens[i].lower not in c.fillers:
        phrase.append(i)
        i -= 1
    if not whole and i >= 0 and not cl.boundary[i] and tokens[i].lower in c.prepositions:
        return []
    return phrase


def _label(cl: _Clauses, negator: int, *, evaluative: bool = False) -> list[int]:
    """A negated predicate with no subject of its own after a label ("psi: not used for the
    pressure", "MPa — never accepted"): it denies the label, a short noun phrase alone before a
    colon or a dash. What follows the negation must be a predicate (a participle, or a
    `label_predicates` word), never a noun ("pascal: not GPa" denies GPa, not pascal); an
    `evaluative` cue is a predicate itself ("MPa: deprecated for the pressure")."""
    tokens, c = cl.tokens, cl.c
    mark = negator - 1
    if mark < 1 or tokens[mark].lower not in c.label_marks \
            or tokens[mark].sentence != tokens[negator].sentence:
        return []
    return _label_before(cl, mark) if evaluative else _negated_label(cl, negator, mark)


def _negated_label(cl: _Clauses, negator: int, mark: int) -> list[int]:
    tokens, c = cl.tokens, cl.c
    after = negator + 1
    while after < len(tokens) and tokens[after].lower in c.fillers:
        after += 1
    if after >= len(tokens) or not (tokens[after].lower in c.label_predicates
                                    or tokens[after].lower.endswith(c.participle_endings)):
        return []
    return _label_before(cl, mark)


def _label_before(cl: _Clauses, mark: int) -> list[int]:
    """The label ending right before the mark: a short noun phrase opening its clause."""
    tokens = cl.tokens
    label = _noun_phrase(cl, mark - 1) if tokens[mark - 1].text[:1].isalnum() else []
    start = min(label, default=mark)
    if not label or not (start == 0 or cl.boundary[start - 1]
                         or tokens[start - 1].sentence != tokens[start].sentence):
        return []
    return label


@lru_cache(maxsize=1024)
def read(text: str) -> Reading:
    c = cues()
    tokens = tokenize(text)
    cl = _Clauses(tokens, c)
    now = superseded(tokens, c)
    present = {t.sentence for i, t in enumerate(tokens)
               if t.lower in c.present_subjects and _subject_of(cl, i)}
    answered_no = replied_no(tokens, c) | misread_headlines(tokens, c)  # "`x` treated as MiB"
    negated = negated_identifiers(tokens)  # "assertNotEqual(cfg.unit, 'GPa')"
    required = first_requirements(tokens, c)  # "must": what an error message requires
    denied = [token.sentence in answered_no or i in negated for i, token in enumerate(tokens)]
    denials = Counts(len(tokens))  # the ranges denied (a clause's), never listed

    def deny(indexes: Sequence[int]) -> None:
        if isinstance(indexes, range):  # ascending, by 1
            denials.add(indexes.start, indexes.stop)
        else:
            for i in indexes:
                denied[i] = True

    reaches, spans = Parities(len(tokens)), Counts(len(tokens))  # forward cues reaching, denying
    for i, token in enumerate(tokens):
        if (n := _match(tokens, i, c.forward)) or _negative(token):
            n = n or 1
            joins = coordinated(tokens, i, c)
            for scope in _forward_scope(cl, i, n):
                reaches.add(scope.start, scope.stop)
                spans.add(scope.start, scope.stop, 1 if joins else 0)
            deny(_subject(cl, i))
            deny(_label(cl, i))
            deny(_refuted(cl, i, n))
        if (n := _match(tokens, i, c.evaluative)) and reaches.get(i) % 2 == 1 \
                and not _attributive(cl, i):
            for part in _evaluative_scope(cl, i, n):  # negated: "not wrong to read it as GPa"
                reaches.make_even(part)
        elif n:
            for part in _evaluative_scope(cl, i, n):
                deny(part)
            deny(_label(cl, i, evaluative=True))
            deny(_heading(cl, i, n))
        deny(_postpositive(cl, i))
        if _match(tokens, i, c.past):  # "originally mph, then km/h in 1.3, since 2.0 m/s"
            deny(cl.clause_span(i))
            deny(_sequels(cl, i) if token.sentence in now else [])
        if _match(tokens, i, c.past_tense) and (token.sentence in now or aside(tokens, i)):
            deny(cl.clause_span(i))
            deny(_sequels(cl, i))
        if token.lower in c.past_subjects and _subject_of(cl, i) and token.sentence in present:
            deny(cl.clause_span(i))
        if token.lower in c.renames:
            deny(_renamed(cl, i))
        if token.lower in c.change_from:
            verb = _change_verb(cl, i)
            if verb is not None and reaches.get(verb) % 2 == 1:  # "never switched away from GPa"
                reaches.make_even(_change_scope(cl, i))
            else:
                deny(_change_scope(cl, i))
        if (n := _match(tokens, i, c.elliptical)) and _alone(cl, i, n):
            deny(_previous_clause(cl, i))
        if (n := _match(tokens, i, c.suppositions)) and i > 0 and tokens[i - 1].sentence == \
                token.sentence:  # "write `512Mi` if you mean mebibytes", "as if it were ms"
            deny(cl.forward_span(i, i + n))
        if _match(tokens, i, c.harmful) or raises_error(tokens, i, c):
            deny(cl.backward_span(i))
            deny(condition(tokens, i, c))
        deny(_received(cl, i, required))  # "must be a share; got 512, which looks like MB"
        if _match(tokens, i, c.manner_anaphora) and reaches.get(i) % 2 == 1:
            deny([j for j in range(i) if tokens[j].sentence == token.sentence])
    counts, values = reaches.values(), zip(denials.values(), spans.values(), strict=True)
    return Reading(tokens=tokens, denied=tuple(d or x > 0 or s > 0 or r % 2 == 1 for d, (x, s), r
                                               in zip(denied, values, counts, strict=True)),
                   reaches=tuple(counts))


def _sequels(cl: _Clauses, at: int) -> list[int]:
    """The clauses after the past clause of token `at` that a sequel opens ("..., then kW in
    2.0"; with no verb, "in bytes in 2.0"), each up to one saying what holds now ("since",
    "now"); a clause saying when the past ended ("until 1.4") is passed over."""
    tokens, out = cl.tokens, []
    end = cl.clause_span(at)[-1]
    while end + 2 < len(tokens) and tokens[end + 1].sentence == tokens[at].sentence:
        clause = cl.clause(end + 2)
        words = [j for j in clause if tokens[j].lower not in cl.c.coordinators]
        verbless = not any(tokens[j].lower in cl.c.copulas | cl.c.predicate_starts
                           for j in words)
        first = tokens[words[0]].lower if words else ""
        if verbless and tokens[end + 1].lower in cl.c.past_ends:  # "KiB until 1.4": its end
            end = max(clause)
            continue
        if not words or (first not in cl.c.sequels and not (
                verbless and first in cl.c.elided_sequels)) or any(
                _match(tokens, j, cl.c.superseded_by) for j in clause):
            break
        out += clause
        end = max(clause)
    return out


def _subject_of(cl: _Clauses, at: int) -> bool:
    """Token `at` opens its clause, after a determiner at most, and a noun follows it
    ("older firmware sent ...", "; the current one does not"): it qualifies the subject."""
    before, after = cl.backward_span(at), cl.forward_span(at, at + 1)
    return all(cl.tokens[j].lower in cl.c.determiners for j in before) and bool(after) \
        and cl.tokens[after[0]].text[:1].isalpha() and cl.tokens[after[0]].lower not in (
            cl.c.fillers | cl.c.copulas)
