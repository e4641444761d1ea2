"""Generate controller/units_library.toml from pint's unit registry (run once, by hand).

    PYTHONPATH=<a dir with pint> python scripts/units_from_pint.py

The units table (`controller/units.toml`) is written by hand from the sets; a quantity no set
used names units it does not know ("points", "picas", "angstroms"), which are then neither the
unit named instead nor a competing unit. This writes every unit of pint's default registry
(pint's own definitions, not ours) whose dimension is one of the table's, with its symbol,
aliases and plural, as a data file `controller.unit_names` reads after the table: a name the
table has (in any case) or a name that is an everyday English word (`COMMON_WORDS`) is left
out, so the table decides every name it holds. Pint is not a dependency of Helix: the file is
committed with its source recorded.
"""

from __future__ import annotations

import re
import sys

import pint  # type: ignore[import-not-found]
from unit_tables import ROOT, quote, table_names  # scripts/: the directory run from

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
}
# pint's bit and byte are dimensionless, as are its angles and counts: no dimension of pint's
# tells these apart, so the table's data, angle and ratio units stay the table's alone
# the typographic symbols where pint's is another unit's: "pt" is pint's pint, but a point in
# typesetting (PostScript, TeX, CSS), where lengths are written in it; "px" (pint's CSS pixel)
# is written for any pixel; "mil" (pint's mil_length, its "mil" an angle) a thousandth of an
# inch in drawings and boards: each given to the unit named
SYMBOLS = {"point": ["pt"], "pixel": ["px"], "thou": ["mil", "mils"]}
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
"""
COMMON_WORDS = frozenset(_COMMON_WORDS.split())
# SI prefixes written out on pint's SI units the table holds ("nanograms", "gigajoules"): a
# symbol of two letters only for these prefixes ("GJ", "nW"), the rest as names
PREFIXES = {"kilo": "k", "mega": "M", "giga": "G", "tera": "T", "milli": "m", "micro": "µ",
            "nano": "n", "pico": "p", "centi": "c", "deci": "d", "hecto": "h"}
SHORT_PREFIXES = frozenset("kMGmµn")
PREFIXED = ("meter", "gram", "second", "liter", "pascal", "hertz", "joule", "watt", "volt",
            "ampere", "newton", "calorie")
_WORD = re.compile(r"^[A-Za-zµÅå°]+$")


def main() -> int:
    registry = pint.UnitRegistry()

    def dimension(name: str) -> str | None:
        key = frozenset(dict(registry.get_dimensionality(name)).items())
        return next((d.strip() for d, ref in DIMENSIONS.items()
                     if frozenset(dict(registry.get_dimensionality(ref)).items()) == key), None)

    known = table_names()
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
                  if len(n) >= 3 and n.isalpha() and n.islower() and not n.endswith("s")]
        group: list[str] = []
        for n in (*spelt, *plural):
            given = n in SYMBOLS.get(name, [])
            if n in group or (not given and (
                    not n or not _WORD.match(n) or len(n) < 2 or n.lower() in known
                    or n.lower() in COMMON_WORDS or n in taken)):
                continue
            group.append(n)
        if any(n.lower() in known for n in spelt if n):  # the table has this unit: its own
            continue
        if group:
            taken.update(group)
            by_dim.setdefault(dim, []).append(group)
    for base in PREFIXED:
        dim = dimension(base)
        if dim is None:
            continue
        symbol = registry._units[base].symbol
        for prefix, short in PREFIXES.items():
            long = prefix + base
            spelt = [long, *([long.replace("meter", "metre").replace("liter", "litre")]
                            if "eter" in long or "iter" in long else [])]
            spelt += [n + "s" for n in spelt if not n.endswith(("s", "z"))]
            if short in SHORT_PREFIXES or len(symbol) > 1:
                spelt.insert(1, short + symbol)
            registry.get_dimensionality(long)  # pint knows the prefixed unit
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
        "# pint/default_en.txt, BSD-3-Clause): every unit whose dimension is one of "
        "units.toml's, with its",
        "# symbol, aliases and plural; names units.toml has and everyday English words are "
        "left out.",
        "# Do not edit: regenerate. controller/unit_names.py reads it after units.toml.",
        "[source]",
        f'library = "pint {pint.__version__}"',
        'file = "pint/default_en.txt"',
        "",
        "[dimensions]",
    ]
    for dim in sorted(by_dim):
        groups = sorted(by_dim[dim], key=lambda g: g[0])
        lines.append(f"{dim} = [")
        lines += ["    [" + ", ".join(quote(n) for n in g) + "]," for g in groups]
        lines.append("]")
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {sum(map(len, by_dim.values()))} units")
    return 0


if __name__ == "__main__":
    sys.exit(main())
