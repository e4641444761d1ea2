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
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from controller.unit_identifiers import names_quantity as _names_quantity
from controller.unit_identifiers import suffixed as _suffixed
from controller.unit_identifiers import suffixed_rival as _suffixed_rival
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
from helix.core.negation import Reading, read

_SENTENCE_END = re.compile(r"[.;:!?]\s*$")
_CONTINUES = re.compile(r"^\s*[a-z]")
_CLAUSE_MARKS = frozenset(",;:—–|")
_DIFF_REMOVED = re.compile(r"^\s*-(?!-)\s")
_DIFF_ADDED = re.compile(r"^\s*\+(?!\+)\s")
# a row of a list or a table and its label: "- `max_upload_size`: bytes", "| cooling_temp | K |"
_ROW = re.compile(r"^\s*(?:[-*]\s+(?P<item>[^:|—–]+?)\s*[:—–]|\|\s*(?P<cell>[^|]+?)\s*\|)"
                  r"(?=.*\S)")
# struck-out text, retracted by markup: "~~mV~~ V", "<del>GPa</del> pascal"
_STRUCK = re.compile(r"~~(?=\S)[^~\n]+?~~|<(del|s|strike)>[^<\n]+?</\1>", re.I)
_CORRECTIONS = frozenset({"but"})  # "not X but Y": Y corrects X
_COMMENT_MARKS = frozenset({"#", "/"})  # a value's unit in its comment: "12  # C", "5 // s"
_MIN_ROWS = 2  # a list or a table has two rows at least
_REPLY_WORDS = 3  # a reply alone ("A: No.") has at most this many words


def _other_stated(reading: Reading, unit: str, start: int, end: int,
                  quantity: tuple[str, ...] = ()) -> str | None:
    """The first other unit of `unit`'s dimension that characters `start`..`end` state
    plainly: not denied, not a value ("1 GPa = 1e9 Pa", "about 3 bar"), not a call."""
    previous = ""
    for at, (token, denied) in enumerate(zip(reading.tokens, reading.denied, strict=True)):
        if (start <= token.start < end and not denied and is_unit_name(token.text, previous)
                and rival(token.text, unit) and not is_number(previous)
                and not _code_name(reading, at) and not _supposed(reading, at)
                and not _contrasted(reading, at, quantity) and not _displayed(reading, at)):
            return shown(token.text)
        previous = token.lower
    return None


def _contrasted(reading: Reading, at: int, quantity: tuple[str, ...]) -> bool:
    """Token `at` is in a clause a contrast word opens about another subject ("the request
    timeout is in ms, while the retry delay is in seconds"): not the quantity, not "it"."""
    table = names()
    for n in range(at - 1, -1, -1):
        token = reading.tokens[n]
        if token.sentence != reading.tokens[at].sentence:
            return False
        if token.lower in table.contrasts:
            between = reading.tokens[n + 1:at]
            return bool(between) and not any(t.lower in table.anaphors for t in between) \
                and not _names_quantity(" ".join(t.text for t in between), quantity)
    return False


def _code_name(reading: Reading, at: int) -> bool:
    """Token `at` is a function called, "(" touching it (`math.radians(x)`): not a unit."""
    after = reading.tokens[at + 1:at + 2]
    return bool(after) and after[0].text == "(" and after[0].start == reading.tokens[at].end


def _supposed(reading: Reading, at: int) -> bool:
    """The clause of token `at` only supposes it: a modal of the unreal after it ("at these
    gaps, MPa would give unreadably large numbers")."""
    for token in reading.tokens[at + 1:]:
        if token.sentence != reading.tokens[at].sentence or token.text in _CLAUSE_MARKS:
            return False
        if token.lower in names().unreal:
            return True
    return False


def _displayed(reading: Reading, at: int) -> bool:
    """The clause of token `at` says where it is shown ("the dashboard shows MB/s", "MPa is
    only used for display"): a unit for display, no second answer."""
    tokens, sentence = reading.tokens, reading.tokens[at].sentence
    for step in (-1, 1):
        n = at + step
        while 0 <= n < len(tokens) and tokens[n].sentence == sentence \
                and tokens[n].text not in _CLAUSE_MARKS:
            if tokens[n].lower in names().display:
                return True
            n += step
    return False


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


# what only looks like a unit, blanked before a text is read (same length, so offsets hold):
# a plural mark ("hour(s)": never "(s)" seconds), a printf or format specifier ("%s", "%H",
# "{:>5s}"): never a unit; a number's ("%.4f", "%5d") reads as a number (a value's unit after)
_FORMAT_NUMBER = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[dfeEgGiu](?![A-Za-z])")
_NOT_UNITS = re.compile(r"(?<=[A-Za-z])\((?:s|es)\)|%[-+ #0]*\d*(?:\.\d+)?[A-Za-z]"
                        r"|\{[^{}\s]*:[^{}\s]*\}")
