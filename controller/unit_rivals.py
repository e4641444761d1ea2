"""What makes another unit a line names no second answer to "is it in <unit>?" (pure; split
from controller/units.py): a unit saying whose the asked one is, a sign before a value, a
clause about another subject (a contrast, a rebuttal), a concession, a unit converted from,
a function called, a modal of the unreal, a display; and a unit's short name that is the
complement of "is" ("cfg value is A;"), a unit there though no "in" stands before it.
"""

from __future__ import annotations

from functools import lru_cache

from controller.unit_identifiers import names_quantity as _names_quantity
from controller.unit_names import identity, is_number, names, same_unit
from helix.core.negation import Reading

CLAUSE_MARKS = frozenset(",;:—–|")
CLAUSE_ENDS = (*CLAUSE_MARKS, ".", "!", "?", "\n", "(", ")")
_TARGETS = frozenset({"to", "into"})  # what a value is converted to
_ARTICLES = frozenset({"a", "an", "the"})
_BREAKS = frozenset({*CLAUSE_MARKS, "-", "/", "(", ")"})  # marks ending a clause in a line
_MARKUP = frozenset({"*", "_", "`"})  # marks of emphasis or code around a sentence's words
# a rebuttal opens a clause of its own: a display in the clause across it is not the unit's
# ("the tooltip says pt but the value is px", units29)
_OPENING = frozenset({"but", "yet"})
_QUOTES = frozenset({"'", '"', "`", "‘", "“"})  # a quote between a saying and its unit
# how far back a concession or an appearance is looked for from a unit's mention, in tokens: a
# clause ends sooner in any text people write; a line of thousands of unit words (untrusted
# input) is then read in linear time, not quadratic (review29)
REACH = 64


def _opens_at(reading: Reading, start: int, phrases: tuple[tuple[str, ...], ...]) -> bool:
    """One of `phrases` (word tuples) opens at token `start`."""
    tokens = reading.tokens
    return any(tuple(t.lower for t in tokens[start:start + len(phrase)]) == phrase
               for phrase in _by_first(phrases).get(tokens[start].lower, ()))


