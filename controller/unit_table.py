"""The table of unit names read from its files (pure; split from controller/unit_names.py):
`controller/units.toml` (the hand-kept table: dimensions, named compounds, products),
`units_library.toml` (pint's units of every dimension, scripts/units_from_pint.py) and
`units_money.toml` (currencies). What a name names, by case, for `controller.unit_names.names`.

    named(data)    -> every name of the tables with the unit (dimension, first name) it names
    by_case(named) -> the names matched as written, folded to lower case, typed in one case
    products(data) / dotted(data) / prefixes(data) / quotients(data): the table's compounds
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

UNITS_FILE = Path(__file__).with_name("units.toml")
# every unit of a library's registry (pint's) of every dimension, generated once by
# scripts/units_from_pint.py: read after the table, whose names decide
LIBRARY_FILE = Path(__file__).with_name("units_library.toml")
# units of money (ISO 4217's currencies, CLDR's names, the minor units), generated once by
# scripts/units_from_cldr.py: a dimension of its own; its codes are matched as written
MONEY_FILE = Path(__file__).with_name("units_money.toml")
# the metric prefixes and units as other languages write them: read after the library, whose
# names ("microlitre") say which prefixed units there are
LANGUAGES_FILE = Path(__file__).with_name("units_languages.toml")
EXACT_CASE_LEN = 2  # "Pa", "ms", "A": a short unit name matches only as written
DOT = "·"  # the table's product of two units ("N·m"); read joined as "N m"
JOIN = "\u02cd"  # a letter (so a word character) no text uses: "MB/s" -> "MBˍs"

Identity = tuple[str, str]


def _split(compound: str) -> tuple[str, str] | None:
    """The two units a compound is written with ("MB/s", "bytes per second")."""
    parts = re.split(r"\s*/\s*|\s+per\s+", compound, maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else None


def _units(data: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The table's units, each (dimension, its names)."""
    return [(dim, [entry] if isinstance(entry, str) else list(entry))
            for dim, units in data["dimensions"].items() for entry in units]


def _spelled(aliases: list[str]) -> list[str]:
    return [n for n in aliases if len(n) > EXACT_CASE_LEN and n.isalpha() and n.islower()]


def products(data: dict[str, Any]) -> list[tuple[str, Identity]]:
    """The spelled names of a unit the table writes as two of its units' names run together,
    the second a unit of `over`, the unit of a third dimension ("kWh": kW and h, an energy:
    "kilowatt hours", "kilowatthour"; "Wh": "watt hour"), in two words (`join_compounds`
    joins a space or a hyphen between them) and in one."""
    units = _units(data)
    by_name: dict[str, tuple[str, list[str]]] = {}
    for dim, aliases in units:
        for name in aliases:
            by_name.setdefault(name, (dim, aliases))
    out: list[tuple[str, Identity]] = []
    for dim, aliases in units:
        for name in aliases:
            for cut in range(1, len(name)):
                first, second = by_name.get(name[:cut]), by_name.get(name[cut:])
                if first is None or second is None or second[0] != data["compounds"]["over"] \
                        or dim in (first[0], second[0]):
                    continue
                out += [(a + sep + b, (dim, aliases[0])) for a in _spelled(first[1])
                        for b in _spelled(second[1]) for sep in (" ", "")]
    return out


def dotted(data: dict[str, Any]) -> re.Pattern[str] | None:
    """A product the table names ("N·m", "lbf·ft", "newton·metres") as a text writes it: a
    middle dot or a hyphen between its parts ("N⋅m", "ft-lb"), or a space between two spelled
    ones ("newton metres"); a part of one or two letters as written, a longer in any case."""
    found = sorted({n for _, aliases in _units(data) for n in aliases if DOT in n},
                   key=lambda n: (-len(n), n))
    if not found:
        return None

    def part(p: str) -> str:
        return re.escape(p) if len(p) <= EXACT_CASE_LEN else "(?i:" + re.escape(p) + ")"

    def written(name: str) -> str:
        a, b = name.split(DOT, 1)
        sep = r"\s?[·⋅]\s?|-" + (r"|[ \t]+" if min(len(a), len(b)) > EXACT_CASE_LEN else "")
        return part(a) + "(?:" + sep + ")" + part(b)

    return re.compile(r"(?<![\w°" + JOIN + r"·⋅-])(?:" + "|".join(map(written, found))
                      + r")(?![\w°·⋅-])")


def prefixes(data: dict[str, Any]) -> frozenset[str]:
    """The prefixes the table writes out: what a unit's spelled name adds to another's of its
    dimension where its short name adds a letter or two to the other's ("kilo" of kilopascal
    and pascal, kPa and Pa; "milli" of millisecond and second, ms and s)."""
    out: set[str] = set()
    for dim, aliases in _units(data):
        for other_dim, others in _units(data):
            if dim != other_dim or aliases is others:
                continue
            short = [(n, o) for n in aliases for o in others if len(n) <= EXACT_CASE_LEN + 1
                     and 0 < len(o) < len(n) and n.endswith(o)]
            out.update(n[:-len(o)] for n in _spelled(aliases) for o in _spelled(others)
                       if short and n.endswith(o) and len(n) - len(o) > EXACT_CASE_LEN)
    return frozenset(out)


def quotients(data: dict[str, Any]) -> dict[str, str]:
    """The dimension a unit per a unit of `over` is of where the table names it ("energy/time"
    -> power: "BTU/h" rivals "W"); a key with its own "/" is the whole quotient ("length/time²":
    an acceleration, "m/s²", "ft/s²")."""
    over = data["compounds"]["over"]
    return {top if "/" in top else f"{top}/{over}": dim
            for top, dim in data["compounds"].get("quotients", [])}