def _blanked(text: str) -> str:
    text = _FORMAT_NUMBER.sub(lambda m: "0" * len(m.group()), text)
    return _NOT_UNITS.sub(lambda m: " " * len(m.group()), text)


def _mentions(text: str, unit: str, quantity: tuple[str, ...] = ()) -> list[re.Match[str]]:
    """The mentions of the unit in `text`; a one-letter name only where it is a unit ("in C",
    "12 C", "(C)"), never the word or letter it also is ("C code", "plan C") nor a count of
    dimensions ("a 2d array"); and the last word of an identifier named after the quantity
    (`_suffixed`)."""
    out = []
    table = names()
    for match in unit_pattern(unit).finditer(text):
        if not same_unit(match.group(), unit, elliptic=True):
            continue
        before = re.findall(r"[\w.,]+|[^\w\s]", text[:match.start()])
        previous = before[-1].lower() if before else ""
        noted = previous in _COMMENT_MARKS and len(before) > 1 and is_number(before[-2])
        if (len(match.group()) == 1 or match.group() in table.lowered) and not (
                previous in table.one_letter_after or is_number(previous) or noted):
            continue
        after = re.match(r"\s+([A-Za-z]+)", text[match.end():])
        if len(match.group()) == 1 and match.start() and text[match.start() - 1].isdigit() \
                and after and after.group(1).lower() in table.dimension_nouns:
            continue
        out.append(match)
    taken = {m.start() for m in out}
    out += [m for m in _suffixed(text, unit, quantity) if m.start() not in taken]
    return sorted(out, key=lambda m: m.start())


@dataclass(frozen=True)
class UnitLine:
    offset: int  # line number within the text, from 0
    states: bool  # some mention on the line states the unit
    instead: str | None  # the unit the line's sentence states, where the line only denies


def _joined(text: str) -> str:
    """`text` with a line break that continues a sentence made a space (same offsets), so a
    negation on one line reaches the unit on the next ("it is not\\nexpressed in GPa"), and a
    question is read with the line that answers it ("Q: Is it in GPa?\\nA: No.")."""
    lines = text.split("\n")
    out = []
    for number, line in enumerate(lines):
        nxt = lines[number + 1] if number + 1 < len(lines) else ""
        joins = bool(line.strip()) and ((not _SENTENCE_END.search(line) and bool(
            _CONTINUES.match(nxt))) or (line.rstrip().endswith("?") and bool(nxt.strip())))
        out.append(line + (" " if joins else "\n"))
    return "".join(out)[:len(text)]


def _instead(reading: Reading, unit: str, sentence: int) -> str | None:
    """The first unit of `unit`'s dimension that sentence `sentence` states, else the next
    sentence (the answer to a question, "Is it in MB? No, it's in GB."; "It isn't in Celsius.
    It's in millikelvin."), or the one after a reply alone ("Q: ... in MB?\nA: No. It's GB.")."""
    reply = sum(1 for t in reading.tokens if t.sentence == sentence + 1 and t.text[:1].isalnum())
    for at in (sentence, sentence + 1, sentence + 2):
        if at == sentence + 2 and reply > _REPLY_WORDS:  # past a reply alone ("A: No.")
            break
        previous = earlier = ""
        for n, (token, denied) in enumerate(zip(reading.tokens, reading.denied, strict=True)):
            # in a sentence denying the unit, a one-letter name also stands as the correction
            # ("not mV but V") and in a value's comment ("3.2  # V, not mV")
            named = is_unit_name(token.text, previous) or (
                identity(token.text) is not None and (previous in _CORRECTIONS or (
                    previous in _COMMENT_MARKS and is_number(earlier))))
            if (token.sentence == at and not denied and named
                    and (rival(token.text, unit, elliptic=True) or share(token.text, unit))
                    and not _code_name(reading, n)):
                return shown(token.text)
            previous, earlier = token.lower, previous
    return None


def _paragraphs(text: str) -> list[tuple[int, int, str]]:
    """(first line, start offset, text) of each run of lines one sentence may span."""
    out: list[tuple[int, int, str]] = []
    line = offset = 0
    for part in _joined(text).split("\n"):
        original = text[offset:offset + len(part)]
        out.append((line, offset, original))
        line += original.count("\n") + 1
        offset += len(part) + 1
    return out


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


