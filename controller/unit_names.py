"""The names of units (`controller/units.toml`) and what a word of a text names (pure).

A unit is its identity, (dimension, first name): "megapascals" and "MPa" are one unit. A unit
per a unit of time is one unit of its own ("MB/s", "megabytes per second", "MBps": data/time,
MB/s): `join_compounds` writes the separator of such a compound as a letter (`JOIN`, same
length, so offsets hold), so it reads as one word and the numerator alone ("MB" in "MB/s") is
never a mention of a size. A name of one or two letters matches only as written ("Pa", "ms",
"Mb" is a megabit, "MB" a megabyte; typed all in one case, "mv", "KG", only where a unit
stands and no other unit is so typed); a longer one in any case, unless another unit's name
differs from it only in case: then each as written, and in any other case the one with fewer
capitals ("MBps" megabytes; "Mbps", "mbps" megabits). A long name typed with two letters
swapped ("secnod") is that name.

    identity(word)      -> (dimension, first name) of the unit `word` names, or None
    unit_name(word)     -> the unit's first name ("megapascals" -> MPa, "Mbps" -> Mbit/s)
    rival(word, unit)   -> `word` names another unit of `unit`'s dimension
    same_unit(word, unit, elliptic=False) -> `word` names `unit` (`elliptic`: or, for a data
                           rate, the quantity of data alone: "megabits" for Mbit/s)
    unit_pattern(unit)  -> a regex of the unit's mentions in a joined text
    shown(word)         -> a joined word as a reader writes it ("MBˍs" -> "MB/s")
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from controller.unit_ellipsis import ellipsis_pattern
from controller.unit_powers import (
    CUBED,
    NEGATIVE_MARKS,
    POWER,
    join_inverse,
    superscripts,
)
from controller.unit_prefixed import one_base, prefixed, written_as
from controller.unit_table import (
    DOT,
    EXACT_CASE_LEN,
    JOIN,
    UNITS_FILE,
    Identity,
    by_case,
    dotted,
    named,
    prefixes,
    products,
    quotients,
)
from controller.unit_table import LIBRARY_FILE as LIBRARY_FILE  # read by tests
from controller.unit_table import MONEY_FILE as MONEY_FILE
from helix.core.negation_tokens import CJK

# a unit's name as a word of a joined text ("°C", "MBˍs", "megabitsˍperˍsecond")
WORD = re.compile(r"°?[A-Za-zµ%‰][A-Za-zµ" + POWER + JOIN + r"]*")
LATIN = "À-ÖØ-öø-ÿ"  # the accented letters of a name in French, German, Spanish ("mètres")
_MIN_SWAPPED = 6  # a name this long is still read with two neighbouring letters swapped
# a unit's square written before it, in one word or two ("Quadratsekunde", "square metres")
SQUARE_PREFIXES = ("quadrat", "square ", "sq ")
CUBE_PREFIXES = ("kubik", "cubic ")



@dataclass(frozen=True)
class Names:
    exact: dict[str, Identity]  # names matched as written (short, or mixed-case ones)
    folded: dict[str, Identity]  # longer names, lowercase
    recased: dict[str, Identity]  # two-letter names typed in one case ("mv", "KG")
    spellings: tuple[tuple[str, str], ...]  # another spelling of a name's part, the table's
    per: tuple[str, ...]  # words between a unit and a unit of time ("per")
    over: str  # the dimension a compound's second unit is of ("time")
    elliptic: frozenset[str]  # dimensions whose unit alone names its rate ("megabits")
    one_letter_after: frozenset[str]
    complement_after: frozenset[str]  # "value is A;": a one-letter unit ending its clause
    unit_nouns: frozenset[str]  # a clause calling a word a unit ("KG is the only unit")
    unit_verbs: frozenset[str]  # "take W": a capital letter a verb of giving a unit takes
    dimension_nouns: frozenset[str]
    number_words: frozenset[str]
    connectors: frozenset[str]
    anaphors: frozenset[str]
    instructions: frozenset[str]  # verbs opening an instruction about the quantity's value
    instruction_leads: frozenset[str]
    ellipsis: str  # a pattern of "<quantity>, however, is not", the quantity's phrase {q}
    rejects: frozenset[str]
    unreal: frozenset[str]
    contrasts: frozenset[str]
    rebuttals: frozenset[str]  # "but" after a comma: the clause before is set against
    qualifiers: frozenset[str]  # "cents for USD": the unit after says whose the unit is
    elsewhere: dict[str, Identity]  # "pounds": also GBP where money is asked
    contrast: dict[str, tuple[str, ...]]  # a word set against the unit ("tokens, not chars")
    shares: frozenset[str]  # dimensions a quantity of any dimension is given in as a share
    display: frozenset[str]  # words of a clause saying where a unit is shown
    sayings: frozenset[str]  # "the tooltip says px": a unit right after one is for display
    labelling: frozenset[str]  # "the km/h label": a unit right before one is for display
    appearances: tuple[tuple[str, ...], ...]  # "the tooltip says px but ...": shown, set aside
    rebutting: frozenset[str]  # "... but the value is actually a step": what it is instead
    expectations: frozenset[str]  # "expecting kPa": what someone expects, set aside
    concessions: tuple[tuple[str, ...], ...]  # phrases opening what is granted, set aside
    converts: frozenset[str]  # verbs whose object is a unit converted from
    reckonings: frozenset[str]  # "Multiply by 3.6 for km/h": arithmetic the reader does
    affirmations: frozenset[str]  # a reply of yes to a question ("Yes.")
    bounds: tuple[list[str], ...]  # a bound a value is held to, as lowercase words
    condition: re.Pattern[str]  # a line opening a code condition
    compound: re.Pattern[str]  # a unit, a separator, a unit of time
    products: re.Pattern[str] | None  # a product's spelled name in two words ("watt-hours")
    spaced: re.Pattern[str] | None  # a unit the table names in words ("US fluid ounces")
    dotted: re.Pattern[str] | None  # a product the table names with a dot ("N·m", "lb-ft")
    prefixes: frozenset[str]  # the table's prefixes written out ("kilo", "milli")
    quotients: dict[str, str]  # "energy/time" -> power: a compound's dimension named


def _spaced(data: dict[str, Any]) -> re.Pattern[str] | None:
    """A unit the table names in words of three letters or more whose last word alone names
    another unit or none ("US fluid ounces", "UK gallons", "fl oz"; not "raw counts", "counts"
    alone; not a product's parts, "in lbf", nor the first unit of a quotient, "US gallons per
    minute", which `compound` reads), as a text writes it."""
    entries = [[entry] if isinstance(entry, str) else entry
               for units in data["dimensions"].values() for entry in units]
    found = sorted({n for entry in entries for n in entry
                    if " " in n and DOT not in n and len(n.replace(" ", "")) > 3
                    and n.split()[-1] not in entry}, key=lambda n: (-len(n), n))
    per = "|".join(re.escape(w) for w in data["compounds"]["per"])
    words = "|".join(re.escape(n).replace(r"\ ", r"[ \t]+") for n in found)
    return re.compile(r"(?i)(?<![\w°" + JOIN + r"-])(?:" + words + r")(?![\w°-])"
                      + r"(?![ \t]*/|[ \t]+(?:" + per + r")\b)") if found else None


@lru_cache(maxsize=1)
def names() -> Names:
    with UNITS_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    exact, folded, recased = by_case(named(data))
    per = data["compounds"]
    words = "|".join(re.escape(w) for w in per["per"])
    # two words (the first after up to two more: "imperial gallons") and a separator, a unit
    # per a unit of time where `identity` says so (a typo of a long name too: "megabytes per
    # secnod")
    compound = re.compile(r"(?<![A-Za-z_°" + LATIN + JOIN + r"])((?:[A-Za-z" + LATIN
                          + r"]+[ \t]){0,2}°?[A-Za-zµ" + LATIN + r"]+"
                          + CUBED + r")(\s*/\s*|\s+(?:" + words + r")\s+)([A-Za-z]+["
                          + POWER + r"]?)(?![\w°/])",
                          re.IGNORECASE)
    lines, mentions = data["lines"], data["mentions"]
    two_words = sorted({name for name, _ in products(data) if " " in name},
                       key=lambda w: (-len(w), w))
    return Names(
        products=re.compile(r"(?i)(?<![\w°" + JOIN + r"-])(?:" + "|".join(
            re.escape(w).replace(r"\ ", r"[ \t-]+") for w in two_words) + r")(?![\w°-])")
        if two_words else None, spaced=_spaced(data), dotted=dotted(data),
        prefixes=prefixes(data),
        quotients=quotients(data),
        exact=exact, folded=folded, recased=recased,
        spellings=tuple((a, b) for a, b in data["mentions"]["spellings"]),
        per=tuple(per["per"]),
        over=per["over"], elliptic=frozenset(per["elliptic"]),
        one_letter_after=frozenset(mentions["one_letter_after"]),
        complement_after=frozenset(mentions["complement_after"]),
        unit_nouns=frozenset(mentions["unit_nouns"]),
        unit_verbs=frozenset(mentions["unit_verbs"]),
        dimension_nouns=frozenset(mentions["dimension_nouns"]),
        number_words=frozenset(mentions["number_words"]),
        connectors=frozenset(mentions["connectors"]), anaphors=frozenset(lines["anaphors"]),
        instructions=frozenset(lines["instructions"]),
        instruction_leads=frozenset(lines["instruction_leads"]),
        ellipsis=ellipsis_pattern(lines["auxiliaries"], lines["ellipsis_asides"],
                           lines["ellipsis_joins"], lines["ellipsis_determiners"]),
        rejects=frozenset(lines["rejects"]), unreal=frozenset(lines["unreal"]),
        contrasts=frozenset(lines["contrasts"]), rebuttals=frozenset(lines["rebuttals"]),
        qualifiers=frozenset(lines["qualifiers"]),
        elsewhere={name.lower(): (dim, group[0]) for dim, groups in data["elsewhere"].items()
                   for group in groups for name in group[1:]},
        contrast={key: tuple(words) for key, words in data["contrast"].items()},
        shares=frozenset(lines["shares"]),
        compound=compound,
        display=frozenset(lines["display"]), sayings=frozenset(lines["sayings"]),
        labelling=frozenset(lines["labelling"]),
        appearances=tuple(tuple(a.split()) for a in lines["appearances"]),
        rebutting=frozenset(lines["rebutting"]),
        expectations=frozenset(lines["expectations"]),
        concessions=tuple(tuple(c.split()) for c in lines["concessions"]),
        converts=frozenset(lines["converts"]), reckonings=frozenset(lines["reckonings"]),
        affirmations=frozenset(lines["affirmations"]),
        bounds=tuple(b.split() for b in mentions["bounds"]),
        condition=re.compile(r"^\s*(?:" + r"|".join(
            re.escape(w).replace(r"\ ", r"\s+") for w in lines["conditions"]) + r")\b"))


@lru_cache(maxsize=4096)
def _simple(word: str) -> Identity | None:
    found = _exact(word) or prefixed(word, _exact, _folded, True) or _named(word) or \
        prefixed(word, _exact, _folded, False)
    if found is None and len(word) > 1 and word[-1] in POWER:  # "s²", "ft²": any unit's power
        found = _power(_named(word[:-1]), word[-1])
    low = word.lower()
    for heads, power in ((SQUARE_PREFIXES, "²"), (CUBE_PREFIXES, "³")):
        before = next((p for p in heads if low.startswith(p) and len(low) > len(p)), None)
        if found is None and before is not None:  # "square feet", "Kubikmeter"
            found = _power(_named(word[len(before):].strip()), power)
    return found


def _exact(word: str) -> Identity | None:
    return names().exact.get(word)


def _folded(word: str) -> Identity | None:
    return names().folded.get(word.lower())


def _power(base: Identity | None, power: str) -> Identity | None:
    """A unit's square or cube: the table's name of it where it has one ("m³" a volume), else
    the unit's own dimension to that power ("s²": time², "ft²": length²)."""
    if base is None or base[0][-1:] in POWER:
        return None
    return _named(base[1] + power) or (base[0] + power, base[1] + power)


def _named(word: str) -> Identity | None:
    n = names()
    if len(word) <= EXACT_CASE_LEN:
        return n.exact.get(word) or n.recased.get(word)
    found = n.exact.get(word) or n.folded.get(word.lower())
    head, space, rest = word.partition(" ")
    if found is None and space and head.lower() in n.prefixes:  # "milli-amps", joined
        return n.folded.get((head + rest).lower())
    if found is None:  # another spelling of a part ("kilogrammes")
        low = word.lower()
        respelt = next((low.replace(a, b) for a, b in n.spellings if a in low), low)
        found = n.folded.get(respelt) if respelt != low else None
    if found is None and len(word) >= _MIN_SWAPPED and word.isalpha():
        low = word.lower()
        if len(low) > _longest(n):  # no name that long: a 100 KB word built 100,000 swaps
            return None
        for at in range(len(low) - 1):
            found = n.folded.get(low[:at] + low[at + 1] + low[at] + low[at + 2:])
            if found is not None and low[at] != low[at + 1]:
                return found
        return None
    return found


_LONGEST: dict[int, tuple[Names, int]] = {}  # a table's longest folded name


def _longest(n: Names) -> int:
    if id(n) not in _LONGEST:
        _LONGEST.clear()
        _LONGEST[id(n)] = (n, max(map(len, n.folded), default=0))
    return _LONGEST[id(n)][1]


@lru_cache(maxsize=4096)
def identity(word: str) -> Identity | None:
    """The unit `word` names: one name, or a unit per a unit of time however written ("MB/s",
    "MBˍs", "megabytes per second")."""
    word = re.sub(JOIN + "+", " ", word) if JOIN in word else word
    found = _simple(word.strip())
    if found is not None:
        return found
    n = names()
    # a separator first, so a unit of two words keeps them ("imperial gallons per minute"),
    # else the space before the unit of time ("imp gal min", joined from "imp gal/min")
    parts = re.split(r"\s*/\s*|\s+(?:" + "|".join(map(re.escape, n.per)) + r")\s+",
                     word.strip(), maxsplit=1)
    spaces = list(re.finditer(r"\s+", word.strip()))
    splits = [parts] if len(parts) == 2 else [
        [word.strip()[:m.start()], word.strip()[m.end():]] for m in spaces]
    for top_name, bottom_name in splits:
        top, bottom = _simple(top_name), _simple(bottom_name)
        if top is None or bottom is None or "/" in bottom[0]:
            continue
        # a compound's own quotient in brackets ("µS/cm": (current²·time³/length²·mass)/length)
        dim = f"({top[0]})/{bottom[0]}" if "/" in top[0] else f"{top[0]}/{bottom[0]}"
        first = f"{top[1]}/{bottom[1]}"
        if _named(first) is not None:  # a unit the library names: "px/cm", "dots per inch"
            return _named(first)
        if one_base(top_name.strip(), bottom_name.strip()):  # "mmol/mol", "mg/kg": a ratio
            return ((_named("%") or ("ratio", ""))[0], first)
        if bottom[0].rstrip(POWER) == n.over or _per_unit(top_name, top, bottom_name, bottom):
            return (n.quotients.get(dim, dim), first)
    return None


def _per_unit(top_name: str, top: Identity, bottom_name: str, bottom: Identity) -> bool:
    """A unit per a unit of another dimension ("g/km", "euros per litre") where neither is
    named in one letter: "N/A", "A/B" are no quotients of units; two units of one dimension
    only where the tables name a unit of that quotient ("px/mm" as pint's dots per inch):
    "°C/°F", "pence/cents" are alternatives."""
    top_name, bottom_name = top_name.strip(), bottom_name.strip()
    return len(top_name) > 1 and (len(bottom_name) > 1 or len(top_name) > 2) and (
        top[0] != bottom[0] or f"{top[0]}/{bottom[0]}" in _dimensions())


@lru_cache(maxsize=1)
def _dimensions() -> frozenset[str]:
    """Every dimension a unit of the tables is of."""
    n = names()
    return frozenset(unit[0] for table in (n.exact, n.folded) for unit in table.values())


def _join_spelled(text: str) -> str:
    """`text` with the space or hyphen inside a unit's name spelled in two words written as
    `JOIN`: a product ("kilowatt-hours" -> "kilowattˍhours") and a prefix written apart from
    its unit ("milli-amps" -> "milliˍamps", where "milliamps" is a name)."""
    n = names()
    if n.products is not None:
        text = n.products.sub(lambda m: re.sub(r"[ \t-]", JOIN, m.group()), text)
    if n.spaced is not None:
        text = n.spaced.sub(lambda m: re.sub(r"[ \t]", JOIN, m.group()), text)
    if n.dotted is not None:
        text = n.dotted.sub(lambda m: re.sub(r"[ \t·⋅-]", JOIN, m.group()), text)
    if "-" not in text:
        return text

    def prefixed(match: re.Match[str]) -> str:
        head, rest = match.group(1), match.group(2)
        return head + JOIN + rest if (head + rest).lower() in n.folded else match.group()

    return re.sub(r"(?<![\w°" + JOIN + r"-])([A-Za-z]+)-([A-Za-zµ]+)(?![\w°-])",
                  lambda m: prefixed(m) if m.group(1).lower() in n.prefixes else m.group(),
                  text)


CACHED_TEXT = 512  # join_compounds remembers texts up to this long (a unit, a word, a line)


def join_compounds(text: str) -> str:
    """`text` with the separator of every unit per a unit of time written as `JOIN`, remembered
    for short texts only: a long-running server reads whole evidence texts, which would fill a
    cache of 4,096 entries with megabytes."""
    return _join_compounds(text) if len(text) <= CACHED_TEXT else _join_compounds.__wrapped__(text)


@lru_cache(maxsize=4096)
def _join_compounds(text: str) -> str:
    """`text` with the separator of every unit per a unit of time written as `JOIN` (same
    length): "5 MB/s" -> "5 MBˍs", "megabits per second" -> "megabitsˍperˍsecond"; and of a
    unit's name spelled in two words (`_join_spelled`)."""
    text = _join_spelled(superscripts(text, JOIN, lambda phrase: _named(phrase) is not None))
    if any(mark in text for mark in NEGATIVE_MARKS):  # "L·min⁻¹", "m·s⁻²": a quotient
        text = join_inverse(text, identity, JOIN, CUBED)
    if "/" not in text and not any(w in text.lower() for w in names().per):
        return text

    def joined(match: re.Match[str]) -> str:
        top, over = match.group(1), match.group(3)
        for cut in (0, *(m.end() for m in re.finditer(r"[ \t]+", top))):  # "imperial gallons"
            found = identity(f"{top[cut:]} {over}")
            if found is not None and "/" in found[0] + found[1]:  # "Pa/s" no Pa·s; "px/cm"
                return (top[:cut] + re.sub(r"[ \t]", JOIN, top[cut:])
                        + re.sub(r"[\s/]", JOIN, match.group(2)) + over)
        return match.group()

    return names().compound.sub(joined, text)


def shown(word: str) -> str:
    """A word of a joined text as it was written, its separators a reader's ("MBˍs" -> MB/s,
    "megabytesˍperˍsecond" -> megabytes per second)."""
    if JOIN not in word:
        return word
    spaced = re.sub(JOIN + "+", " ", word).strip()
    parts = spaced.split(" ")
    if len(parts) == 2 and DOT in ((_simple(spaced) or ("", ""))[1]):
        return DOT.join(parts)  # a product: "lbfˍft" -> lbf·ft
    return spaced if len(parts) > 2 or _simple(spaced) is not None else "/".join(parts)


def unit_name(word: str) -> str | None:
    """The first name of the unit `word` names ("megapascals" -> MPa), or None."""
    found = identity(join_compounds(word))
    return found[1] if found else None


def is_number(word: str) -> bool:
    """A number in digits, or in words ("one", "twelve", "half")."""
    return (bool(re.fullmatch(r"[\d.,e+_-]+", word)) and any(c.isdigit() for c in word)) or (
        word.lower() in names().number_words)


def is_unit_name(word: str, previous: str) -> bool:
    """`word` names a unit; a one-letter name or a two-letter one typed in one case ("mv",
    "KG") only where a unit stands (after `one_letter_after` or a number: "in V", "3300 mv"; a
    capital, or a name of another dimension's unit too (`elsewhere`: "takes g"), after a verb of
    giving a unit)."""
    if (len(word) == 1 or word in names().recased) and not (
            previous in names().one_letter_after or previous.isdigit()
            or (len(word) == 1 and (word.isupper() or word in names().elsewhere)
                and previous in names().unit_verbs)):
        return False
    return identity(word) is not None


def _numerator(unit: Identity) -> Identity | None:
    """The quantity of data a data rate counts ("Mbit" of Mbit/s), where such a unit alone
    names the rate ("megabits" for "megabits per second")."""
    dims, firsts = unit[0].split("/"), unit[1].split("/")
    if len(dims) == 2 and dims[0] in names().elliptic:
        return (dims[0], firsts[0])
    return None


def same_unit(word: str, unit: str, elliptic: bool = False) -> bool:
    asked, found = identity(join_compounds(unit)), identity(word)
    if asked is None:
        return word == unit or (word.lower() == unit.lower() and len(unit) > EXACT_CASE_LEN)
    return found == asked or (elliptic and found is not None and found == _numerator(asked))


def rival(word: str, unit: str, elliptic: bool = False) -> bool:
    """`word` names another unit of `unit`'s dimension (not an alias of it: "Pa", "pascals");
    `elliptic`: for a data rate, a quantity of data alone names its rate too ("megabytes")."""
    found, asked = identity(word), identity(join_compounds(unit))
    if found is None or asked is None:
        return False
    other = names().elsewhere.get(word.lower())
    if found[0] != asked[0] and other is not None and other[0] == asked[0]:
        found = other  # "pounds" where money is asked: the pound sterling
    if found[0] == asked[0]:
        return found != asked
    top = _numerator(asked)
    return elliptic and top is not None and found[0] == top[0] and found != top


def share(word: str, unit: str) -> bool:
    """`word` names a share (`shares`: "percentage", "%") where `unit` is of another
    dimension: what a line denying `unit` may give the quantity in instead."""
    found, asked = identity(word), identity(join_compounds(unit))
    return (found is not None and asked is not None and found[0] in names().shares
            and asked[0] not in names().shares)


@lru_cache(maxsize=1024)
def aliases(unit: str) -> tuple[str, ...]:
    """Every single-word name of the unit `unit` names ("MB" -> MB, megabyte, megabytes), and
    for a data rate its named forms and its quantity of data's ("Mbps", "Mbit", "megabits"),
    longest first; `unit` alone when it names no known unit."""
    n = names()
    found = identity(join_compounds(unit))
    if found is None:
        return (unit,)
    top = _numerator(found)
    same = [name for table in (n.exact, n.folded, n.recased) for name, of in table.items()
            if of == found or (top is not None and of == top)]
    same += written_as(found, _exact, _folded)  # "microfarads", "uF" (unit_prefixed)
    respelt = [name.replace(b, a) for name in same if len(name) > EXACT_CASE_LEN
               for a, b in n.spellings if b in name]  # "kilograms" -> "kilogrammes"
    same += [name for name in respelt if identity(name) in (found, top)]
    return tuple(sorted({unit, *same}, key=lambda s: (-len(s), s)))


@lru_cache(maxsize=256)
def unit_pattern(unit: str) -> re.Pattern[str]:
    """A mention of the unit in any of its names, in a joined text: a short name as written
    ("MB", "°C"), a longer one in any case ("Megabytes", "degrees Celsius"), a compound in
    any of its spellings ("MBˍs", "megabytesˍperˍsecond"); never inside a word or an
    identifier ("MAX_SIZE_MB", "°CX", the "MB" of "MBˍs"), but right after a number ("25MB").
    A match is a mention only where `same_unit` says so (case: "MBps" is not "Mbps")."""
    found = identity(join_compounds(unit))
    spaced = r"[\s" + JOIN + r"]+"  # a name in two words, or joined (`_join_spelled`)
    table = names()
    parts = [re.escape(n).replace(r"\ ", spaced) if len(n) <= EXACT_CASE_LEN
             else "(?i:" + re.escape(n).replace(r"\ ", spaced) + ")" for n in aliases(unit)]
    parts += ["(?i:" + re.escape(n[:len(p)]) + JOIN + re.escape(n[len(p):]) + ")"
              for n in aliases(unit) for p in table.prefixes
              if len(n) > len(p) and n.lower().startswith(p) and n.isalpha()]
    if found is not None and found[1][-1:] in POWER and found[1][:-1]:  # "metres²", "feet³"
        parts += ["(?i:" + re.escape(n) + ")" + found[1][-1] for n in aliases(found[1][:-1])
                  if n.isalpha()]
    # a quotient, named or not ("m/s²"), or named by a symbol of its own and spelled out as
    # one ("PPCM": "pixels per centimetre")
    if found is not None and "/" in found[0] + found[1]:
        parts.insert(0, r"[A-Za-zµ°" + LATIN + r"]+" + CUBED + JOIN + r"+(?:[A-Za-z]+" + JOIN
                     + r"+)?[A-Za-z]+[" + POWER + "]?")
    return re.compile(r"(?<![A-Za-z_°" + LATIN + JOIN + r"])(?:" + "|".join(parts)
                      + r")(?![^\W" + CJK + r"]|°)")
