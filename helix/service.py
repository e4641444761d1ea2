"""`ask`: the one place the pieces meet, and the one entry point.

    ensure_index (refresh when files changed) -> read_question (redact, cut, respell, route:
    once) -> run_controller (deterministic evidence)
    -> run log row "pending" (question + evidence)            [dry run: finish here]
    -> synthesize (prompt stored in the row before the one LLM call) -> run log "done"/"fallback"

The CLI (`helix ask`), the servers (`helix.servers.workspace`), the session runner (continuity
turns) and the evals (`evals.runner`, `evals.history.run`, `evals.qa.run`) all call `ask`, so the
evals measure the path a user takes. `retrieve` is its first half (index, question, controller):
`helix.multi_repo` runs it per repository before its one synthesis.

With no network, the registered test models (`--model fake/echo`, `fake/say:TEXT`, ...:
`helix.synthesis.fake_llm`) run this whole path; the tests use them too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from controller.question import Question, read_question
from helix.core import notices
from helix.core.config import HelixConfig, IndexSettings
from helix.core.envelope import DenseState, Envelope
from helix.core.errors import RunLogUnwritableError
from helix.core.ports import LLM, PROGRESS_DONE, Clock, Embedder, SystemClock, Waiting
from helix.core.schemas import Frozen
from helix.runlog import RunLog
from helix.synthesis.answer import SynthesisResult, synthesize
from helix.synthesis.prompt import Prompt

if TYPE_CHECKING:
    import numpy as np


class AskResult(Frozen):
    envelope: Envelope
    run_id: str
    dry_run: bool
    index_refreshed: bool
    build: dict[str, Any]  # the index BuildReport, as JSON
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    redactions: dict[str, int] = Field(default_factory=dict)
    removed_citations: tuple[str, ...] = ()


def default_llm(config: HelixConfig) -> LLM | None:
    """A LiteLLMClient when a model is configured, else None (the deterministic answer)."""
    if not config.synthesis.model:
        return None
    from helix.synthesis.llm import LiteLLMClient

    return LiteLLMClient(max_chars=config.synthesis.max_answer_chars)


def cli_llm(config: HelixConfig, *, dry_run: bool) -> LLM | None:
    """The CLI's model client, with litellm's import started in the model helper, a process
    that imports it while the question is indexed and retrieved and that a later ask finds
    warm (`synthesis.model_helper = "process"`): started now, unless the `helix` process
    started it at its first moment (`helix.cli.early_helper`), which this adopts. None
    (`"off"`, a registered test model, a dry run): `default_llm` at the call, which imports
    litellm in process.
    (An import thread in the ask itself was measured too and is not offered: it hung the ask
    on the interpreter's import lock, benchmarks/ask_model_bench.py.)"""
    model = config.synthesis.model
    if dry_run or not model:
        return None
    from helix.synthesis.fake_llm import is_fake
    from helix.synthesis.llm import LiteLLMClient

    if is_fake(model) or config.synthesis.model_helper == "off":
        return None  # `default_llm` at the call
    from helix.core.config import helix_home
    from helix.synthesis.model_helper import ModelHelper

    helper = ModelHelper(helix_home(), idle_s=config.synthesis.helper_idle_s,
                         start_s=config.synthesis.helper_start_s,
                         grace_s=config.synthesis.helper_grace_s)
    try:
        helper.start()
    except OSError as exc:  # never required: the call is made in process
        notices.notify(f"the model helper could not be started ({exc}); calling the model "
                       "from this process")
        return None
    return LiteLLMClient(max_chars=config.synthesis.max_answer_chars, helper=helper)


def _has_embeddings(index: Any) -> bool:
    """The index has vectors to search (a lexical-first generation may have none yet)."""
    manifest = getattr(index, "manifest", None)
    state = getattr(index, "dense_state", None)
    return getattr(manifest, "embed_model_key", None) is not None and (
        not isinstance(state, dict) or state.get("vectors", 0) > 0)


class LazyQueryEmbedder:
    """`indexers.encoder.query_embedder`, built on first use: a question that runs no dense
    search (or an index without vectors) never loads the model."""

    def __init__(self, settings: IndexSettings) -> None:
        self._settings = settings
        self._inner: Embedder | None = None

    def _get(self) -> Embedder:
        if self._inner is None:
            from indexers.encoder import query_embedder

            self._inner = query_embedder(self._settings)
        return self._inner

    @property
    def model_key(self) -> str:
        return self._get().model_key

    @property
    def dim(self) -> int:
        return self._get().dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._get().embed(texts)


def contract_embedders() -> tuple[Embedder, Embedder]:
    """The answer contract's sentence encoder (absence claims by meaning): the shipped
    all-MiniLM-L6-v2, whatever model the index uses (the thresholds were chosen on it), loaded
    on first use; and the same in front of the embedding cache, for its exemplars."""
    from helix.core.paths import embedding_cache_dir
    from indexers.embed_cache import CachedEmbedder

    encoder = LazyQueryEmbedder(IndexSettings())
    return encoder, CachedEmbedder(encoder, embedding_cache_dir())


def open_runlog(tell: Callable[[str], None]) -> RunLog:
    """The run log; when its place cannot be written (a read-only $HELIX_HOME, a full disk),
    an in-memory one, so that the question is still answered, and the user told."""
    try:
        return RunLog()
    except RunLogUnwritableError as exc:
        from helix.core.config import helix_home

        home = helix_home()
        if not home.is_dir() or not os.access(home, os.R_OK | os.X_OK):
            raise  # no HELIX_HOME to read (a file in the way, no permission): nothing works
        tell(f"{exc}; this answer is not logged")
        import sqlite_utils

        return RunLog(sqlite_utils.Database(memory=True))


@dataclass(frozen=True)
class Prepared:
    """A fresh index of one repository and what asking it needs (`prepare`)."""

    config: HelixConfig
    embedder: LazyQueryEmbedder
    index: Any
    report: Any  # the index's BuildReport


def prepare(root: Path, config: HelixConfig,
            progress: Callable[[str, int, int], None] | None = None, *,
            index_dir: Path | None = None, quiet: bool = False) -> Prepared:
    """The repository's index, refreshed when files changed (as `ask` does before a question),
    with the config it was read under and the query embedder (loaded on first use)."""
    from indexers.build import declined_embeddings, ensure_index

    config = declined_embeddings(root, config, index_dir, quiet=quiet)
    lazy = LazyQueryEmbedder(config.index)
    index, report = ensure_index(root, config, index_dir=index_dir, query_embedder=lazy,
                                 progress=progress,
                                 dense="background" if config.index.background_dense
                                 else "wait")
    if progress is not None:
        progress(PROGRESS_DONE, 1, 1)
    return Prepared(config, lazy, index, report)


def ask(question: str | Question, *, root: Path, config: HelixConfig, dry_run: bool,
        llm: LLM | None = None, scope: str | None = None, sense: str | None = None,
        session_id: str | None = None, turn_number: int | None = None,
        clock: Clock | None = None, runlog: RunLog | None = None,
        sleep: Callable[[float], None] = time.sleep,
        trace: Callable[[str, dict[str, Any]], None] | None = None,
        notify: Callable[[str], None] | None = None,
        progress: Callable[[str, int, int], None] | None = None,
        waiting: Waiting | None = None,
        on_text: Callable[[str], None] | None = None,
        prepared: Prepared | None = None, ranker: Any = None) -> AskResult:
    """Answer one question about the repository at `root`; every run goes to the run log.
    The one entry point: the CLI, the servers, the sessions and the evals all call it.
    `question` is the raw text (read here, once: `controller.question.read_question`, with
    `scope` and `sense`) or a `Question` read before (a session turn's message).
    `notify` gets the synthesis' one-line notices (waiting for the model, a missing key);
    default: `helix.core.notices.notify` (`helix: ...` on standard error). `progress`
    (stage, done, total) follows the indexing, when there is any; `waiting` the wait for the
    model (`helix.core.ports.Waiting`: the CLI's live timer on a terminal); `on_text` the
    model's answer as it streams (`helix.cli.live_answer`); `ranker` what orders the evidence
    when `retrieval.ranker.mode` is "learned" (default: the model the config names).

    Lexical first (`index.background_dense`, the default): when many cards lack vectors the
    question is answered from what the index has (BM25, symbols, graph, the vectors already
    there) while a background worker embeds the rest; `envelope.dense_state` says which state
    answered. `index.background_dense = false` (`helix ask --wait`) waits for every vector.
    `prepared` (`prepare`): an index already made fresh for a batch of questions (`helix
    drift`), used as it is instead of checking the files again for each one."""
    clock = clock or SystemClock()
    started = clock.monotonic()
    envelope, prepared = retrieve(question, root=root, config=config, clock=clock,
                                  scope=scope, sense=sense, trace=trace, notify=notify,
                                  progress=progress, prepared=prepared,
                                  ranker=ranker)
    config = prepared.config  # embeddings declined when the index was built without them
    log = runlog or open_runlog(notify or notices.notify)
    try:
        return _logged(log, envelope, config=config, dry_run=dry_run, llm=llm,
                       session_id=session_id, turn_number=turn_number, clock=clock,
                       started=started, sleep=sleep, notify=notify, waiting=waiting,
                       on_text=on_text,
                       report=prepared.report)
    finally:
        if runlog is None:
            log.close()


def retrieve(question: str | Question, *, root: Path, config: HelixConfig, clock: Clock,
             scope: str | None = None, sense: str | None = None,
             trace: Callable[[str, dict[str, Any]], None] | None = None,
             notify: Callable[[str], None] | None = None,
             progress: Callable[[str, int, int], None] | None = None,
             quiet: bool = False, index_dir: Path | None = None,
             prepared: Prepared | None = None, ranker: Any = None
             ) -> tuple[Envelope, Prepared]:
    """What `ask` does before the run log and the model: the index made fresh (`prepare`:
    embeddings declined when the index was built without them) unless `prepared` is given,
    the question read once with the index's vocabulary, the controller's dry run.
    (envelope, the index as prepared: its config and build report)."""
    from controller.driver import run_controller

    if isinstance(question, Question) and (scope is not None or sense is not None):
        raise ValueError("a Question carries its own scope and sense")
    started = clock.monotonic()  # the index's time counts from here (none when prepared)
    if prepared is None:
        prepared = prepare(root, config, progress, index_dir=index_dir, quiet=quiet)
    config, lazy, index, report = (prepared.config, prepared.embedder, prepared.index,
                                   prepared.report)
    indexed = clock.monotonic()
    if not isinstance(question, Question):  # a pasted secret is searched, logged, sent masked
        question = read_question(question, config.retrieval, spelled_as=index.spelled_as,
                                 scope=scope, sense=sense, knows=index.knows)
    envelope = run_controller(question, index, config,
                              query_embedder=lazy if _has_embeddings(index) else None,
                              clock=clock, refreshed=report.refreshed, trace=trace,
                              ranker=ranker)
    if not config.index.mask_secrets:  # an index in clear (its scan's cost measured): masked
        from helix.synthesis.redact import redact_stored  # here, before a log, session or model

        envelope = redact_stored(envelope)
    controlled = clock.monotonic()
    stop = envelope.clock_stopped
    if stop is not None:
        (notify or notices.notify)(
            f"retrieval stopped by its clock safety stop ({stop.elapsed_ms:.0f} ms >= "
            f"retrieval.time_budget_ms {stop.budget_ms}): the evidence may differ from an "
            "unhurried run")
    timings = dict(envelope.timings_ms)
    timings.setdefault("index", round((indexed - started) * 1000, 3))
    timings.setdefault("controller", round((controlled - indexed) * 1000, 3))
    state = getattr(index, "dense_state", None)
    return envelope.model_copy(update={
        "timings_ms": timings, "dense_state": DenseState(**state) if state else None}), prepared


def _logged(log: RunLog, envelope: Envelope, *, config: HelixConfig, dry_run: bool,
            llm: LLM | None, session_id: str | None, turn_number: int | None,
            clock: Clock, started: float, sleep: Callable[[float], None],
            notify: Callable[[str], None] | None, waiting: Waiting | None,
            report: Any, on_text: Callable[[str], None] | None = None) -> AskResult:
    """The run's row in the run log, then (unless a dry run) the one synthesis call."""
    common: dict[str, Any] = {"dry_run": dry_run, "index_refreshed": report.refreshed,
                              "build": report.model_dump(mode="json")}
    if dry_run:  # the answer's citations, as the deterministic answer of a real run has them
        from helix.synthesis.answer import deterministic_citations
        from helix.synthesis.prompt import citation_refs

        created = clock.now()
        envelope = envelope.model_copy(update={"citations": deterministic_citations(
            envelope.answer, citation_refs(envelope.evidence))})
        envelope = _with_total(envelope, clock, started)
        run_id = log.record(envelope, created=created, updated=clock.now(),
                            session_id=session_id, turn_number=turn_number)
        return AskResult(envelope=envelope, run_id=run_id, **common)
    run_id = log.start(envelope, created=clock.now(), dry_run=dry_run, session_id=session_id,
                       turn_number=turn_number)
    common["run_id"] = run_id

    if llm is None:
        llm = default_llm(config)

    def store_prompt(prompt: Prompt) -> None:
        log.set_prompt(run_id, prompt.messages, prompt.hash, updated=clock.now())

    encoder, exemplars = contract_embedders()
    try:
        result: SynthesisResult = synthesize(envelope, llm=llm, settings=config.synthesis,
                                             clock=clock, before_call=store_prompt, sleep=sleep,
                                             notify=notify or notices.notify, waiting=waiting,
                                             on_text=on_text, embedder=encoder,
                                             exemplar_embedder=exemplars)
    except BaseException as exc:
        log.fail(run_id, f"{type(exc).__name__}: {exc}", updated=clock.now())
        raise
    envelope = _with_total(result.envelope, clock, started)
    log.finish(run_id, envelope, updated=clock.now(), prompt_tokens=result.prompt_tokens,
               completion_tokens=result.completion_tokens, attempts=result.attempts,
               redactions=result.redactions.counts, error=result.error)
    return AskResult(envelope=envelope, attempts=result.attempts,
                     prompt_tokens=result.prompt_tokens,
                     completion_tokens=result.completion_tokens,
                     redactions=result.redactions.counts,
                     removed_citations=result.removed_citations, **common)


def _with_total(envelope: Envelope, clock: Clock, started: float) -> Envelope:
    timings = dict(envelope.timings_ms)
    timings["total"] = round((clock.monotonic() - started) * 1000, 3)
    return envelope.model_copy(update={"timings_ms": timings})