def _replacement(text: str, line: int, unit: str) -> str | None:
    """The unit of `unit`'s dimension the line after a retracted one names (a diff's "+"
    line: `- unit = "GPa"` / `+ unit = "kPa"` -> kPa)."""
    lines = text.split("\n")
    after = lines[line + 1] if line + 1 < len(lines) else ""
    return next((shown(w) for w in WORD.findall(after) if rival(w, unit)), None)


def _struck(para: str, at: int) -> str | None:
    """Where the mention at `at` is struck out by markup: what follows the strike on its line
    (what replaces it, "~~mV~~ V (fixed)" -> " V (fixed)"), else None."""
    for match in _STRUCK.finditer(para):
        if match.start() <= at < match.end():
            return para[match.end():].split("\n", 1)[0]
    return None


def _retracted(text: str) -> set[int]:
    """Lines whose mentions do not hold: a diff's removed line (a "-" line right before the
    "+" line that replaces it), and a code condition whose next line rejects what it tests
    (`if unit == "GPa":` then `raise ...`)."""
    lines = text.split("\n")
    out = {n for n, (line, nxt) in enumerate(pairwise(lines))
           if _DIFF_REMOVED.match(line) and _DIFF_ADDED.match(nxt)}
    rejects = names().rejects
    for n, line in enumerate(lines):
        body = next((b.split() for b in lines[n + 1:] if b.strip()), [""])
        if names().condition.match(line) and re.split(r"\W", body[0])[0].lower() in rejects:
            out.add(n)
    return out


def _foreign_rows(text: str, quantity: tuple[str, ...]) -> tuple[set[int], list[str]]:
    """Rows of a list or table (a line opening with "-", "*" or "|", or a `label: value` line)
    whose label names something other than the asked quantity, where another row of the text
    names it: "- cooling temperature: K" / "- ambient temperature: °C" (°C is the ambient's)."""
    rows: dict[int, str] = {}
    for n, line in enumerate(text.split("\n")):
        match = _ROW.match(line)
        if match:
            rows[n] = match.group("item") or match.group("cell")
    if len(rows) < _MIN_ROWS or not quantity:
        return set(), []
    named = {n for n, label in rows.items() if _names_quantity(label, quantity)}
    lines = text.split("\n")
    return (set(rows) - named if named else set()), [lines[n] for n in sorted(named)]


def unit_lines(text: str, unit: str, quantity: tuple[str, ...] = ()) -> list[UnitLine]:
    """Every line of `text` that names `unit`, read in its sentence, in order. Only the
    paragraphs naming the unit are read. A mention in a sentence that names the asked
    `quantity` only as what a negation reaches is not stated for it."""
    out: list[UnitLine] = []
    text = join_compounds(_blanked(text))
    retracted = _retracted(text)
    foreign, own_rows = _foreign_rows(text, quantity)
    for first, _, para in _paragraphs(text):
        mentions = _mentions(para, unit, quantity)
        if not mentions:
            continue
        reading = read(para.replace("\n", " "))
        elsewhere = _elsewhere(reading, para, quantity)
        ellipses = _elliptic(reading, para, quantity)
        by_line: dict[int, list[tuple[bool, int | None]]] = {}
        replaced: dict[int, str | None] = {}  # lines with a struck-out mention: its replacement
        values: dict[int, list[tuple[bool, int | None]]] = {}  # denied values: "below one hour"
        for mention in mentions:
            index = reading.index_at(mention.start())
            sentence = reading.tokens[index].sentence if index is not None else None
            line = first + para.count("\n", 0, mention.start())
            struck = _struck(para, mention.start())
            held = struck is None and (_annotated(para, mention.start(), mention.end(), quantity)
                                       or not reading.denied_at(mention.start()))
            if struck is not None:
                replaced[line] = next((shown(w) for w in WORD.findall(struck)
                                       if rival(w, unit)), None)
            stated = (held and line not in retracted | foreign
                      and not (sentence in elsewhere and _unreached(reading, index)
                               and not _anaphoric(reading, index, para)))
            # a clause after it that names the quantity with an auxiliary alone says whether
            # the mention's predicate holds for the quantity
            stated = next((holds for at, s, holds in ellipses
                           if at >= mention.end() and s == sentence), stated)
            before = re.findall(r"[\w.,]+", para[:mention.start()])
            value = not stated and bool(before) and is_number(before[-1])
            if value and _bounded(before[:-1]) and line not in retracted | foreign:
                stated, value = True, False
            (values if value else by_line).setdefault(line, []).append((stated, sentence))
        by_line = _settled(by_line, values)
        starts = [0, *(i + 1 for i, c in enumerate(para) if c == "\n"), len(para) + 1]
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
        instead = _suffixed_rival(reading, para, unit, quantity)
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
