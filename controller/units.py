"""Whether a text states a quantity in a unit, or says it is *not* in that unit (pure).

"Is the tile pressure in GPa?" against "it is never expressed in GPa" must not read "in GPa".
Each mention of the unit is read in its sentence (`helix.core.negation`): a mention a negation
reaches ("never expressed in GPa", "GPa is deprecated in favour of pascal", "was GPa, now
pascal", "quoting it in GPa would be wrong") denies the unit; any other states it, unless its
sentence also denies the unit (it qualifies the unit, states nothing plainly) or its line
plainly states the quantity in another unit of the dimension ("Returns pascal. (Callers that
expect psi must convert.)": two answers, neither confirmed; a number before a unit makes it a
value, "1 GPa = 1e9 Pa", never a rival). A line that only denies the unit is answered with the
unit it states ("in pascal"), if any (unit names by dimension: controller/units.toml).

    unit_lines(text, unit, quantity=()) -> UnitLine(offset, states, instead) per line naming
                                    the unit (with the asked quantity: a sentence that
                                    names it only as what a negation reaches states no unit
                                    for it, "bar is the pump's, not the tile pressure's")
    states_unit(line, unit)      -> the line states the quantity in `unit`
    denies_unit(line, unit)      -> the line names `unit` and only denies it
    stated_instead(line, unit)   -> the unit the line states where it denies `unit`
    unit_name(word)              -> the unit's first name ("megapascals" -> MPa)
    text_states_unit(text, unit, quantity=()) -> some line of `text` states it
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter

from controller.unit_before import WORD as WORDS
from controller.unit_before import Before, defined
from controller.unit_contrast import contrast_instead
from controller.unit_history import superseded as _superseded
from controller.unit_identifiers import renamed_rival as _renamed_rival
from controller.unit_identifiers import suffixed as _suffixed
from controller.unit_identifiers import suffixed_rival as _suffixed_rival
from controller.unit_letters import stands
from controller.unit_markup import blanked as _blanked
from controller.unit_markup import foreign_rows as _foreign_rows
from controller.unit_markup import noted as _noted
from controller.unit_markup import paragraphs as _paragraphs
from controller.unit_markup import replacement as _replacement
from controller.unit_markup import retracted as _retracted
from controller.unit_markup import struck as _struck
from controller.unit_names import (
    WORD,
    identity,
    is_number,
    is_unit_name,
    join_compounds,
    names,
    rival,
    same_unit,
    share,
    shown,
    unit_pattern,
)
from controller.unit_names import unit_name as unit_name
from controller.unit_rivals import CLAUSE_ENDS as _CLAUSE_ENDS
from controller.unit_rivals import CLAUSE_MARKS as _CLAUSE_MARKS
from controller.unit_rivals import code_name as _code_name
from controller.unit_rivals import complement as _complement
from controller.unit_rivals import conceded as _conceded
from controller.unit_rivals import contrasted as _contrasted
from controller.unit_rivals import converted as _converted
from controller.unit_rivals import displayed as _displayed
from controller.unit_rivals import expected_by_someone as _expected
from controller.unit_rivals import product_part as _product_part
from controller.unit_rivals import qualifying as _qualifying
from controller.unit_rivals import questioned as _questioned
from controller.unit_rivals import reckoned as _reckoned
from controller.unit_rivals import set_against as _set_against
from controller.unit_rivals import shown_then_rebutted as _shown_then_rebutted
from controller.unit_rivals import sign_of_value as _sign_of_value
from controller.unit_rivals import supposed as _supposed
from controller.unit_scripts import latin_units
from helix.core.negation import Reading, read
from helix.core.negation_cues import cues

_CORRECTIONS = frozenset({"but"})  # "not X but Y": Y corrects X
_COUNT = "count"  # units.toml: a count of things a quantity is given in (a share)
_COUNT_LINKS = frozenset({"in"})  # "counts in units of 25 mW": a verb
_REPLY_WORDS = 3  # a reply alone ("A: No.") has at most this many words
# marks quoting a unit after the word before it ("only accepts 'L'", "expected `L`"): the word
# before the quote is the one before the unit
_QUOTE_MARKS = frozenset({"'", '"', "`", "‘", "“"})


def _other_stated(reading: Reading, unit: str, start: int, end: int,
                  quantity: tuple[str, ...] = ()) -> str | None:
    """The first other unit of `unit`'s dimension that characters `start`..`end` state
    plainly: not denied, not a value ("1 GPa = 1e9 Pa", "about 3 bar"), not a call."""
    previous = ""
    for at, (token, denied) in enumerate(zip(reading.tokens, reading.denied, strict=True)):
        if (start <= token.start < end and not denied
                and (is_unit_name(token.text, previous) or _complement(reading, at))
                and rival(token.text, unit) and not is_number(previous)
                and not _superseded(reading, at, unit)  # (first: the checks below scan the text)
                and not _counted(reading, at) and not _counting(reading, at)
                and not _code_name(reading, at) and not _product_part(reading, at)
                and not _supposed(reading, at)
                and not _contrasted(reading, at, quantity) and not _displayed(reading, at)
                and not _set_against(reading, at, unit, quantity)
                and not _conceded(reading, at) and not _converted(reading, at)
                and not _qualifying(reading, at, unit) and not _sign_of_value(reading, at)
                and not _reckoned(reading, at) and not _questioned(reading, at)):
            return shown(token.text)
        previous = previous if token.text in _QUOTE_MARKS else token.lower
    return None


def _spells_unit(word: str) -> bool:
    return identity(word) is not None


def _counted(reading: Reading, at: int) -> bool:
    """Token `at` follows a number in words and an article ("half an inch", "one and a half
    a ..."): a value, as after a digit, no second answer."""
    before = [t.lower for t in reading.tokens[max(0, at - 2):at]]
    return len(before) == 2 and before[1] in ("a", "an") and is_number(before[0])


def _bounded(words: list[str]) -> bool:
    """`words` end with a bound a value is held to ("below", "at least", "more than"): a
    negation of it ("can't go below 1 Mbit/s") denies the value, in the unit."""
    said = [w.lower() for w in words[-3:]]
    return any(said[len(said) - len(b):] == b for b in names().bounds if len(b) <= len(said))


def _annotated(para: str, start: int, end: int, quantity: tuple[str, ...]) -> bool:
    """The mention at `start`..`end` is the quantity's unit in parentheses right after its
    name ("the maximum upload size (in MB) is rejected"): it states the unit, whatever the
    sentence says of the quantity."""
    if not re.match(r"\s*\)", para[end:]):
        return False
    for phrase in quantity:
        pattern = _quantity_pattern(phrase)
        head = re.search(r"\(\s*(?:in\s+|as\s+)?$", para[:start])
        if pattern and head and any(m.end() == len(para[:head.start()].rstrip())
                                    for m in pattern.finditer(para[:head.start()].rstrip())):
            return True
    return False


def _mentions(text: str, unit: str, quantity: tuple[str, ...] = ()) -> list[re.Match[str]]:
    """The mentions of the unit in `text`; a one-letter name or a two-letter one typed in one
    case ("kv", "KG") only where it is a unit ("in C", "12 C", "(C)"; the two-letter one also
    where its clause calls it a unit, "KG is the only unit accepted"), never the word or
    letter it also is ("C code", "plan C") nor a count of dimensions ("a 2d array"); and the
    last word of an identifier named after the quantity (`_suffixed`)."""
    out = []
    table, tokens = names(), Before(text)
    for match in unit_pattern(unit).finditer(text):
        if not same_unit(match.group(), unit, elliptic=True):
            continue
        before = tokens.marked(match.start())  # the tokens before it that the checks read
        previous = before[-1].lower() if before else ""
        noted = _noted([t.lower() for t in before])
        if (len(match.group()) == 1 or match.group() in table.recased) and not (
                previous in table.one_letter_after or is_number(previous) or noted
                or (len(match.group()) > 1 and _called_unit(text, match))
                or (len(match.group()) == 1 and stands(text, match.start(), match.end()))):
            continue
        after = re.match(r"\s+([A-Za-z]+)", text[match.end():])
        if len(match.group()) == 1 and match.start() and text[match.start() - 1].isdigit() \
                and after and after.group(1).lower() in table.dimension_nouns:
            continue
        if defined(text, match.start(), match.end()):
            continue
        out.append(match)
    taken = {m.start() for m in out}
    out += [m for m in _suffixed(text, unit, quantity) if m.start() not in taken]
    return sorted(out, key=lambda m: m.start())


def _called_unit(text: str, match: re.Match[str]) -> bool:
    """The clause of `match` calls it a unit ("KG is the only accepted unit", "the unit is
    MV"): a short name typed in one case is a unit there."""
    start = max((text.rfind(mark, 0, match.start()) for mark in _CLAUSE_ENDS), default=-1)
    ends = [at for at in (text.find(mark, match.end()) for mark in _CLAUSE_ENDS) if at >= 0]
    clause = text[start + 1:min(ends, default=len(text))]
    return any(w.lower() in names().unit_nouns for w in re.findall(r"[A-Za-z]+", clause))


@dataclass(frozen=True)
class UnitLine:
    offset: int  # line number within the text, from 0
    states: bool  # some mention on the line states the unit
    instead: str | None  # the unit the line's sentence states, where the line only denies


def _instead(reading: Reading, unit: str, sentence: int, *, same: bool = True) -> str | None:
    """The first unit of `unit`'s dimension that sentence `sentence` states, else the next
    sentence (the answer to a question, "Is it in MB? No, it's in GB."; "It isn't in Celsius.
    It's in millikelvin."), or the one after a reply alone ("Q: ... in MB?\nA: No. It's GB.");
    not `same`: a unit of another dimension, where nothing else names one (`unit_lines`:
    "`tx_power` is expressed in dBm. It is not a wattage.", meaning33)."""
    reply = sum(1 for t in reading.tokens if t.sentence == sentence + 1 and t.text[:1].isalnum())
    for at in (sentence, sentence + 1, sentence + 2, sentence - 1):
        if at == sentence + 2 and reply > _REPLY_WORDS:  # past a reply alone ("A: No.")
            continue
        said: list[str] = []
        for n, (token, denied) in enumerate(zip(reading.tokens, reading.denied, strict=True)):
            # in a sentence denying the unit, a one-letter name also stands as the correction
            # ("not mV but V") and in a value's comment ("3.2  # V, not mV", "2000 /* g */")
            previous = said[-1] if said else ""
            named = is_unit_name(token.text, previous) or (
                identity(token.text) is not None and (previous in _CORRECTIONS
                                                      or _noted(said)))
            kin = (rival(token.text, unit, elliptic=True) or share(token.text, unit)) if same \
                else _other_dimension(reading, n, unit)
            if (token.sentence == at and not denied and named and kin
                    and not _code_name(reading, n) and not _product_part(reading, n)
                    and not _counting(reading, n)):
                return shown(token.text)
            said += [] if token.text in _QUOTE_MARKS else [token.lower]
    return None


def _contrast_or_other(reading: Reading, unit: str, sentence: int) -> str | None:
    """The unit a contrast names instead, else one of another dimension (meaning33)."""
    return contrast_instead(reading, unit, sentence) or _instead(reading, unit, sentence,
                                                                 same=False)


def _other_dimension(reading: Reading, at: int, unit: str) -> bool:
    """Token `at` names a unit of a dimension other than `unit`'s, standing alone: not half of
    a hyphenated word ("foot-lamberts") nor a noun's modifier ("the meter reading")."""
    tokens, c = reading.tokens, cues()
    found, asked = identity(tokens[at].text), identity(join_compounds(unit))
    if found is None or asked is None or found[0] == asked[0]:
        return False
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    if after is None or after.sentence != tokens[at].sentence:
        return True
    joined = after.start == tokens[at].end and after.text == "-"
    modifies = after.text.isalpha() and after.lower not in (
        c.prepositions | c.coordinators | c.boundary_words | c.fillers)
    return not (joined or modifies)


def _counting(reading: Reading, at: int) -> bool:
    """Token `at` is no unit a count is given in but what tells the count: "counts" as a verb
    or before what it counts ("counts in units of 25 mW", "counts of 4 KiB pages", "it counts
    WAL segments"), or a unit sizing the things counted after it ("4 KiB pages", "512-byte
    blocks"): the count's own name follows."""
    tokens = reading.tokens
    after = [t for t in tokens[at + 1:at + 5] if t.sentence == tokens[at].sentence]
    counted = any(_a_count(t.text) for t in after)
    if _a_count(tokens[at].text):
        return counted or (bool(after) and after[0].lower in _COUNT_LINKS)
    before = [t.text for t in tokens[max(0, at - 2):at]]
    sized = bool(before) and (is_number(before[-1]) or (before[-1] == "-" and len(before) == 2
                              and is_number(before[0])))
    return sized and bool(after) and _a_count(after[0].text)


def _a_count(word: str) -> bool:
    found = identity(word)
    return found is not None and found[0] == _COUNT


def _mixed_sentences(by_line: dict[int, list[tuple[bool, int | None]]]) -> set[int | None]:
    """Sentences that both state and deny the unit ("Although the constants are tabulated in
    GPa, the tile pressure is never in GPa"): such a sentence does not plainly state it."""
    said: dict[int | None, set[bool]] = {}
    for found in by_line.values():
        for stated, sentence in found:
            said.setdefault(sentence, set()).add(stated)
    return {sentence for sentence, readings in said.items() if len(readings) == 2}


@lru_cache(maxsize=256)
def _quantity_pattern(quantity: str) -> re.Pattern[str] | None:
    words = re.findall(r"[A-Za-z0-9]+", quantity)
    return re.compile(r"(?i)(?<![A-Za-z0-9])" + r"[\s_-]+".join(map(re.escape, words))
                      + r"(?![A-Za-z0-9])") if words else None


def _elsewhere(reading: Reading, text: str, quantity: tuple[str, ...]) -> set[int]:
    """Sentences that name the asked quantity only where a negation reaches it as an object
    ("GPa is for the modulus, not for the tile pressure", "bar has nothing to do with the
    tile pressure"): a unit such a sentence names outside every negation's reach belongs to
    something else. Not when a negation reaching the quantity reaches a unit too: it denies
    that unit for the quantity ("We no longer use MPa for the tile pressure; it is GPa now",
    "It is not true that tile pressure is in MPa; it is in GPa")."""
    said: dict[int, set[bool]] = {}
    with_unit = {token.sentence for token, reached in zip(reading.tokens, reading.reaches,
                                                          strict=False)
                 if reached and is_unit_name(token.text, "")}
    for phrase in quantity:
        pattern = _quantity_pattern(phrase)
        for match in pattern.finditer(text) if pattern else ():
            index = reading.index_at(match.start())
            if index is not None and reading.reaches:
                said.setdefault(reading.tokens[index].sentence, set()).add(
                    reading.reaches[index] % 2 == 1)
    return {sentence for sentence, reached in said.items()
            if reached == {True} and sentence not in with_unit}


@lru_cache(maxsize=64)
def _ellipsis_pattern(phrase: str) -> re.Pattern[str] | None:
    words = re.findall(r"[A-Za-z0-9]+", phrase)
    return re.compile(names().ellipsis.replace("{q}", r"[\s_-]+".join(map(re.escape, words)))
                      ) if words else None


def _elliptic(reading: Reading, text: str, quantity: tuple[str, ...]
              ) -> list[tuple[int, int | None, bool]]:
    """Clauses naming the quantity with an auxiliary alone (`names().ellipsis`: "the tile
    pressure, however, is not", "but tile_pressure does"): (offset, sentence, whether the
    clause before's predicate holds for the quantity), in order."""
    out = []
    for phrase in quantity:
        pattern = _ellipsis_pattern(phrase)
        for match in pattern.finditer(text) if pattern else ():
            index = reading.index_at(match.end() - 1)
            sentence = reading.tokens[index].sentence if index is not None else None
            out.append((match.start(), sentence, match.group("no") is None))
    return sorted(out, key=lambda e: e[0])


def _answered_otherwise(reading: Reading, index: int | None, unit: str) -> bool:
    """Token `index` is in a question whose reply, the next sentence, names another unit of
    its dimension and not `unit` ("Q: the gap between labels, mm?\nA: Points."): the reply
    says no without the word; or names `unit` only where a negation reaches it ("Sure this is
    kPa? I don't think the field is in kPa at all": meaning30)."""
    if index is None:
        return False
    tokens, sentence = reading.tokens, reading.tokens[index].sentence
    first, start, end = (bisect_left(tokens, n, key=attrgetter("sentence"))
                         for n in range(sentence, sentence + 3))
    asked = tokens[first:start]  # (tokens come in sentence order)
    if not asked or asked[-1].text != "?":
        return False
    reply = list(enumerate(tokens[start:end], start))
    again = [n for n, t in reply if same_unit(t.text, unit)]
    if again:  # the reply names the unit only where a negation reaches it: "... nits? Not nits"
        return all(reading.denied[n] for n in again)
    previous = [tokens[n - 1].lower if n else "" for n, _ in reply]
    return any(
        is_unit_name(t.text, before) and rival(t.text, unit) and not reading.denied[n]
        for (n, t), before in zip(reply, previous, strict=True))


def _set_aside(reading: Reading, index: int | None, unit: str) -> bool:
    """The mention at token `index` is answered otherwise, or in a concession: granted and set
    aside, stated no more than a rival there ("Despite the 'pt' suffix in the dropdown, the
    value is in twips", units29)."""
    return _answered_otherwise(reading, index, unit) or (
        index is not None and (_conceded(reading, index) or _expected(reading, index)
                               or _shown_then_rebutted(reading, index)))


def _unreached(reading: Reading, index: int | None) -> bool:
    return index is not None and bool(reading.reaches) and reading.reaches[index] == 0


def _anaphoric(reading: Reading, index: int | None, text: str = "") -> bool:
    """The clause of token `index` names the quantity back before it ("..., it is in GPa"), or
    opens with an instruction about its value ("Don't round the tile pressure -- just pass
    the GPa figure": `instructions`, after `instruction_leads`)."""
    if index is None:
        return False
    sentence, table = reading.tokens[index].sentence, names()
    opening: list[str] = []
    for token in reversed(reading.tokens[:index]):
        dash = token.text == "-" and text[token.start - 1:token.start] in (" ", "-")
        if token.sentence != sentence or token.text in _CLAUSE_MARKS or dash:
            break
        if token.lower in table.anaphors:
            return True
        opening.insert(0, token.lower)
    else:
        return False
    while opening and opening[0] in table.instruction_leads:
        opening.pop(0)
    return bool(opening) and opening[0] in table.instructions


def _replacements(para: str, last_struck: dict[int, int], unit: str) -> dict[int, str | None]:
    """Per line with a struck-out mention, the unit after the last strike on it (read once a
    line, not once a mention: a line of strikes read the rest of itself for each)."""
    return {line: next((shown(w) for w in WORD.findall(_struck(para, at) or "")
                        if rival(w, unit)), None) for line, at in last_struck.items()}


def unit_lines(text: str, unit: str, quantity: tuple[str, ...] = ()) -> list[UnitLine]:
    """Every line of `text` that names `unit`, read in its sentence, in order. Only the
    paragraphs naming the unit are read. A mention in a sentence that names the asked
    `quantity` only as what a negation reaches is not stated for it."""
    out: list[UnitLine] = []
    text = join_compounds(latin_units(_blanked(text), _spells_unit))
    retracted = _retracted(text)
    foreign, own_rows = _foreign_rows(text, quantity)
    for first, _, para in _paragraphs(text):
        mentions = _mentions(para, unit, quantity)
        if not mentions:
            continue
        reading, words = read(para.replace("\n", " ")), Before(para, WORDS)
        elsewhere = _elsewhere(reading, para, quantity)
        ellipses = _elliptic(reading, para, quantity)
        by_line: dict[int, list[tuple[bool, int | None]]] = {}
        starts = [0, *(i + 1 for i, c in enumerate(para) if c == "\n"), len(para) + 1]
        last_struck: dict[int, int] = {}  # lines with a struck-out mention: the last one's
        values: dict[int, list[tuple[bool, int | None]]] = {}  # denied values: "below one hour"
        for mention in mentions:
            index = reading.index_at(mention.start())
            sentence = reading.tokens[index].sentence if index is not None else None
            line = first + bisect_right(starts, mention.start()) - 1  # (not a count each)
            struck = _struck(para, mention.start())
            held = struck is None and (_annotated(para, mention.start(), mention.end(), quantity)
                                       or not reading.denied_at(mention.start()))
            if struck is not None:  # (the line's last strike replaces: read after the loop)
                last_struck[line] = mention.start()
            held = held and not _set_aside(reading, index, unit)
            stated = (held and line not in retracted | foreign
                      and not (sentence in elsewhere and _unreached(reading, index)
                               and not _anaphoric(reading, index, para)))
            # a clause after it that names the quantity with an auxiliary alone says whether
            # the mention's predicate holds for the quantity
            stated = next((holds for at, s, holds in ellipses
                           if at >= mention.end() and s == sentence), stated)
            before = words.last(mention.start(), 4)  # a number and the bound before it
            value = not stated and bool(before) and is_number(before[-1])
            if value and _bounded(before[:-1]) and line not in retracted | foreign:
                stated, value = True, False
            (values if value else by_line).setdefault(line, []).append((stated, sentence))
        replaced = _replacements(para, last_struck, unit)
        by_line = _settled(by_line, values)
        for line, found in sorted(by_line.items()):
            at = line - first
            other = _other_stated(reading, unit, starts[at], starts[at + 1] - 1, quantity)
            states = any(stated for stated, _ in found) and other is None
            denied = [s for stated, s in found if not stated and s is not None]
            instead = other if other is not None else (
                None if states or not denied else _instead(reading, unit, denied[0]))
            if instead is None:
                instead = _fallback_instead(
                    line, unit, quantity, text=text, para=para, reading=reading,
                    struck=None if states else replaced.get(line), retracted=retracted,
                    denied=bool(denied) and not states, foreign=foreign, own_rows=own_rows)
            if instead is None and denied and not states:
                instead = _contrast_or_other(reading, unit, denied[0])
            out.append(UnitLine(offset=line, states=states, instead=instead))
    return out


def _settled(by_line: dict[int, list[tuple[bool, int | None]]],
             values: dict[int, list[tuple[bool, int | None]]]
             ) -> dict[int, list[tuple[bool, int | None]]]:
    """The mentions of each line with the denied values added. A negation that reaches a value
    ("can't be set below one hour") denies the value, not the unit: the sentence is not mixed
    by it."""
    mixed = _mixed_sentences(by_line)
    for line, found in values.items():
        by_line.setdefault(line, []).extend(found)
    return {line: [(stated and s not in mixed, s) for stated, s in found]
            for line, found in by_line.items()}


def _fallback_instead(line: int, unit: str, quantity: tuple[str, ...], *, text: str, para: str,
                      reading: Reading, struck: str | None, retracted: set[int], denied: bool,
                      foreign: set[int], own_rows: list[str]) -> str | None:
    """The unit a line gives instead when its sentence names none: the replacement of a
    struck-out mention, of a retracted line, an identifier's unit suffix where the line denies,
    the unit of the row naming the quantity."""
    instead = struck
    if instead is None and line in retracted:
        instead = _replacement(text, line, unit)
    if instead is None and denied:
        instead = _suffixed_rival(reading, para, unit, quantity) or _renamed_rival(reading, unit)
    if instead is None and line in foreign:
        instead = next((shown(w) for row in own_rows for w in WORD.findall(row)
                        if rival(w, unit)), None)
    return instead


def states_unit(line: str, unit: str, quantity: tuple[str, ...] = ()) -> bool:
    """`line` names `unit` at least once other than where a negation reaches it."""
    return any(found.states for found in unit_lines(line, unit, quantity))


def denies_unit(line: str, unit: str, quantity: tuple[str, ...] = ()) -> bool:
    """`line` names `unit` only where a negation reaches it ("in pascal (not GPa)")."""
    found = unit_lines(line, unit, quantity)
    return bool(found) and not any(f.states for f in found)


def stated_instead(line: str, unit: str, quantity: tuple[str, ...] = ()) -> str | None:
    """The unit a line states where it denies `unit`: "in pascal (not GPa)" -> pascal."""
    found = unit_lines(line, unit, quantity)
    return found[0].instead if found and not found[0].states else None


def text_states_unit(text: str, unit: str, quantity: tuple[str, ...] = ()) -> bool:
    return any(found.states for found in unit_lines(text, unit, quantity))
