"""Run eval suites in dry-run mode: index each repository once, ask every question twice.

The scoring is pure (`evals.metrics`); this module does the I/O: resolving a case's `repo`
to a directory, indexing it once, asking each question as `helix ask --dry-run --wait` asks it
(`helix.service.ask`, the one entry point: the evals measure the path a user takes), timing
each call.
Continuity suites are handed to the session lane's scenario runner case by case.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field

from evals.baseline_bm25 import BM25Files
from evals.metrics import CaseResult, aggregate, error_result, score_case, stop_reasons
from evals.suites import FIXTURES_DIR, Case, Suite
from helix.core.config import HelixConfig, helix_home, load_config
from helix.core.envelope import Envelope
from helix.core.errors import BadPathError
from helix.core.paths import user_path
from helix.core.ports import SystemClock
from helix.core.schemas import Frozen

SELF_ROOT = Path(__file__).resolve().parent.parent
EVAL_REPOS = "eval-repos"
_COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")

AskFn = Callable[[str], Envelope]  # one dry run of a question against a prepared repository
Timer = Callable[[], float]  # seconds, monotonic


class SuiteResult(Frozen):
    name: str
    kind: str
    cases: tuple[CaseResult, ...] = ()
    totals: dict[str, float | int | None] = Field(default_factory=dict)
    stop_reasons: dict[str, int] = Field(default_factory=dict)
    bm25_files: dict[str, Any] | None = None  # the plain BM25-over-files baseline, same cases
    continuity: dict[str, Any] | None = None  # per-case and per-transition-class results


class RunResult(Frozen):
    label: str  # the configuration's name ("default", a candidate file's stem ...)
    overrides: dict[str, Any]
    config_hash: str
    no_embed: bool
    suites: tuple[SuiteResult, ...]
    # each repository's index revision as the run read it (retrieval suites)
    index_revs: dict[str, str] = Field(default_factory=dict)


# ---- repositories -------------------------------------------------------------------------

def networkx_source() -> Path:
    import networkx

    return Path(networkx.__file__).resolve().parent


def stdlib_source() -> Path:
    import sysconfig

    return Path(sysconfig.get_paths()["stdlib"]).resolve()


def _materialize(name: str, source: Path, stamp: str, ignore: Callable[..., Any],
                 home: Path | None) -> Path:
    """Copy `source` to $HELIX_HOME/eval-repos/<name> once (again only when `stamp` changes)."""
    target = (home or helix_home()) / EVAL_REPOS / name
    marker = target / ".helix-eval-source"
    if marker.is_file() and marker.read_text(encoding="utf-8") == stamp:
        return target
    tmp = target.with_name(f"{name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(source, tmp, ignore=ignore)
    (tmp / ".helix-eval-source").write_text(stamp, encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    return target


def materialize_networkx(home: Path | None = None) -> Path:
    """The installed networkx package, copied once: real code no one here wrote."""
    import networkx

    source = networkx_source()
    return _materialize("networkx", source, f"networkx {networkx.__version__} {source}",
                        _COPY_IGNORE, home)


def materialize_stdlib(home: Path | None = None) -> Path:
    """The standard library minus site-packages and the test suites, copied once."""
    import sys

    source = stdlib_source()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "site-packages", "test", "tests",
                                    "idle_test")
    return _materialize("stdlib", source, f"stdlib {sys.version.split()[0]} {source}", ignore,
                        home)


def materialize_package(name: str, home: Path | None = None) -> Path:
    """An installed Python package (`package:click`), copied once like networkx: its
    directory, found without importing it, stamped with its installed version."""
    import importlib.util
    from importlib import metadata

    spec = importlib.util.find_spec(name) if name.isidentifier() else None
    if spec is None or not spec.submodule_search_locations:
        raise BadPathError(f"eval repository not found: package:{name} (not an installed package)")
    source = Path(next(iter(spec.submodule_search_locations))).resolve()
    try:
        version = metadata.version(name)
    except metadata.PackageNotFoundError:
        version = "unknown"
    return _materialize(f"package-{name}", source, f"{name} {version} {source}", _COPY_IGNORE,
                        home)


def resolve_repo(spec: str, *, fixtures_dir: Path = FIXTURES_DIR) -> Path:
    """`self`, `networkx`, `stdlib`, `package:<name>`, `fixture:<name>` or a directory path
    -> a directory."""
    if spec == "self":
        return SELF_ROOT
    if spec == "networkx":
        return materialize_networkx()
    if spec.startswith("package:"):
        return materialize_package(spec.split(":", 1)[1])
    if spec == "stdlib":
        return materialize_stdlib()
    path = fixtures_dir / spec.split(":", 1)[1] if spec.startswith("fixture:") else user_path(spec)
    if not path.is_dir():
        raise BadPathError(f"eval repository not found: {spec} ({path})")
    return path.resolve()


# ---- configuration ------------------------------------------------------------------------

def eval_config(root: Path, overrides: Mapping[str, Any], *, no_embed: bool) -> HelixConfig:
    """The configuration a case is asked with: every vector embedded before the answer (the
    path of `helix ask --wait`, so a run never depends on how far a background worker got),
    then the run's overrides."""
    flags = {"index.background_dense": False, **overrides}
    if no_embed:
        flags["index.embed_enabled"] = False
    return load_config(root, flags=flags)