def named(data: dict[str, Any]) -> list[tuple[str, Identity]]:
    """Every name of the table with the unit it names: the dimensions' units and aliases, and
    the named compounds ("Mbps": megabits per second)."""
    named: list[tuple[str, Identity]] = []
    simple: dict[str, Identity] = {}
    for dim, units in data["dimensions"].items():
        for entry in units:
            aliases = [entry] if isinstance(entry, str) else entry
            for name in aliases:  # a product ("N·m") also as `identity` reads it joined
                named += [(n, (dim, aliases[0])) for n in {name, name.replace(DOT, " ")}]
                simple[name] = (dim, aliases[0])
    for entry in data["compounds"]["named"]:
        parts = _split(entry[0])
        first = parts and (simple.get(parts[0]), simple.get(parts[1]))
        if not first or first[0] is None or first[1] is None:
            raise ValueError(f"units.toml: {entry[0]!r} is not a unit per a unit")
        unit = (quotients(data).get(f"{first[0][0]}/{first[1][0]}",
                                     f"{first[0][0]}/{first[1][0]}"),
                f"{first[0][1]}/{first[1][1]}")
        named += [(name, unit) for name in entry[1:]]
    held = {name.lower() for name, _ in named}
    named += [(name, unit) for name, unit in products(data) if name.lower() not in held]
    held = {name.lower() for name, _ in named}
    with LIBRARY_FILE.open("rb") as handle:
        library = tomllib.load(handle)
    as_named = {name for name, _ in named}  # a one-letter name is matched as written
    for dim, units in library["dimensions"].items():
        for aliases in units:
            if not any(n in as_named if len(n) == 1 else n.lower() in held for n in aliases):
                named += [(name, (dim, aliases[0])) for name in aliases]
    named += translated(named)
    with MONEY_FILE.open("rb") as handle:
        money = tomllib.load(handle)
    for dim, units in money["dimensions"].items():
        for aliases in units:
            kept = [n for n in aliases if n.lower() not in held]
            named += [(name, (dim, kept[0])) for name in kept]
    return named


def translated(named: list[tuple[str, Identity]]) -> list[tuple[str, Identity]]:
    """The names other languages give the units `named` names in English with a metric prefix
    and a base (`LANGUAGES_FILE`: "millilitre" -> "Millilitern", "mililitros", "ミリリットル"),
    and the bases alone where a language's words stand apart; none a unit already has."""
    with LANGUAGES_FILE.open("rb") as handle:
        languages = tomllib.load(handle)["languages"]
    english = {name.lower(): unit for name, unit in reversed(named)}  # the first name decides
    held, out = set(english), []
    for language in languages.values():
        for base, forms in language["bases"].items():
            found = [(forms, english.get(base))] if language["alone"] else []
            found += [([prefix + form for form in forms], english.get(english_prefix + base))
                      for english_prefix, prefix in language["prefixes"].items()]
            square = language.get("square")
            squares = [([square + w for w in words], _squared(english.get(name)))
                       for words, name in [(forms, base), *(
                           ([prefix + f for f in forms], english_prefix + base)
                           for english_prefix, prefix in language["prefixes"].items())]
                       ] if square else []
            found = [*(found if language.get("plain", True) else []), *squares]
            for words, unit in found:
                new = [w for w in words if unit is not None and w.lower() not in held]
                out += [(w, unit) for w in new if unit is not None]
                held.update(w.lower() for w in new)
    return out


def _squared(unit: Identity | None) -> Identity | None:
    """A unit's square ("m" -> m², a length²), as `controller.unit_names` reads "m²"."""
    return None if unit is None else (unit[0] + "²", unit[1] + "²")


def as_written() -> frozenset[str]:
    """Names matched only as written: the currencies' codes ("ALL", "TOP", "TRY")."""
    with MONEY_FILE.open("rb") as handle:
        return frozenset(tomllib.load(handle)["as_written"])


def by_case(named: list[tuple[str, Identity]]
             ) -> tuple[dict[str, Identity], dict[str, Identity], dict[str, Identity]]:
    """The names matched as written, folded to lower case, and typed in one case."""
    # a longer name matches in any case, unless it differs only in case from another unit's:
    # then each matches as written, and in any other case the one with fewer capitals does
    # ("Mbps", "mbps", "MBPS": megabits; "MBps": megabytes)
    by_fold: dict[str, list[tuple[str, Identity]]] = {}
    written = as_written()
    for name, unit in named:
        if len(name) > EXACT_CASE_LEN and name not in written:
            by_fold.setdefault(name.lower(), []).append((name, unit))
    exact = {name: unit for name, unit in named
             if len(name) <= EXACT_CASE_LEN or name in written}
    folded: dict[str, Identity] = {}
    for key, found in by_fold.items():
        if len({unit for _, unit in found}) > 1:
            exact.update(found)
        folded[key] = min(found, key=lambda f: sum(c.isupper() for c in f[0]))[1]
    # a two-letter name typed all in lower case ("mv", "kv") or all in capitals ("KG", "MV")
    # names its unit where no name is so written and no other unit's name is so typed ("mw":
    # mW or MW, neither)
    recased: dict[str, set[Identity]] = {}
    for name, unit in named:
        typings = {name.lower(), *([name.upper()] if name.isascii() else [])} - {name}
        for typed in typings if len(name) == EXACT_CASE_LEN else ():
            if typed not in exact:
                recased.setdefault(typed, set()).add(unit)
    return exact, folded, {k: next(iter(v)) for k, v in sorted(recased.items()) if len(v) == 1}
