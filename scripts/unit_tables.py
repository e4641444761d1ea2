"""What the unit-table generators share (scripts/units_from_pint.py, units_from_cldr.py): the
names the hand-written units table already holds, and a TOML string of a name."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "controller" / "units.toml"


def table_names(table: Path = TABLE, fold: bool = True) -> set[str]:
    """Every unit name of the units table (`controller/units.toml`), lower-cased (`fold`) or
    as written."""
    data = tomllib.loads(table.read_text(encoding="utf-8"))
    out: set[str] = set()
    for units in data["dimensions"].values():
        for entry in units:
            out.update(n.lower() if fold else n
                       for n in ([entry] if isinstance(entry, str) else entry))
    return out


def quote(name: str) -> str:
    """`name` as a TOML basic string."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def table_firsts(table: Path = TABLE) -> dict[str, str]:
    """Every unit name of the units table, lower-cased, with the first name of its unit
    ("centimeter" -> "cm", "inches" -> "inch")."""
    data = tomllib.loads(table.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for units in data["dimensions"].values():
        for entry in units:
            names = [entry] if isinstance(entry, str) else entry
            out.update((n.lower(), names[0]) for n in names)
    return out


def table_dimensions(table: Path = TABLE) -> set[str]:
    """The dimensions the units table names (its [dimensions] keys)."""
    return set(tomllib.loads(table.read_text(encoding="utf-8"))["dimensions"])


def table_dimension_of(table: Path = TABLE) -> dict[str, str]:
    """Every unit name of the units table, lower-cased, with its dimension ("radian" ->
    angle)."""
    data = tomllib.loads(table.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for dim, units in data["dimensions"].items():
        for entry in units:
            out.update((n.lower(), dim) for n in ([entry] if isinstance(entry, str) else entry))
    return out