def has_embeddings(report: Any) -> bool:
    """Whether the built index holds any chunk vectors (so a query embedder is worth loading)."""
    embeddings = getattr(report, "embeddings", None) or {}
    return int(embeddings.get("total", 0)) > 0


def quiet_runlog() -> Any:
    """An in-memory run log: an eval's questions are not the user's runs."""
    import sqlite_utils

    from helix.runlog import RunLog

    return RunLog(sqlite_utils.Database(memory=True))


def dry_run(question: str, root: Path, config: HelixConfig, runlog: Any) -> Envelope:
    """`question` asked as `helix ask --dry-run --wait` asks it: through `helix.service.ask`,
    the one entry point (index made fresh, question read once: redacted, cut, respelled;
    controller; the run's row), so an eval measures the path a user takes."""
    from helix.service import ask

    return ask(question, root=root, config=config, dry_run=True, clock=SystemClock(),
               runlog=runlog, notify=lambda message: None).envelope


class PreparedRepo:
    """One repository indexed (as `helix index` does, before the first question is timed) and
    the dry-run function over it (each question refreshes the index when files changed)."""

    def __init__(self, root: Path, overrides: Mapping[str, Any], *, no_embed: bool) -> None:
        from indexers.build import ensure_index

        self.root = root
        self.config = eval_config(root, overrides, no_embed=no_embed)
        self.runlog = quiet_runlog()
        index, _ = ensure_index(root, self.config)
        self.index_rev: str = index.index_rev  # as the last question read it

    def ask(self, question: str) -> Envelope:
        envelope = dry_run(question, self.root, self.config, self.runlog)
        self.index_rev = envelope.index_rev
        return envelope

    def answer(self, envelope: Envelope) -> tuple[Envelope, int]:
        """The answer of the configured model (`synthesis.model`) over `envelope`: the one
        synthesis call under the contract, as `helix ask` makes it; (envelope, citations the
        contract removed)."""
        from helix.service import contract_embedders
        from helix.synthesis.answer import synthesize
        from helix.synthesis.llm import LiteLLMClient

        encoder, exemplars = contract_embedders()
        client = LiteLLMClient(max_chars=self.config.synthesis.max_answer_chars)
        done = synthesize(envelope, llm=client, settings=self.config.synthesis,
                          clock=SystemClock(), sleep=lambda s: None, notify=lambda m: None,
                          embedder=encoder, exemplar_embedder=exemplars)
        return done.envelope, len(done.removed_citations)


