"""A unit written as an SI prefix on a unit that takes one (pure; read by controller/unit_names).

The tables (units.toml, pint's units_library.toml) list a prefixed unit only where someone
listed it: "mmol", "µS", "mGy", "kmol", "millimoles" were unknown, so a line naming them could
not be read at all. This module reads them by construction: every SI prefix (the SI brochure's
table 7, "da" left out: "dam" is a word) on every unit the brochure lets take one (its base
and derived units with special names, tables 2 and 4, and the litre, dalton and electronvolt
of table 8), in symbols as written ("mPa" a millipascal, "MPa" a megapascal; the litre's "L"
or "l" alike; "u" for "µ") and in spelled names in any case ("millimoles", "Microsiemens").
Where the tables name the prefixed unit its identity is theirs ("micromoles" is µmol); a
symbol is read here before the tables fold its case ("mPa" is no "MPa"), a spelled name only
where the tables have none; so is an unprefixed symbol of two letters with a capital the
tables lack ("Sv").

A prefixed symbol that reads as something else is left to the tables: two letters with a
lower-case base or in capitals ("ms", "Ms", "pm": a table's own unit, a title, a time of day;
"PC", "TV", "PS": acronyms), a lower-case word of a two-letter
base ("mlx", "klm", "mcd": identifiers and names), and "pH" (acidity, not picohenries).

    prefixed(word, ...) -> the unit `word` names as a prefix on a unit, or None (a lookup)
    written_as(unit, ...) -> every symbol and spelled name this module reads as `unit`
    one_base(top, bottom) -> both symbols are one unit's, prefixed or not ("mmol/mol": a ratio)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

Identity = tuple[str, str]

# the SI prefixes' symbols and names (SI brochure, table 7); "u" as a text types "µ"
PREFIXES = {"q": "quecto", "r": "ronto", "y": "yocto", "z": "zepto", "a": "atto", "f": "femto",
            "p": "pico", "n": "nano", "µ": "micro", "u": "micro", "m": "milli", "c": "centi",
            "d": "deci", "h": "hecto", "k": "kilo", "M": "mega", "G": "giga", "T": "tera",
            "P": "peta", "E": "exa", "Z": "zetta", "Y": "yotta", "R": "ronna", "Q": "quetta"}
# the units a prefix goes on: symbols (the first the one a prefixed unit is written with),
# spelled names, and the dimension where the tables know none of the names (pint's)
BASES: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (("m",), ("metre", "metres", "meter", "meters"), ""),
    (("g",), ("gram", "grams", "gramme", "grammes"), ""),
    (("s",), ("second", "seconds"), ""),
    (("A",), ("ampere", "amperes", "amp", "amps"), ""),
    (("K",), ("kelvin", "kelvins"), ""),
    (("mol",), ("mole", "moles"), ""),
    (("cd",), ("candela", "candelas"), ""),
    (("Hz",), ("hertz",), ""),
    (("N",), ("newton", "newtons"), ""),
    (("Pa",), ("pascal", "pascals"), ""),
    (("J",), ("joule", "joules"), ""),
    (("W",), ("watt", "watts"), ""),
    (("C",), ("coulomb", "coulombs"), "current·time"),
    (("V",), ("volt", "volts"), ""),
    (("F",), ("farad", "farads"), "current²·time⁴/length²·mass"),
    (("Ω",), ("ohm", "ohms"), ""),
    (("S",), ("siemens",), "current²·time³/length²·mass"),
    (("Wb",), ("weber", "webers"), ""),
    (("T",), ("tesla", "teslas"), ""),
    (("H",), ("henry", "henries", "henrys"), "length²·mass/current²·time²"),
    (("Bq",), ("becquerel", "becquerels"), ""),
    (("Gy",), ("gray", "grays"), "length²/time²"),
    (("Sv",), ("sievert", "sieverts"), ""),
    (("kat",), ("katal", "katals"), ""),
    (("lm",), ("lumen", "lumens"), ""),
    (("lx",), ("lux",), ""),
    (("L", "l"), ("litre", "litres", "liter", "liters"), ""),
    (("Da",), ("dalton", "daltons"), ""),
    (("eV",), ("electronvolt", "electronvolts"), ""),
)
LOOKALIKES = frozenset({"pH"})  # a prefixed symbol a text means otherwise


def _symbol_read(word: str, base: str) -> bool:
    """A prefix and `base` written as `word` may be read as a unit (module docstring)."""
    if word in LOOKALIKES:
        return False
    if len(word) == 2:  # a lower-case base letter ("ms", "Ms", "pm"), or capitals ("TV", "PC")
        lower_base = word[1].isascii() and word[1].islower()
        return not (lower_base or (word.isascii() and word.isupper()))
    return not (word.isascii() and word.islower() and len(base) == 2)


@lru_cache(maxsize=1)
def _bases() -> dict[str, str]:
    """Every symbol a prefix goes on, and every prefixed one as written (look-alikes too),
    with the unit's first symbol ("mmol", "mol": mol; "mL", "l": L)."""
    return {short + s: symbols[0] for symbols, _, _ in BASES for s in symbols
            for short in ("", *PREFIXES)}


def one_base(top: str, bottom: str) -> bool:
    """`top` and `bottom` are symbols of one unit, prefixed or not ("mmol" and "mol", "mg" and
    "kg", "µL" and "L"): their quotient is a ratio, where units of one dimension are otherwise
    alternatives ("°C/°F")."""
    found = _bases().get(top)
    return found is not None and found == _bases().get(bottom)


@lru_cache(maxsize=1)
def _tables(exact: Callable[[str], Identity | None], spelled: Callable[[str], Identity | None]
            ) -> tuple[dict[str, Identity], dict[str, Identity]]:
    """Every prefixed symbol (as written) and spelled name (lower case) with its unit."""
    symbols: dict[str, Identity] = {}
    names: dict[str, Identity] = {}
    for base_symbols, base_names, fallback in BASES:
        base = next((f for f in map(spelled, base_names) if f is not None), None)
        dimension = base[0] if base is not None else fallback
        if not dimension:
            continue
        symbols.update({s: base or (dimension, base_symbols[0]) for s in base_symbols
                        if len(s) > 1 and not s.islower() and exact(s) is None})  # "Sv"
        for short, long in PREFIXES.items():
            written = [short + s for s in base_symbols]
            known = next((f for f in (*map(exact, written),
                                      *map(spelled, (long + n for n in base_names)))
                          if f is not None), None)
            unit = known or (dimension, ("µ" if short == "u" else short) + base_symbols[0])
            symbols.update({w: unit for w in written if _symbol_read(w, base_symbols[0])})
            names.update({long + n: unit for n in base_names})
    return symbols, names


def prefixed(word: str, exact: Callable[[str], Identity | None],
             spelled: Callable[[str], Identity | None], symbol: bool) -> Identity | None:
    """The unit `word` names as an SI prefix on a unit's symbol as written (`symbol`), or on
    its spelled name in any case, by the tables' own lookups `exact` (a name as written) and
    `spelled` (a spelled name in any case); None where it is not one (a dictionary lookup, the
    tables built once)."""
    symbols, names = _tables(exact, spelled)
    return symbols.get(word) if symbol else names.get(word.lower())


def written_as(unit: Identity, exact: Callable[[str], Identity | None],
               spelled: Callable[[str], Identity | None]) -> tuple[str, ...]:
    """Every symbol and spelled name `prefixed` reads as `unit` ("µF", "uF", "microfarads")."""
    symbols, names = _tables(exact, spelled)
    return tuple(w for table in (symbols, names) for w, of in table.items() if of == unit)