@lru_cache(maxsize=16)
def _by_first(phrases: tuple[tuple[str, ...], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """`phrases` by their first word: a token is compared with the few that start with it."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        out.setdefault(phrase[0], []).append(phrase)
    return {word: tuple(group) for word, group in out.items()}


def complement(reading: Reading, at: int) -> bool:
    """Token `at` is a unit's short name that ends its clause after a form of "be" ("cfg
    value is A;", "the supply is V, ..."): the unit is the predicate's complement."""
    tokens = reading.tokens
    if at == 0 or tokens[at - 1].lower not in names().complement_after \
            or identity(tokens[at].text) is None:
        return False
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    return after is None or after.sentence != tokens[at].sentence or after.text in CLAUSE_ENDS


def qualifying(reading: Reading, at: int, unit: str) -> bool:
    """Token `at` says whose the asked unit is: right before a mention of it ("EUR cents"),
    or after one and a qualifier ("cents for USD", "cents of a dollar")."""
    tokens = reading.tokens
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    if after is not None and after.sentence == tokens[at].sentence \
            and same_unit(after.text, unit):
        return True
    before = [t for t in tokens[max(0, at - 3):at] if t.sentence == tokens[at].sentence]
    words = [t.lower for t in before]
    while words and words[-1] in _ARTICLES:
        words.pop()
    return len(words) >= 2 and words[-1] in names().qualifiers and any(
        same_unit(t.text, unit) for t in before[:len(words) - 1][-1:])


def sign_of_value(reading: Reading, at: int) -> bool:
    """Token `at` is a sign written before a value ("$12.50", "€5") or a template's
    placeholder ("${total}"): the value's, or code; no second answer."""
    token, tokens = reading.tokens[at], reading.tokens
    if token.text[:1].isalnum() or at + 1 >= len(tokens) or tokens[at + 1].start != token.end:
        return False
    return is_number(tokens[at + 1].text) or tokens[at + 1].text == "{"


def contrasted(reading: Reading, at: int, quantity: tuple[str, ...]) -> bool:
    """Token `at` is in a clause a contrast word opens about another subject ("the request
    timeout is in ms, while the retry delay is in seconds"): not the quantity, not "it". A
    contrast word opening its sentence or a label's clause ("Warning: although the UI shows
    mm, the stored value is in micrometres") opens a clause fronted before the main one,
    which starts after its comma: a unit there is the sentence's own."""
    table = names()
    for n in range(at - 1, -1, -1):
        token = reading.tokens[n]
        if token.sentence != reading.tokens[at].sentence:
            return False
        if token.lower in table.contrasts:
            between = reading.tokens[n + 1:at]
            fronted = n == 0 or reading.tokens[n - 1].sentence != token.sentence \
                or reading.tokens[n - 1].text == ":"
            if fronted and any(t.text == "," for t in between):
                return False
            return bool(between) and not any(t.lower in table.anaphors for t in between) \
                and not _names_quantity(" ".join(t.text for t in between), quantity)
    return False


def set_against(reading: Reading, at: int, unit: str, quantity: tuple[str, ...]) -> bool:
    """Token `at` is in a clause about another subject (not the quantity, not "it") that a
    rebuttal after a comma sets against a clause stating `unit` ("PDF coordinates are points
    internally, but every value you pass is in millimetres"): that subject's unit."""
    tokens, sentence = reading.tokens, reading.tokens[at].sentence
    before = [t for t in tokens[:at] if t.sentence == sentence]
    if any(t.lower in names().anaphors for t in before) or _names_quantity(
            " ".join(t.text for t in before), quantity):
        return False
    for n in range(at + 1, len(tokens)):
        if tokens[n].sentence != sentence:
            return False
        if tokens[n].lower in names().rebuttals and tokens[n - 1].text == ",":
            return any(same_unit(t.text, unit) for t in tokens[n + 1:]
                       if t.sentence == sentence)
    return False


def conceded(reading: Reading, at: int) -> bool:
    """Token `at` is in a phrase a concession opens ("despite what the wiki said about grams"),
    which runs to its clause's end: what is granted and set aside, no second answer."""
    tokens, concessions = reading.tokens, names().concessions
    firsts = _by_first(concessions)  # (a token no concession opens with is passed at once)
    for n in range(at - 1, max(at - REACH, 0) - 1, -1):
        token = tokens[n]
        if token.sentence != tokens[at].sentence or token.text in CLAUSE_MARKS:
            return False
        if token.lower in firsts and _opens_at(reading, n, concessions):
            return True
    return False


def converted(reading: Reading, at: int) -> bool:
    """Token `at` follows a verb of converting in its clause, not after "to" ("convert lb with
    `lb * 0.4536`", "converting the old lb values"): what a value is converted from, no second
    answer ("the agent converts to MB/s" is what it is converted to)."""
    for token in reversed(reading.tokens[:at]):
        if token.sentence != reading.tokens[at].sentence or token.text in CLAUSE_MARKS \
                or token.lower in _TARGETS:
            return False
        if token.lower in names().converts:
            return True
    return False


def code_name(reading: Reading, at: int) -> bool:
    """Token `at` is a function called, "(" touching it (`math.radians(x)`): not a unit."""
    after = reading.tokens[at + 1:at + 2]
    return bool(after) and after[0].text == "(" and after[0].start == reading.tokens[at].end


def product_part(reading: Reading, at: int) -> bool:
    """Token `at` is the second part of a unit's name hyphenated to another unit's name
    ("foot-lamberts", "pound-feet"): the unit named is the product, which the tables may not
    hold, never the part alone."""
    before = reading.tokens[max(0, at - 2):at]
    return (len(before) == 2 and before[1].text == "-"
            and before[1].end == reading.tokens[at].start and before[0].end == before[1].start
            and identity(before[0].text) is not None)


def supposed(reading: Reading, at: int) -> bool:
    """The clause of token `at` only supposes it: a modal of the unreal after it ("at these
    gaps, MPa would give unreadably large numbers")."""
    for token in reading.tokens[at + 1:]:
        if token.sentence != reading.tokens[at].sentence or token.text in CLAUSE_MARKS:
            return False
        if token.lower in names().unreal:
            return True
    return False


def displayed(reading: Reading, at: int) -> bool:
    """The clause of token `at` says where it is shown ("the dashboard shows MB/s", "MPa is
    only used for display"), a rebuttal ending the clause, or the unit is what a label says
    ("the tooltip says px"): a unit for display, no second answer."""
    tokens, sentence = reading.tokens, reading.tokens[at].sentence
    before = [t.lower for t in tokens[max(0, at - 3):at] if t.sentence == sentence
              and t.lower not in _ARTICLES and t.text not in _QUOTES]
    if before and before[-1] in names().sayings:  # "the tooltip says px"
        return True
    after = tokens[at + 1:at + 2]
    if after and after[0].sentence == sentence and after[0].lower in names().labelling:
        return True  # "the km/h label on the old chart"
    for step in (-1, 1):
        n = at + step
        while 0 <= n < len(tokens) and tokens[n].sentence == sentence \
                and tokens[n].text not in CLAUSE_MARKS and tokens[n].lower not in _OPENING:
            if tokens[n].lower in names().display:
                return True
            n += step
    return False


def reckoned(reading: Reading, at: int) -> bool:
    """Token `at` is in a sentence, or a clause after a clause mark, that opens with arithmetic
    the reader is told to do ("Multiply by 3.6 for km/h", "...; divide by 8 if you need MB/s"):
    what the value comes to, no second answer."""
    tokens, sentence = reading.tokens, reading.tokens[at].sentence
    for n in range(at - 1, -1, -1):
        if tokens[n].sentence != sentence or tokens[n].text in _BREAKS:
            return False
        if tokens[n].lower in names().reckonings and (
                n == 0 or tokens[n - 1].sentence != sentence or tokens[n - 1].text in _BREAKS):
            return True
    return False


def questioned(reading: Reading, at: int) -> bool:
    """Token `at` is in the last clause of a question the line asks that the next sentence
    does not answer yes ("got 120 -- did you pass km/h?"): only supposed, no second answer."""
    tokens, sentence = reading.tokens, reading.tokens[at].sentence
    own = [t for t in tokens[at:] if t.sentence == sentence and t.text not in _MARKUP]
    if own[-1].text != "?" or any(t.text in _BREAKS for t in own):
        return False  # not asked, or another clause between it and the question's mark
    reply = [t for t in tokens if t.sentence == sentence + 1 and t.text not in _MARKUP]
    return not reply or reply[0].lower not in names().affirmations


def shown_then_rebutted(reading: Reading, at: int) -> bool:
    """Token `at` is in a clause saying what a label, a display or a look shows (`appearances`
    before it: "the tooltip says 'kPa'", "labels the reading as kPa", "looks like kPa"), and a
    later clause of its sentence opens with a rebuttal or says "actually" (`rebutting`: "...
    but the value is a raw count", "..., which is actually a step index"): what is shown is
    set aside, not stated (meaning30)."""
    tokens, sentence, table = reading.tokens, reading.tokens[at].sentence, names()
    n, shown, firsts = at - 1, False, _by_first(table.appearances)
    while n >= max(at - REACH, 0) and tokens[n].sentence == sentence \
            and tokens[n].text not in CLAUSE_MARKS and tokens[n].lower not in _OPENING:
        if tokens[n].lower in firsts and _opens_at(reading, n, table.appearances):
            shown = True
            break
        n -= 1
    if not shown:
        return False
    for token in tokens[at + 1:]:  # the rest of its sentence (tokens come in sentence order)
        if token.sentence != sentence:
            return False
        if token.lower in table.rebutting:
            return True
    return False


def expected_by_someone(reading: Reading, at: int) -> bool:
    """Token `at` follows a participle of expecting (`expectations`), a number, an article or a
    quote between at most ("Putting 250 there expecting kPa gives ..."): what someone expected,
    set aside, not stated (meaning30)."""
    n = at - 1
    while n >= 0 and (reading.tokens[n].lower in _ARTICLES or reading.tokens[n].text in _QUOTES
                      or is_number(reading.tokens[n].text)):
        n -= 1
    return n >= 0 and reading.tokens[n].sentence == reading.tokens[at].sentence \
        and reading.tokens[n].lower in names().expectations
