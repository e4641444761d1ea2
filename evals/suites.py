"""Eval suites: JSONL files of cases, one per line, validated by a frozen schema.

A case names a question, the repository it is asked about and what a good dry run returns:

    {"id": "nx-dijkstra-weight", "question": "...", "repo": "networkx",
     "expect": {"files": ["algorithms/shortest_paths/weighted.py"], "symbols": ["dijkstra_path"]},
     "notes": "weighted.py:148 def dijkstra_path(G, source, target, weight=\"weight\")"}

`repo` is "self" (this repository), "networkx" (the installed networkx package), "stdlib" (the
standard library without site-packages and tests), "package:<name>" (any installed Python
package, copied like networkx), "fixture:<name>"
(`data/fixtures/<name>`) or a path. Continuity suites (`data/evals/continuity/*.jsonl`) have their
own case format, owned by the session lane; `load_suite` leaves those cases as raw dicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from helix.core.envelope import Route, StopReason
from helix.core.errors import ConfigError, NotFoundError
from helix.core.schemas import Frozen

SuiteKind = Literal["retrieval", "continuity"]
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
EVALS_DIR = DATA_DIR / "evals"
FIXTURES_DIR = DATA_DIR / "fixtures"


class Expect(Frozen):
    files: tuple[str, ...] = ()  # repo-relative POSIX paths; any one is a hit
    symbols: tuple[str, ...] = ()  # bare names or qualnames; any one is a hit
    route: Route | None = None
    stop_reason: StopReason | None = None
    clarify: bool | None = None  # True: must clarify; False: must not
    answer_contains: tuple[str, ...] = ()  # case-insensitive substrings of the answer


class Case(Frozen):
    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    repo: str = Field(min_length=1)
    expect: Expect
    notes: str = ""


class Suite(Frozen):
    name: str
    path: str
    kind: SuiteKind
    cases: tuple[Case, ...] = ()
    raw_cases: tuple[dict[str, Any], ...] = ()  # continuity suites


def suite_path(name_or_path: str, evals_dir: Path = EVALS_DIR) -> Path:
    """`networkx` -> data/evals/networkx.jsonl; `continuity/foo` -> the continuity file; a path."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".jsonl" and candidate.is_file():
        return candidate
    for option in (evals_dir / f"{name_or_path}.jsonl",
                   evals_dir / "continuity" / f"{name_or_path}.jsonl"):
        if option.is_file():
            return option
    raise NotFoundError(f"unknown eval suite '{name_or_path}' (see {evals_dir})")


def suite_kind(path: Path) -> SuiteKind:
    return "continuity" if path.parent.name == "continuity" else "retrieval"


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of a JSONL suite; one-line errors that
    name the file and line."""
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise NotFoundError(f"cannot read {path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path.name}: not UTF-8 text: {exc.reason}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path.name}:{number}: not JSON: {exc.msg}") from None
        if not isinstance(row, dict):
            raise ConfigError(f"{path.name}:{number}: a case must be a JSON object")
        rows.append((number, row))
    return rows


def load_suite(name_or_path: str, evals_dir: Path = EVALS_DIR) -> Suite:
    """Read and validate a suite; ids must be unique. Errors name the file and line."""
    path = suite_path(name_or_path, evals_dir)
    kind = suite_kind(path)
    rows = read_jsonl(path)
    seen: set[str] = set()
    for number, row in rows:
        case_id = str(row.get("id", ""))
        if not case_id:
            raise ConfigError(f"{path.name}:{number}: case has no id")
        if case_id in seen:
            raise ConfigError(f"{path.name}:{number}: duplicate case id '{case_id}'")
        seen.add(case_id)
    name = path.stem if kind == "retrieval" else f"continuity/{path.stem}"
    if kind == "continuity":
        return Suite(name=name, path=str(path), kind=kind,
                     raw_cases=tuple(row for _, row in rows))
    cases: list[Case] = []
    for number, row in rows:
        try:
            cases.append(Case.model_validate(row))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"{path.name}:{number}: {where}: {first['msg']}") from None
    return Suite(name=name, path=str(path), kind=kind, cases=tuple(cases))


BENCH_SUFFIX = "_bench"  # benchmark question sets: run by name, never by default


def default_suites(evals_dir: Path = EVALS_DIR) -> list[str]:
    """What `helix eval` with no names runs: every suite except benchmark question sets."""
    return [n for n in list_suites(evals_dir) if not n.endswith(BENCH_SUFFIX)]


def list_suites(evals_dir: Path = EVALS_DIR) -> list[str]:
    """Every suite name, retrieval suites first, each group sorted by name."""
    names = sorted(p.stem for p in evals_dir.glob("*.jsonl"))
    names += sorted(f"continuity/{p.stem}" for p in (evals_dir / "continuity").glob("*.jsonl"))
    return names


def writer_order(name: str) -> tuple[int, int, str]:
    """A training writer's file in order: train_writer<n> by n, then any other name
    (train_writer_<helper>.jsonl, turns a helper wrote) by name."""
    tail = name.removeprefix("train_writer").removesuffix(".jsonl")
    return (0, int(tail), "") if tail.isdigit() else (1, 0, tail)