# ---- running ------------------------------------------------------------------------------

AnswerFn = Callable[[Envelope], tuple[Envelope, int]]


def run_cases(suite_name: str, cases: Sequence[Case], ask_for: Callable[[str], AskFn],
              timer: Timer = time.perf_counter,
              answer_for: Callable[[str], AnswerFn] | None = None) -> list[CaseResult]:
    """Ask each case's question twice (hash stability) and score it; errors become failures.
    With `answer_for`, the first run is also answered by the model (answer-level metrics)."""
    results: list[CaseResult] = []
    for case in cases:
        try:
            ask = ask_for(case.repo)
            start = timer()
            first = ask(case.question)
            middle = timer()
            second = ask(case.question)
            end = timer()
        except Exception as exc:  # an eval reports a crashing case and goes on to the next

            results.append(error_result(case, suite_name, f"{type(exc).__name__}: {exc}"))
            continue
        scored = score_case(case, suite_name, first, second,
                            time_ms=(middle - start) * 1000.0,
                            time_ms_repeat=(end - middle) * 1000.0)
        if answer_for is not None:
            try:
                answered, removed = answer_for(case.repo)(first)
            except Exception as exc:  # an unknown model, a bug: the case says so
                scored = scored.model_copy(update={"error": f"{type(exc).__name__}: {exc}"})
            else:
                scored = scored.model_copy(update={
                    "answer_mode": answered.answer_mode,
                    "fallback_reason": answered.fallback_reason,
                    "citations_valid": len(answered.citations),
                    "citations_removed": removed})
        results.append(scored)
    return results


def bm25_files_report(cases: Sequence[Case], root_for: Callable[[str], Path]) -> dict[str, Any]:
    """The plain BM25-over-whole-files baseline on the same cases (file expectations only)."""
    baselines: dict[str, BM25Files] = {}
    ranks: dict[str, int | None] = {}
    for case in cases:
        if not case.expect.files:
            continue
        if case.repo not in baselines:
            baselines[case.repo] = BM25Files.build(root_for(case.repo))
        ranks[case.id] = baselines[case.repo].file_rank(case.question, case.expect.files)
    return BM25Files.summarize(ranks)


def declared_classes(case: Mapping[str, Any]) -> list[str]:
    """The transition classes a scenario expects (its turns' `expect.transition`), in order."""
    named = list(case.get("transition_classes") or [])
    for turn in case.get("turns") or []:
        expect = turn.get("expect") if isinstance(turn, Mapping) else None
        if isinstance(expect, Mapping) and expect.get("transition"):
            named.append(str(expect["transition"]))
    return sorted(set(named), key=class_order)


def continuity_report(raw_cases: Sequence[dict[str, Any]],
                      run_case: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """Run each scenario; pass rates per case and per transition class (T1..T10)."""
    rows: list[dict[str, Any]] = []
    by_class: dict[str, list[bool]] = {}
    for case in raw_cases:
        try:
            outcome = run_case(case)
        except Exception as exc:  # a crashing scenario is a failed case, not a failed run

            outcome = {"id": case.get("id", "?"), "passed": False, "per_turn": [],
                       "transition_classes": declared_classes(case),
                       "error": f"{type(exc).__name__}: {exc}"}
        passed = bool(outcome.get("passed"))
        classes = outcome.get("transition_classes") or []
        if isinstance(classes, Mapping):
            for name, ok in classes.items():
                by_class.setdefault(str(name), []).append(bool(ok))
        else:
            for name in classes:
                by_class.setdefault(str(name), []).append(passed)
        rows.append({"id": outcome.get("id", case.get("id")), "passed": passed,
                     "transition_classes": classes, "error": outcome.get("error"),
                     "per_turn": outcome.get("per_turn", [])})
    rates = {name: {"cases": len(flags), "passed": sum(flags),
                    "pass_rate": round(sum(flags) / len(flags), 4)}
             for name, flags in sorted(by_class.items(), key=lambda kv: class_order(kv[0]))}
    total = len(rows)
    return {"cases": rows, "by_class": rates,
            "pass_rate": round(sum(r["passed"] for r in rows) / total, 4) if total else None}


def class_order(name: str) -> tuple[int, str]:
    """T1 < T2 < ... < T10 (numeric), then anything else by name."""
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else 10**6, name)


