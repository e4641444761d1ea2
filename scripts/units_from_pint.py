"""Generate controller/units_library.toml from pint's unit registry (run once, by hand).

    PYTHONPATH=<a dir with pint> python scripts/units_from_pint.py

The units table (`controller/units.toml`) is written by hand from the sets; a quantity no set
used names units it does not know ("points", "picas", "angstroms"), which are then neither the
unit named instead nor a competing unit. This writes every unit of pint's default registry
(pint's own definitions, not ours), with its symbol, aliases and plural, as a data file
`controller.unit_names` reads after the table: its dimension the table's where pint's
dimensionality is one of the table's dimensions (`DIMENSIONS`, kept to those the table has),
else named by its structure ("length²", "current²·time⁴/length²·mass", "1/time"), a Gaussian
unit by the SI unit pint's context converts it to (gauss: tesla's), a dimensionless one by the
unit pint reduces it to (degree: radian, the table's angle). SI prefixes are written on the
table's prefixed bases and on pint's SI units (a symbol after a person's: "mSv", "µF", "uF",
"kΩ"), one-letter capital symbols ("H", "S") kept, as written. A name the table has (in any
case; a one-letter one as written) or an everyday English word (`COMMON_WORDS`) is left out,
so the table decides every name it holds. Pint is not a dependency of Helix: the file is
committed with its source recorded. `generate(table)` writes it for another table
(benchmarks/unit_ablation.py: a table with a quantity left out).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pint  # type: ignore[import-not-found]
from unit_tables import (  # scripts/: the directory run from
    ROOT,
    TABLE,
    quote,
    table_dimension_of,
    table_dimensions,
    table_firsts,
    table_names,
)

OUT = ROOT / "controller" / "units_library.toml"
# the table's dimensions, each by one of pint's units of it: a unit of the same
# dimensionality is of that dimension
DIMENSIONS = {
    "length": "meter", "mass": "gram", "time": "second", "temperature": "kelvin",
    "current": "ampere", "volume": "liter", "frequency": "hertz", "pressure": "pascal",
    "force": "newton", "energy": "joule", "power": "watt", "voltage": "volt",
    # a printer's dot and a screen's pixel measure a layout's lengths (CSS defines its px as
    # 1/96 inch)
    "length ": "pixel",
    # the table's light holds candela, lumen and lux: a luminance (pint's nit, lambert,
    # stilb: a luminous intensity per area, as its lux) is one too
    "light": "candela", "light ": "lux",
    # the table's dynamic viscosity (Pa·s, cP): pint's poise and reyn are one too, not a
    # dimension of their own named by structure (meaning36)
    "viscosity": "pascal * second",
}
# any other dimensionality is named by its structure in the table's words (`structural`):
# pint's area units "length²" as the table's ft², a printer's dots per inch "length/length" as
# the table's px per cm, so a quantity no set used has its units, and their rivals, too
BASES = {"[length]": "length", "[printing_unit]": "length", "[mass]": "mass",
         "[time]": "time", "[temperature]": "temperature", "[current]": "current",
         "[luminosity]": "light", "[substance]": "substance"}
POWERS = {1: "", 2: "²", 3: "³", 4: "⁴"}
# pint's bit and byte are dimensionless, as are its angles and counts: the unit pint reduces
# each to tells them apart (`rooted`: radian, bit); a pure number (percent, decibel) stays out
# the typographic symbols where pint's is another unit's: "pt" is pint's pint, but a point in
# typesetting (PostScript, TeX, CSS), where lengths are written in it; "px" (pint's CSS pixel)
# is written for any pixel; "mil" (pint's mil_length, its "mil" an angle) a thousandth of an
# inch in drawings and boards: each given to the unit named
# "dpi" (pint's dry pint) is written for dots per inch wherever a resolution is
SYMBOLS = {"point": ["pt"], "pixel": ["px"], "thou": ["mil", "mils"],
           "pixels_per_inch": ["dpi", "DPI"]}
# everyday English words among pint's names: as a word of a sentence they are seldom the unit
# ("at this point" is read; "a line", "a hand", "a span", "a second" are not)
_COMMON_WORDS = """
a at in if are am ha hand hands line lines span spans link links chain chains rod rods pole
poles perch perches stone stones cup cups barrel barrels bag bags drop drops shake shakes
sheet sheets cable cables glass ton tons slug slugs pint pints quart quarts gill gills peck
pecks bolt bolts bale bales cord cords fifth fifths shot shots jigger gallon gallons water
month months year years week weeks day days tex denier dram drams grain grains scruple
scruples planck atomic galileo unit units rem sun earth light durometer century centuries
decade decades fortnight fortnights eon eons gal gals pi tonne tonnes quarter quarters lambda
lambdas blob blobs pond ponds jig
th li rd pp bp fur au dr gr cp cc pk gi dpi spl cps rps sft smi perchs thous centurys
millennias slinchs statfarad statfarads statf toe slpm slm slms
gravity section sections particle particles molecule molecules den jute aberdeen gray grays
rads rems fps mps kps ecc psh rkm lmh ne nec st sv ta tt tj kat molec molecs gamma eu
count counts mas
"""
COMMON_WORDS = frozenset(_COMMON_WORDS.split())
# SI prefixes written out on pint's SI units the table holds ("nanograms", "gigajoules"): a
# symbol of two letters only for these prefixes ("GJ", "nW"), the rest as names
PREFIXES = {"kilo": "k", "mega": "M", "giga": "G", "tera": "T", "milli": "m", "micro": "µ",
            "nano": "n", "pico": "p", "centi": "c", "deci": "d", "hecto": "h"}
SHORT_PREFIXES = frozenset("kMGmµn")
# micro as ASCII writes it ("uT", "uSv"), beside "µ", on every prefixed unit with a symbol
ASCII_MICRO = "u"
PREFIXED = ("meter", "gram", "second", "liter", "pascal", "hertz", "joule", "watt", "volt",
            "ampere", "newton", "calorie")
_WORD = re.compile(r"^[A-Za-zµÅå°Ω]+$")
# pint's contexts that say which SI unit a Gaussian or electrostatic unit measures ("gauss":
# a tesla's quantity, its dimensionality in half powers of the bases)
CONTEXTS = ("Gaussian", "ESU")
# a one-letter symbol: a capital, or the ohm's sign ("T", "H", "Ω"), compared with the table's
# and the everyday words as written ("A" is pint's ampere, "a" a word); `controller.unit_names`
# reads one only where a unit stands (after a number or "in")
_ONE_LETTER = re.compile(r"^[A-ZΩ]$")
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")  # a TOML key written bare


def structural(dimensionality: dict[str, float]) -> str | None:
    """A dimensionality in the table's words, its numerator and denominator apart (never
    cancelled: dots per inch is "length/length"): {length: 2} -> "length²", {printing_unit: 1,
    length: -1} -> "length/length"; None for a base the table has no word for, a power it
    does not write, or none at all (pint's dimensionless units)."""
    top: list[str] = []
    bottom: list[str] = []
    for base, power in sorted(dimensionality.items()):
        word, mark = BASES.get(base), POWERS.get(int(abs(power)))
        if word is None or mark is None or power != int(power):
            return None
        (top if power > 0 else bottom).append(word + mark)
    if not top and not bottom:
        return None
    # a unit per a unit alone ("1/time": pint's becquerel where no dimension names it)
    return "/".join(part for part in ("·".join(top) or "1", "·".join(bottom)) if part)


def coherent(registry: object) -> list[str]:
    """Pint's SI units a prefix is written on: a base unit, or one of one base unit's worth
    of them (pint's factor 1: newton, tesla, sievert, katal, ohm), named in one word with a
    symbol of its own ("T", "Sv", "Ω")."""
    out = []
    for name in sorted(registry._units):  # type: ignore[attr-defined]
        unit = registry._units[name]  # type: ignore[attr-defined]
        if name != unit.name or not re.match(r"^[a-z]+$", name) or not unit.symbol \
                or unit.symbol == name or len(unit.symbol) > 3 or not _WORD.match(unit.symbol):
            continue
        try:
            factor, _ = registry.get_base_units(name)  # type: ignore[attr-defined]
            dimensional = bool(dict(registry.get_dimensionality(name)))  # type: ignore[attr-defined]
        except Exception:  # a definition pint cannot reduce: not ours
            continue
        if dimensional and (unit.is_base or factor == 1) and not name.startswith(
                tuple(PREFIXES)):  # "kilogram" is prefixed already
            out.append(name)
    return out


def rooted(registry: object, name: str, tables: dict[str, str]) -> str | None:
    """A dimensionless unit's dimension by the unit pint reduces it to (its root: "degree",
    "turn" -> radian; "byte" -> bit), the table's dimension of that root where the table names
    it ("angle", "data"), else the root's own name; None for a pure number (percent, decibel:
    pint's root "dimensionless", where no root tells a ratio from a level)."""
    _, root = registry.get_root_units(name)  # type: ignore[attr-defined]
    parts = dict(root._units)  # pint's UnitsContainer: {"radian": 1}
    if len(parts) != 1:
        return None
    (unit, power), = parts.items()
    mark = POWERS.get(int(power)) if power == int(power) and power > 0 else None
    if mark is None:
        return None
    return (tables.get(unit, unit) if power == 1 else None) or unit + mark


def equivalent(registry: object, name: str, units: list[str]) -> str | None:
    """The SI unit (of `units`) whose quantity a Gaussian or electrostatic unit measures, by
    pint's contexts ("gauss" -> tesla, "statvolt" -> volt); None if none converts, or more
    than one does (pint's maxwell converts to a coulomb and a weber alike)."""
    one = registry.Quantity(1, name)  # type: ignore[attr-defined]
    for context in CONTEXTS:
        found = []
        for unit in units:
            try:
                one.to(unit, context)
            except Exception:  # no conversion in this context: another quantity
                continue
            found.append(unit)
        if found:
            return found[0] if len(found) == 1 else None
    return None


def quotient(registry: object, definition: object, firsts: dict[str, str]) -> list[str]:
    """A unit pint defines as one unit per another, by the table's first names of the two
    ("pixel / inch" -> "pixel/inch"): `controller.unit_names.identity` reads "dots per inch"
    as the table's pixel per inch, this name says it is the unit "dpi" names."""
    parts = dict(getattr(definition, "reference", None) or {})
    if sorted(parts.values()) != [-1, 1]:
        return []
    top, bottom = (next(u for u, p in parts.items() if p == sign) for sign in (1, -1))
    found = []
    for part in (top, bottom):
        unit = registry._units[registry.get_name(part)]  # type: ignore[attr-defined]
        found.append(next((firsts[n.lower()] for n in (part, unit.name, unit.symbol,
                                                       *unit.aliases)
                           if n and n.lower() in firsts), None))
    return [f"{found[0]}/{found[1]}"] if None not in found else []


def generate(table: Path = TABLE) -> str:
    """The library's text for the units table at `table` (the committed one by default; a
    table with a dimension left out, `benchmarks/unit_ablation.py`, has that dimension's units
    named by their structure or pint's dimension instead)."""
    registry = pint.UnitRegistry()
    ours = table_dimensions(table)
    dimensions = {d: ref for d, ref in DIMENSIONS.items() if d.strip() in ours}
    si = coherent(registry)
    bases = {*PREFIXED, *si}

    def dimension(name: str) -> str | None:
        found = dict(registry.get_dimensionality(name))
        if not found:  # an angle, a quantity of data: by the unit pint reduces it to
            return rooted(registry, name, table_dimension_of(table))
        if any(power != int(power) for power in found.values()):  # a Gaussian unit
            same = equivalent(registry, name, si)
            found = dict(registry.get_dimensionality(same)) if same else found
        key = frozenset(found.items())
        return next((d.strip() for d, ref in dimensions.items()
                     if frozenset(dict(registry.get_dimensionality(ref)).items()) == key),
                    structural(found))

    known = table_names(table)
    written = table_names(table, fold=False)  # a one-letter name is matched as written
    firsts = table_firsts(table)
    taken: set[str] = set()
    by_dim: dict[str, list[list[str]]] = {}
    taken.update(n for names in SYMBOLS.values() for n in names)
    for name in sorted(registry._units):  # pint's definitions, by name
        definition = registry._units[name]
        if name != definition.name:
            continue
        try:
            dim = dimension(name)
        except Exception:  # a definition pint cannot reduce: not ours
            continue
        if dim is None:
            continue
        spelt = [definition.name, definition.symbol, *definition.aliases,
                 *SYMBOLS.get(name, [])]
        plural = [f"{n}s" for n in (definition.name, *definition.aliases)
                  if len(n) >= 3 and n.isalpha() and n.islower() and not n.endswith("s")
                  and n not in COMMON_WORDS]
        group: list[str] = []
        for n in (*spelt, *plural):
            given = n in SYMBOLS.get(name, [])
            # a lower-case letter only as the symbol of a unit prefixes are written on (pint's
            # gram "g", second "s", litre "l"; not its barn "b" or metric ton "t")
            one = n == definition.symbol and "constant" not in name and (
                bool(_ONE_LETTER.match(n)) or (len(n) == 1 and n.isalpha() and name in bases))
            if n in group or (not given and (
                    not n or not _WORD.match(n) or (len(n) < 2 and not one)
                    or (n in written if one else n.lower() in known)
                    or (n if one else n.lower()) in COMMON_WORDS or n in taken)):
                continue
            group.append(n)
        if any(n in written if len(n) == 1 else n.lower() in known
               for n in spelt if n):  # the table has this unit: its own
            continue
        if group:
            group += [n for n in quotient(registry, definition, firsts)
                      if n.lower() not in known and n not in taken]
            taken.update(group)
            firsts.update((n.lower(), group[0]) for n in group)
            by_dim.setdefault(dim, []).append(group)
    for base in [*PREFIXED, *(u for u in si if u not in PREFIXED)]:  # `bases`, in order
        dim = dimension(base)
        if dim is None:
            continue
        symbol = registry._units[base].symbol
        for prefix, short in PREFIXES.items():
            long = prefix + base
            spelt = [long, *([long.replace("meter", "metre").replace("liter", "litre")]
                            if "eter" in long or "iter" in long else [])]
            spelt += [n + "s" for n in spelt if not n.endswith(("s", "z", "x"))]
            # a symbol after a person (SI's capital: "mSv", "µF", "kΩ") on pint's other SI
            # units; a prefix on a lower-case one makes a word ("mcd", "klm", "mlx")
            if (short in SHORT_PREFIXES or len(symbol) > 1) and (
                    base in PREFIXED or symbol[0].isupper() or symbol[0] == "Ω"):
                spelt.insert(1, short + symbol)
                if prefix == "micro":
                    spelt.insert(2, ASCII_MICRO + symbol)
            try:
                registry.get_dimensionality(long)  # pint knows the prefixed unit
            except Exception:  # an offset unit pint does not prefix ("kilodegree_Celsius")
                continue
            group = [n for n in spelt if n.lower() not in known and n not in taken
                     and n.lower() not in COMMON_WORDS]
            defined = next((g for g in by_dim.get(dim, []) if long in g), None)
            if defined is not None:  # pint defines it itself: its other spellings join it
                defined += group
            elif group and long.lower() not in known:
                taken.update(group)
                by_dim.setdefault(dim, []).append(group)
    lines = [
        "# Generated by scripts/units_from_pint.py from pint's default unit registry "
        f"(pint {pint.__version__},",
        "# pint/default_en.txt, BSD-3-Clause): every unit, its dimension one of units.toml's or "
        "named by its",
        "# structure (\"length²\", \"length/length\"), pint's context or root unit, with its "
        "symbol, aliases,",
        "# plural and SI prefixes; names units.toml has and everyday English words are left "
        "out.",
        "# Do not edit: regenerate. controller/unit_names.py reads it after units.toml.",
        "[source]",
        f'library = "pint {pint.__version__}"',
        'file = "pint/default_en.txt"',
        "",
        "[dimensions]",
    ]
    for dim in sorted(by_dim):
        groups = sorted(by_dim[dim], key=lambda g: g[0])
        lines.append(f"{dim if _BARE.match(dim) else quote(dim)} = [")
        lines += ["    [" + ", ".join(quote(n) for n in g) + "]," for g in groups]
        lines.append("]")
    return "\n".join(lines) + "\n"


def main() -> int:
    text = generate()
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {text.count('    [')} units")
    return 0


if __name__ == "__main__":
    sys.exit(main())
