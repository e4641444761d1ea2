"""A/B gates: compare a candidate run with a pinned baseline run and decide.

The continuity contract's rollout guardrails and the plan's promotion rule, each a named gate
with its threshold and its measured values: retrieval quality (hit@5, MRR) must not drop; the
clarifier rate may rise at most 10% relative; the wrong-action rate (continuity turns) and the
wrong-route rate (retrieval) at most 0.5% absolute; p95 latency at most 250 ms (every question
is timed twice; the candidate's p95 carries a bootstrap interval); retries with an unchanged
evidence fingerprint over 2% of retries halt the rollout. The holdout suites are gated apart
from the others; runs that did not ask the same questions the same way are refused.

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
from helix.core.hashing import canonical_json, digest
from helix.core.schemas import Frozen

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
BASELINES = "eval-baselines"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

Direction = Literal["higher", "lower"]


class GateSettings(Frozen):
    """The rollout guardrails of the continuity contract (and the plan's "promote only if gates
    and regression improve"), each a limit relative to the baseline."""

    quality_drop: float = 0.0  # hit@5 and MRR: absolute (no regression)
    wrong_action_rise: float = 0.005  # wrong-action (and wrong-route) rate: +0.5% absolute
    clarifier_rise: float = 0.10  # clarifier rate: +10% relative
    p95_rise_ms: float = 250.0  # p95 latency: +250 ms
    unchanged_retry_max: float = 0.02  # retries with an unchanged fingerprint: 2% -> halt
    bootstrap_rounds: int = 400  # for the p95's confidence interval (seeded: deterministic)


Effect = Literal["rollback", "halt"]


class Gate(Frozen):
    metric: str
    direction: Direction
    baseline: float | None
    candidate: float | None
    limit: float | None
    passed: bool
    rule: str = ""  # the contract's wording of the threshold
    effect: Effect = "rollback"  # what a failure means
    candidate_ci: tuple[float, float] | None = None  # 95% interval, latency only


class Decision(Frozen):
    decision: Literal["promote", "hold", "rollback", "halt"]
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


def _gate(metric: str, direction: Direction, base: Any, cand: Any, limit: float | None,
          rule: str, effect: Effect = "rollback",
          ci: tuple[float, float] | None = None) -> Gate:
    b, c = _num(base), _num(cand)
    if b is None or c is None or limit is None:
        passed = b is None or c is not None  # nothing to compare is not a failure
        return Gate(metric=metric, direction=direction, baseline=b, candidate=c, limit=limit,
                    passed=passed, rule=rule, effect=effect, candidate_ci=ci)
    passed = c >= limit - 1e-12 if direction == "higher" else c <= limit + 1e-12
    return Gate(metric=metric, direction=direction, baseline=b, candidate=c,
                limit=round(limit, 6), passed=passed, rule=rule, effect=effect, candidate_ci=ci)


def _times(run: RunResult, suites: Sequence[str]) -> list[float]:
    """Every timed run of every question (each question is asked twice)."""
    return [t for suite in run.suites if suite.name in suites for case in suite.cases
            if case.error is None for t in (case.time_ms, case.time_ms_repeat) if t > 0]


def p95_interval(times: Sequence[float], rounds: int) -> tuple[float, float] | None:
    """A 95% bootstrap interval of the p95 (seeded by the data: the same times, the same
    interval)."""
    import random

    from evals.metrics import percentile

    if len(times) < 2 or rounds <= 0:
        return None
    draw = random.Random(digest(canonical_json(sorted(times))))
    values = sorted(percentile([draw.choice(times) for _ in times], 95) for _ in range(rounds))
    return (round(values[int(0.025 * (rounds - 1))], 3),
            round(values[int(0.975 * (rounds - 1))], 3))


def _turns(run: RunResult) -> list[dict[str, Any]]:
    return [row for suite in run.suites if suite.kind == "continuity"
            for case in (suite.continuity or {}).get("cases", ())
            for row in case.get("per_turn", ())]


def _continuity(run: RunResult) -> dict[str, float | None]:
    """Wrong-action rate (turns whose lane, transition or target was not the expected one),
    the clarifier rate (turns answered with a clarifier) and the share of enrichment retries
    made with an unchanged evidence fingerprint."""
    turns = _turns(run)
    retries = sum(int(row.get("retries", 0)) for row in turns)
    unchanged = sum(int(row.get("unchanged_retries", 0)) for row in turns)
    moded = [row for row in turns if "answer_mode" in row]
    return {"wrong_action_rate": (round(sum(not row.get("passed") for row in turns)
                                        / len(turns), 4) if turns else None),
            "clarifier_rate": (round(sum(row["answer_mode"] == "clarify" for row in moded)
                                     / len(moded), 4) if moded else None),
            "unchanged_retry_rate": round(unchanged / retries, 4) if retries else 0.0}


def _turn_times(run: RunResult) -> list[float]:
    """Every timed continuity turn (a routed turn: routing, its lane, the store)."""
    return [float(row["time_ms"]) for row in _turns(run) if float(row.get("time_ms", 0)) > 0]


def comparable(baseline: RunResult, candidate: RunResult) -> None:
    """UserError unless the two runs asked the same questions the same way (the same suites
    and cases, embeddings on or off alike, the same index of every repository unless the
    candidate or the baseline changes an index setting): only their settings may differ."""
    def shape(run: RunResult) -> dict[str, list[str]]:
        return {suite.name: sorted(c.id for c in suite.cases)
                + sorted(str(c.get("id")) for c in (suite.continuity or {}).get("cases", ()))
                for suite in run.suites}

    base, cand = shape(baseline), shape(candidate)
    if set(base) != set(cand):
        raise UserError("the runs are not comparable: suites "
                        f"{', '.join(sorted(set(base) ^ set(cand)))} are in only one of them "
                        "(run the candidate on the baseline's suites)")
    differing = sorted(name for name in base if base[name] != cand[name])
    if differing:
        raise UserError(f"the runs are not comparable: suite(s) {', '.join(differing)} hold "
                        "other cases in each run")
    if baseline.no_embed != candidate.no_embed:
        raise UserError("the runs are not comparable: one ran with embeddings and one "
                        "without (--no-embed)")
    if not any(str(k).startswith("index.") for k in (*baseline.overrides, *candidate.overrides)):
        # neither run changes an index setting (a baseline may: the old default's
        # evals/configs/hand_ranker.toml reads no history): the same repositories must give the
        # same index (a repository edited between the runs is not the candidate's doing)
        moved = sorted(repo for repo, rev in baseline.index_revs.items()
                       if repo in candidate.index_revs and candidate.index_revs[repo] != rev)
        if moved:
            raise UserError(f"the runs are not comparable: the index of {', '.join(moved)} "
                            "changed between them (pin a new baseline)")


def _retrieval_gates(b: dict[str, Any], c: dict[str, Any], b_times: list[float],
                     c_times: list[float], s: GateSettings, cohort: str) -> list[Gate]:
    tag = f" ({cohort})" if cohort else ""

    def minus(key: str) -> float | None:
        value = _num(b.get(key))
        return None if value is None else value - s.quality_drop

    from evals.metrics import percentile

    b_p95 = percentile(b_times, 95) if b_times else None
    c_p95 = percentile(c_times, 95) if c_times else None
    clarifier = _num(b.get("clarifier_rate"))
    wrong_route = _num(b.get("wrong_route_rate"))
    return [
        _gate("hit@5" + tag, "higher", b.get("hit@5"), c.get("hit@5"), minus("hit@5"),
              "no drop"),
        _gate("mrr" + tag, "higher", b.get("mrr"), c.get("mrr"), minus("mrr"), "no drop"),
        _gate("clarifier_rate" + tag, "lower", clarifier, c.get("clarifier_rate"),
              None if clarifier is None else clarifier * (1 + s.clarifier_rise),
              f"rise <= {s.clarifier_rise:.0%} relative"),
        _gate("wrong_route_rate" + tag, "lower", wrong_route, c.get("wrong_route_rate"),
              None if wrong_route is None else wrong_route + s.wrong_action_rise,
              f"rise <= {s.wrong_action_rise:.1%} absolute"),
        _gate("p95_ms" + tag, "lower", b_p95, c_p95,
              None if b_p95 is None else b_p95 + s.p95_rise_ms,
              f"rise <= {s.p95_rise_ms:.0f} ms (every question timed twice)",
              ci=p95_interval(c_times, s.bootstrap_rounds)),
        *_answer_gates(b, c, s, tag),
    ]


def _answer_gates(b: dict[str, Any], c: dict[str, Any], s: GateSettings, tag: str
                  ) -> list[Gate]:
    """With an answerer on both sides (`helix eval --answerer MODEL`): the answer-level
    metrics gate too: the fallback and contract-violation rates may rise at most the
    wrong-action tolerance; the share of valid citations must not drop."""
    if not b.get("answered") or not c.get("answered"):
        return []
    gates = []
    for key in ("fallback_rate", "contract_violation_rate"):
        base = _num(b.get(key))
        gates.append(_gate(key + tag, "lower", base, c.get(key),
                           None if base is None else base + s.wrong_action_rise,
                           f"rise <= {s.wrong_action_rise:.1%} absolute"))
    validity = _num(b.get("citation_validity"))
    gates.append(_gate("citation_validity" + tag, "higher", validity,
                       c.get("citation_validity"),
                       None if validity is None else validity - s.quality_drop, "no drop"))
    return gates


def _continuity_rate_gates(baseline: RunResult, candidate: RunResult,
                          b: dict[str, float | None], c: dict[str, float | None],
                          s: GateSettings) -> list[Gate]:
    """The rollout guardrails on routed turns: clarifier rate (+10% relative) and p95
    latency (+250 ms), as for retrieval questions."""
    from evals.metrics import percentile

    b_times, c_times = _turn_times(baseline), _turn_times(candidate)
    b_p95 = percentile(b_times, 95) if b_times else None
    clarifier = b["clarifier_rate"]
    return [
        _gate("clarifier_rate (continuity)", "lower", clarifier, c["clarifier_rate"],
              None if clarifier is None else clarifier * (1 + s.clarifier_rise),
              f"rise <= {s.clarifier_rise:.0%} relative"),
        _gate("p95_ms (continuity)", "lower", b_p95,
              percentile(c_times, 95) if c_times else None,
              None if b_p95 is None else b_p95 + s.p95_rise_ms,
              f"rise <= {s.p95_rise_ms:.0f} ms (routed turns)",
              ci=p95_interval(c_times, s.bootstrap_rounds)),
    ]


def evaluate_gates(baseline: RunResult, candidate: RunResult,
                   settings: GateSettings | None = None) -> Decision:
    """Every contract gate, the holdout suites gated apart from the others; refused when the
    runs are not comparable. promote: every gate holds and retrieval quality or the
    continuity pass rate improved; hold: every gate holds, nothing improved (an identical
    candidate); rollback: a rollback gate failed; halt: only the unchanged-fingerprint gate."""
    s = settings or GateSettings()
    comparable(baseline, candidate)
    retrieval = sorted(x.name for x in baseline.suites if x.kind == "retrieval")
    continuity = sorted(x.name for x in baseline.suites if x.kind == "continuity")
    if not retrieval and not continuity:
        raise UserError("the runs hold no suite to gate")
    gates: list[Gate] = []
    improved: list[str] = []
    cohorts = (("", [n for n in retrieval if "holdout" not in n]),
               ("holdout", [n for n in retrieval if "holdout" in n]))
    for cohort, names in cohorts:
        if not names:
            continue
        b, c = pooled_totals(baseline, names), pooled_totals(candidate, names)
        gates += _retrieval_gates(b, c, _times(baseline, names), _times(candidate, names), s,
                                  cohort)
        if not cohort:
            improved += [m for m in ("hit@5", "mrr")
                         if (_num(c.get(m)) or 0.0) > (_num(b.get(m)) or 0.0)]
    if continuity:
        b_cont, c_cont = _continuity(baseline), _continuity(candidate)
        wrong = b_cont["wrong_action_rate"]
        gates.append(_gate("wrong_action_rate", "lower", wrong, c_cont["wrong_action_rate"],
                           None if wrong is None else wrong + s.wrong_action_rise,
                           f"rise <= {s.wrong_action_rise:.1%} absolute"))
        gates += _continuity_rate_gates(baseline, candidate, b_cont, c_cont, s)
        gates.append(_gate("unchanged_fingerprint_retry_rate", "lower",
                           b_cont["unchanged_retry_rate"], c_cont["unchanged_retry_rate"],
                           s.unchanged_retry_max, f"<= {s.unchanged_retry_max:.0%} of retries",
                           effect="halt"))
        if (c_cont["wrong_action_rate"] or 0.0) < (wrong or 0.0):
            improved.append("wrong_action_rate")
    failed = [g for g in gates if not g.passed]
    reasons = [f"gate {g.metric} failed: {g.candidate} vs limit {g.limit} ({g.rule})"
               for g in failed]
    decision: Literal["promote", "hold", "rollback", "halt"]
    if any(g.effect == "rollback" for g in failed):
        decision = "rollback"
    elif failed:
        decision = "halt"
    elif improved:
        decision = "promote"
        reasons.append("every gate holds; improved: " + ", ".join(improved))
    else:
        decision = "hold"
        reasons.append("every gate holds; nothing improved: keep the baseline")
    return Decision(decision=decision, reasons=tuple(reasons), gates=tuple(gates),
                    baseline_label=baseline.label, candidate_label=candidate.label,
                    suites=tuple(retrieval + continuity))


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
