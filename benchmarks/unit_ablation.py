"""Leave-quantity-out ablation of the units tables (issue 32, meaning37): how a unit-line set
reads when nobody wrote its quantity into the hand-kept table.

    PYTHONPATH=<repo>:<repo>/evals:<dir with pint> python benchmarks/unit_ablation.py \
        [--sets unit_lines_fresh35.json ...] [--out FILE] [--note TEXT]

For each tune set (data/evals/meaning/unit_lines*.json), with the full tables, the dimension D
of each unit the set asks about (`controller.unit_names.identity(line["unit"])[0]`: "hPa" ->
pressure, "L/min" -> volume/time) is taken; then from a copy of controller/units.toml:
  - every [dimensions] key D is removed (all its units: the asked ones and their rivals);
  - every [compounds] `named` entry is removed whose unit is of D or whose parts are units of
    a removed dimension ("Mbps" with the data dimension), and every `quotients` entry naming D;
  - a D no [dimensions] key names (a compound, "volume/time", "length²", or a quotient's
    name, "acceleration") removes only the named compounds and quotients producing it: its
    parts are other quantities' units (a repository's "m" is read whatever its quantity).
The library (controller/units_library.toml) is then rebuilt from that table by
scripts/units_from_pint.py's `generate` (so pint's units of D come back as a structure or as
pint's dimension, whatever the generator does), and the set is measured as
benchmarks/unit_denials.py measures it (denials confirmed or given, statements not
confirmed, the unit named instead). Each set runs in its own process (the tables are cached).
Sets whose D the hand table never held (money: units_money.toml) are measured unchanged.
The summed figures predict a quantity nobody wrote for. Needs pint importable (the generator's;
pint is not a dependency of Helix). Writes benchmarks/results/unit_ablation.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MEANING = ROOT / "data" / "evals" / "meaning"
OUT = ROOT / "benchmarks" / "results" / "unit_ablation.json"
FIGURES = ("denials", "affirmations", "denials_confirmed_or_given", "affirmations_not_confirmed",
           "instead_named_right", "instead_expected")


def dumps_toml(data: dict[str, Any]) -> str:
    """A units table as TOML: tables of keys whose values are strings or arrays (a JSON array
    of strings is a TOML inline array)."""
    out: list[str] = []
    for section, values in data.items():
        out.append(f"[{section}]")
        out += [f"{json.dumps(key, ensure_ascii=False)} = {json.dumps(value, ensure_ascii=False)}"
                for key, value in values.items()]
        out.append("")
    return "\n".join(out)


def ablate(data: dict[str, Any], removed: set[str]) -> dict[str, Any]:
    """`data` (units.toml, parsed) without the dimensions `removed` and the compounds of them."""
    out = {section: dict(values) for section, values in data.items()}
    gone = {name for dim in removed for entry in data["dimensions"].get(dim, [])
            for name in ([entry] if isinstance(entry, str) else entry)}
    out["dimensions"] = {d: units for d, units in data["dimensions"].items() if d not in removed}
    compounds = dict(data["compounds"])
    compounds["quotients"] = [q for q in compounds.get("quotients", []) if q[1] not in removed]

    def kept(entry: list[str]) -> bool:
        top, _, bottom = entry[0].replace(" per ", "/").partition("/")
        return top not in gone and bottom not in gone

    compounds["named"] = [e for e in compounds["named"] if kept(e)]
    out["compounds"] = compounds
    return out


def removed_dimensions(lines: list[dict[str, Any]], table: dict[str, Any]
                       ) -> tuple[set[str], set[str]]:
    """The dimensions the set asks about, and those of them no [dimensions] key names (a
    compound, "volume/time", or a quotient's name, "acceleration")."""
    from controller.unit_names import identity

    asked = {found[0] for line in lines if (found := identity(line["unit"])) is not None}
    return asked, asked - set(table["dimensions"])


def drop_compounds(data: dict[str, Any], compound: set[str]) -> dict[str, Any]:
    """`data` without the named compounds and quotients that produce a `compound` dimension."""
    from controller.unit_names import identity

    out = {section: dict(values) for section, values in data.items()}
    compounds = dict(data["compounds"])
    compounds["named"] = [e for e in compounds["named"]
                          if (identity(e[0]) or ("", ""))[0] not in compound]
    compounds["quotients"] = [q for q in compounds.get("quotients", []) if q[1] not in compound]
    out["compounds"] = compounds
    return out


def _clear_caches() -> None:
    """Forget every table-derived cache of the loaded modules (the full tables read them)."""
    for name, module in list(sys.modules.items()):
        if name.startswith(("controller", "helix", "evals")):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def measure_one(path: Path, ablated: bool) -> dict[str, Any]:
    """One set measured with its quantity left out of the tables (in this process)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    table = tomllib.loads((ROOT / "controller" / "units.toml").read_text(encoding="utf-8"))
    asked, compound = removed_dimensions(data["lines"], table)
    removed = asked & set(table["dimensions"])
    if ablated:
        table = drop_compounds(ablate(table, removed), compound)
        work = Path(tempfile.mkdtemp(prefix="unit_ablation_"))
        (work / "units.toml").write_text(dumps_toml(table), encoding="utf-8")
        sys.path.insert(0, str(ROOT / "scripts"))
        from units_from_pint import generate

        (work / "units_library.toml").write_text(generate(work / "units.toml"),
                                                 encoding="utf-8")
        import controller.unit_names as unit_names
        import controller.unit_table as unit_table

        unit_table.UNITS_FILE = unit_names.UNITS_FILE = work / "units.toml"
        unit_table.LIBRARY_FILE = work / "units_library.toml"
        _clear_caches()
    from benchmarks.unit_denials import baseline_states, summarize
    from evals.unit_lines import judge
    from helix.core.config import HelixConfig

    threshold = HelixConfig().retrieval.coverage_threshold
    rows = [{**judge(line, data["quantity"], threshold),
             "baseline_states": baseline_states(line["text"], line["unit"])}
            for line in data["lines"]]
    summary = summarize(rows, data["lines"])
    return {"set": path.name, "asked": sorted(asked), "removed": sorted(removed),
            "compounds_removed": sorted(compound), **{k: summary[k] for k in FIGURES},
            "misses": summary["misses"]}


def run(path: Path, ablated: bool) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--one", str(path),
                           *(["--full"] if not ablated else [])],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"{path.name}: {done.stderr.strip().splitlines()[-1:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="*", default=None)
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--note", default="")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--full", action="store_true", help="measure without ablation")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(Path(args.one), not args.full)))
        return
    paths = [MEANING / s for s in args.sets] if args.sets else sorted(
        MEANING.glob("unit_lines*.json"))
    started = time.perf_counter()
    sets = [run(p, not args.full) for p in paths]
    total = {k: sum(s[k] for s in sets) for k in FIGURES}
    result = {"ablated": not args.full, "total": total, "sets": sets,
              "seconds": round(time.perf_counter() - started, 1),
              **({"note": args.note} if args.note else {})}
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False)
                              + "\n", encoding="utf-8")
    print(json.dumps(total))
    for s in sets:
        print(s["set"], s["removed"], s["compounds_removed"],
              *(s[k] for k in FIGURES[2:]))


if __name__ == "__main__":
    main()