# a retrieval suite's cases in, their results out in order: Ray tasks over chunks of them
# (`evals.cluster`); None: this process, one after another
CaseFanOut = Callable[[str, Sequence[Case]], list[CaseResult]]


class Runner:
    """Runs suites with one configuration; repositories are resolved and indexed once."""

    def __init__(self, overrides: Mapping[str, Any] | None = None, *, no_embed: bool = False,
                 label: str = "default", bm25_files: bool = True,
                 answerer: str | None = None, fan_out: CaseFanOut | None = None) -> None:
        self.fan_out = fan_out
        self.overrides = dict(overrides or {})
        self.answerer = answerer
        if answerer is not None:
            self.overrides["synthesis.model"] = answerer
        self.no_embed = no_embed
        self.label = label
        self.bm25_files = bm25_files
        self._roots: dict[str, Path] = {}
        self._prepared: dict[Path, PreparedRepo] = {}

    def root(self, spec: str) -> Path:
        if spec not in self._roots:
            self._roots[spec] = resolve_repo(spec)
        return self._roots[spec]

    def prepared(self, spec: str) -> PreparedRepo:
        root = self.root(spec)
        if root not in self._prepared:
            self._prepared[root] = PreparedRepo(root, self.overrides, no_embed=self.no_embed)
        return self._prepared[root]

    def ask_for(self, spec: str) -> AskFn:
        return self.prepared(spec).ask

    def run_suite(self, suite: Suite) -> SuiteResult:
        if suite.kind == "continuity":
            return SuiteResult(name=suite.name, kind=suite.kind,
                               continuity=continuity_report(suite.raw_cases, self._run_scenario))
        if self.fan_out is not None:
            for spec in dict.fromkeys(case.repo for case in suite.cases):
                with contextlib.suppress(Exception):  # a case that fails says so, in its task
                    self.prepared(spec)  # indexed once, here, before the tasks read it
            results = self.fan_out(suite.name, suite.cases)
        else:
            results = run_cases(suite.name, suite.cases, self.ask_for,
                                answer_for=(lambda spec: self.prepared(spec).answer)
                                if self.answerer is not None else None)
        baseline = bm25_files_report(suite.cases, self.root) if self.bm25_files else None
        return SuiteResult(name=suite.name, kind=suite.kind, cases=tuple(results),
                           totals=aggregate(results), stop_reasons=stop_reasons(results),
                           bm25_files=baseline)

    def _run_scenario(self, case: dict[str, Any]) -> dict[str, Any]:
        from evals.scenarios import run_case

        root = self.root(str(case.get("repo", "fixture:continuity_repo")))
        config = eval_config(root, self.overrides, no_embed=self.no_embed)
        return dict(run_case(case, root=root, config=config))

    def run(self, suites: Sequence[Suite]) -> RunResult:
        flags = dict(self.overrides)
        if self.no_embed:
            flags["index.embed_enabled"] = False
        config = load_config(None, flags=flags)
        from helix.session.warm import warm_reading

        with warm_reading():  # a router that reads many turns: the warm encoder
            results = tuple(self.run_suite(s) for s in suites)
        return RunResult(label=self.label, overrides=self.overrides,
                         config_hash=config.evidence_hash, no_embed=self.no_embed,
                         suites=results,
                         index_revs={str(root): prepared.index_rev
                                     for root, prepared in sorted(self._prepared.items())})
