"""A/B gates: compare a candidate run with a pinned baseline run and decide promote or rollback.

The rollout guardrails of the specification, for repository Q&A: retrieval quality (hit@5, MRR)
must not drop, the clarifier rate, the wrong-route rate and p95 latency must not rise beyond
their tolerances; promote only when every gate holds AND quality improved, else roll back.

Baselines are pinned under `$HELIX_HOME/eval-baselines/<name>.json` and never overwritten;
named configurations (answerer / router variants) are TOML override files in `evals/configs/`.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from evals.metrics import CaseResult, aggregate
from evals.runner import RunResult
from helix.core.config import helix_home
from helix.core.errors import ConfigError, NotFoundError, UserError
from helix.core.hashing import canonical_json
from helix.core.schemas import Frozen

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
BASELINES = "eval-baselines"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

Direction = Literal["higher", "lower"]


class GateSettings(Frozen):
    """Tolerances: how much worse than the baseline a candidate may be on each gate."""

    hit5_drop: float = 0.0  # absolute
    mrr_drop: float = 0.0  # absolute
    clarifier_rate_rise: float = 0.02  # absolute
    wrong_route_rate_rise: float = 0.0  # absolute
    p95_rise: float = 0.25  # relative to the baseline's p95 (latency is noisy)
    p95_floor_ms: float = 50.0  # rises below this many ms are never a failure


class Gate(Frozen):
    metric: str
    direction: Direction
    baseline: float | None
    candidate: float | None
    limit: float | None
    passed: bool


class Decision(Frozen):
    decision: Literal["promote", "rollback"]
    reasons: tuple[str, ...]
    gates: tuple[Gate, ...]
    baseline_label: str
    candidate_label: str
    suites: tuple[str, ...]


def pooled_totals(run: RunResult, suites: Sequence[str]) -> dict[str, float | int | None]:
    cases: list[CaseResult] = []
    for suite in run.suites:
        if suite.name in suites:
            cases.extend(suite.cases)
    return aggregate(cases)


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _gate(metric: str, direction: Direction, base: Any, cand: Any, limit: float | None) -> Gate:
    b, c = _num(base), _num(cand)
    if b is None or c is None or limit is None:
        passed = b is None or c is not None  # nothing to compare is not a failure
        return Gate(metric=metric, direction=direction, baseline=b, candidate=c, limit=limit,
                    passed=passed)
    passed = c >= limit if direction == "higher" else c <= limit
    return Gate(metric=metric, direction=direction, baseline=b, candidate=c,
                limit=round(limit, 6), passed=passed)


def evaluate_gates(baseline: RunResult, candidate: RunResult,
                   settings: GateSettings | None = None) -> Decision:
    """Gates over the retrieval suites both runs contain (pooled case results)."""
    s = settings or GateSettings()
    shared = sorted({x.name for x in baseline.suites if x.kind == "retrieval"}
                    & {x.name for x in candidate.suites if x.kind == "retrieval"})
    if not shared:
        raise UserError("baseline and candidate share no retrieval suite to compare")
    b, c = pooled_totals(baseline, shared), pooled_totals(candidate, shared)

    def limit(key: str, delta: float, sign: int) -> float | None:
        value = _num(b.get(key))
        return None if value is None else value + sign * delta

    p95 = _num(b.get("p95_ms"))
    p95_limit = None if p95 is None else max(p95 * (1.0 + s.p95_rise), p95 + s.p95_floor_ms)
    gates = (
        _gate("hit@5", "higher", b.get("hit@5"), c.get("hit@5"), limit("hit@5", s.hit5_drop, -1)),
        _gate("mrr", "higher", b.get("mrr"), c.get("mrr"), limit("mrr", s.mrr_drop, -1)),
        _gate("clarifier_rate", "lower", b.get("clarifier_rate"), c.get("clarifier_rate"),
              limit("clarifier_rate", s.clarifier_rate_rise, 1)),
        _gate("wrong_route_rate", "lower", b.get("wrong_route_rate"), c.get("wrong_route_rate"),
              limit("wrong_route_rate", s.wrong_route_rate_rise, 1)),
        _gate("p95_ms", "lower", b.get("p95_ms"), c.get("p95_ms"), p95_limit),
    )
    reasons = [f"gate {g.metric} failed: {g.candidate} vs limit {g.limit}"
               for g in gates if not g.passed]
    improved = [m for m in ("hit@5", "mrr")
                if (_num(c.get(m)) or 0.0) > (_num(b.get(m)) or 0.0)]
    if not reasons and not improved:
        reasons.append("no quality improvement over the baseline (hit@5 and MRR not higher)")
    if not reasons:
        reasons.append("all gates hold; improved: " + ", ".join(improved))
    decision: Literal["promote", "rollback"] = (
        "promote" if all(g.passed for g in gates) and improved else "rollback")
    return Decision(decision=decision, reasons=tuple(reasons), gates=gates,
                    baseline_label=baseline.label, candidate_label=candidate.label,
                    suites=tuple(shared))


# ---- named configurations -----------------------------------------------------------------

def _flatten(data: Mapping[str, Any], origin: str) -> dict[str, Any]:
    flags: dict[str, Any] = {}
    for section, values in data.items():
        if not isinstance(values, Mapping):
            raise ConfigError(f"{origin}: '{section}' must be a table like [retrieval]")
        for key, value in values.items():
            flags[f"{section}.{key}"] = value
    return flags


def load_named_config(name_or_path: str,
                      configs_dir: Path = CONFIGS_DIR) -> tuple[str, dict[str, Any]]:
    """A configuration file (`[retrieval] w_dense = 0.0` ...) -> (label, dotted overrides)."""
    path = Path(name_or_path)
    if not path.is_file():
        path = configs_dir / f"{name_or_path}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in configs_dir.glob("*.toml")))
        raise NotFoundError(f"unknown eval configuration '{name_or_path}' (known: {known})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"cannot read {path}: it is nested too deeply") from None
    data.pop("label", None)
    return path.stem, _flatten(data, str(path))


# ---- pinned baselines ---------------------------------------------------------------------

def baseline_path(name: str, home: Path | None = None) -> Path:
    if not _NAME.match(name):
        raise UserError(f"bad baseline name '{name}' (letters, digits, '_', '-', '.')")
    return (home or helix_home()) / BASELINES / f"{name}.json"


def _exists_error(name: str, path: Path) -> UserError:
    return UserError(f"baseline '{name}' already exists ({path}); baselines are never "
                     "overwritten: pin under a new name")


def ensure_new_baseline(name: str, home: Path | None = None) -> Path:
    """The path a new baseline NAME would take; fails when that name is already pinned."""
    path = baseline_path(name, home)
    if path.exists():
        raise _exists_error(name, path)
    return path


def pin_baseline(name: str, run: RunResult, home: Path | None = None) -> Path:
    """Store a run as a named baseline. An existing baseline is never overwritten."""
    path = ensure_new_baseline(name, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(canonical_json(run) + "\n", encoding="utf-8")
    try:
        os.link(tmp, path)  # atomic and fails if the name exists: never overwrite
    except FileExistsError:
        raise _exists_error(name, path) from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


def load_baseline(name: str, home: Path | None = None) -> RunResult:
    path = baseline_path(name, home)
    if not path.is_file():
        raise NotFoundError(f"no pinned baseline '{name}' (pin one with --pin-baseline {name})")
    try:
        return RunResult.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"baseline '{name}' is unreadable: {exc}") from None


def list_baselines(home: Path | None = None) -> list[str]:
    return sorted(p.stem for p in ((home or helix_home()) / BASELINES).glob("*.json"))
