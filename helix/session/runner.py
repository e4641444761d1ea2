"""Run one conversational turn: route it, run its lane, apply its transition, store it.

    run_turn(session_name, text, root=..., config=..., reply_to=None, llm=None, clock=...)

The router (pure) picks lane and transition class; the lane (pure: a step that yields requests,
`controller.continuity.lanes`) runs under the driver (`helix.session.lane_driver.LanePorts`),
which answers its requests through the ports: the controller through `helix.service.ask` for root
questions, the index graph for object follow-ups, the repository for opening a span, the lane
models, `helix drift` of an earlier turn for a recap asking what changed since; the transition
registry checks the state change; the session store writes turn, state and events in one
transaction: the only other I/O of a turn.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.continuity.events import ContinuityEvent
from controller.continuity.lanes import LaneOutcome, TurnContext, execute
from controller.continuity.meaning import Reader
from controller.continuity.reread import reread_nothing_found, reread_plan
from controller.continuity.settle import before_lane, readmit_anchor_list, settle_turn
from controller.continuity.state import ContinuityState
from controller.continuity.turn import TurnResult, summaries
from controller.continuity.turn_plan import TurnPlan
from controller.question import Question, read_question
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope
from helix.core.errors import UserError
from helix.core.ports import LLM, Clock, SystemClock
from helix.session.lane_driver import (
    Asker,
    DriftCheck,
    GraphProvider,
    LanePorts,
    client,
    lane_models,
)
from helix.session.reader import prepare_options, session_reader
from helix.session.store import (
    SCHEMAS,
    commit_turn,
    load_turns,
    open_session,
    turn_lock,
    validate_name,
)
from helix.session.warm import route_turn  # the router's, sure of its route warm
from helix.store.backend import State, as_backend, open_backend

MS_PER_S = 1000


def default_asker(root: Path, config: HelixConfig, *, llm: LLM | None, dry_run: bool,
                  session_id: str, turn_number: int, clock: Clock,
                  on_text: Callable[[str], None] | None = None,
                  turn: Question | None = None) -> Asker:
    """The controller (and synthesis) through the service entry point; logged in the run log
    with the session id and turn number. `on_text` receives the model's answer as it streams.
    A lane that asks the turn's own message (no scope, no sense) hands on `turn`, the message
    as the runner read it: the question is read once."""

    def ask(question: str, *, scope: str | None, sense: str | None) -> Envelope:
        from helix.service import ask as service_ask

        asked: str | Question = question
        if turn is not None and question == turn.asked and scope is None and sense is None:
            asked = turn
        return service_ask(asked, root=root, config=config, dry_run=dry_run, llm=llm,
                           scope=scope, sense=sense, session_id=session_id,
                           turn_number=turn_number, clock=clock, on_text=on_text).envelope

    return ask


def default_graph(root: Path, config: HelixConfig) -> GraphProvider:
    def graph() -> Any:
        from indexers.build import ensure_index

        # the graph needs no vectors: never wait for a background dense worker (issue 11)
        return ensure_index(root, config, dense="background")[0].graph

    return graph


def default_drift(root: Path, config: HelixConfig) -> DriftCheck:
    def check(envelope: Envelope) -> Any:
        from helix.drift.run import question_drift

        return question_drift(root, config, envelope)

    return check


def run_turn(session_name: str, text: str, *, root: Path, config: HelixConfig,
             reply_to: int | None = None, llm: LLM | None = None, clock: Clock | None = None,
             dry_run: bool = False, db: State | None = None,
             asker: Asker | None = None, graph: GraphProvider | None = None,
             on_text: Callable[[str], None] | None = None,
             reader: Reader | None = None) -> TurnResult:
    """Route and run one turn of session `session_name` over repository `root`; store it.
    `on_text` receives the model's answer of a root question as the model writes it; `reader`
    reads what the message means (default: `helix.session.reader.session_reader`, the
    packaged sentence encoder; none with `continuity.router = "rules"`)."""
    if not text.strip():
        raise UserError("empty message")
    # read once: a pasted secret is stored, routed and sent masked; a long paste is routed by
    # what locates it (controller.question; the index's vocabulary is consulted when a root
    # question reaches it, helix.service.ask)
    question = read_question(text, config.retrieval)
    clock = clock or SystemClock()
    root = Path(root).resolve()
    if llm is None and not dry_run:
        llm = client(config)  # LiteLLMClient when any model is configured (redacts every call)
    backend = as_backend(db, SCHEMAS) if db is not None else open_backend(SCHEMAS)
    try:
        backend.ensure(SCHEMAS)
        # a shared database: one turn of a session at a time across replicas, each on the
        # state the one before committed (SQLite: commit_turn's turn-count guard, as before)
        with turn_lock(backend, validate_name(session_name)):
            return _locked_turn(backend, session_name, question, root=root, config=config,
                                reply_to=reply_to, llm=llm, clock=clock, dry_run=dry_run,
                                asker=asker, graph=graph, on_text=on_text, reader=reader)
    finally:
        if db is None:  # the store this turn opened is closed with it (a server runs many)
            backend.close()


def _locked_turn(db: State, session_name: str, question: Question, *, root: Path,
                 config: HelixConfig, reply_to: int | None, llm: LLM | None, clock: Clock,
                 dry_run: bool, asker: Asker | None, graph: GraphProvider | None,
                 on_text: Callable[[str], None] | None,
                 reader: Reader | None = None) -> TurnResult:
    text = question.asked  # the message as read once (masked, cut)
    record = open_session(db, session_name, str(root), now=clock.now())
    turns = load_turns(db, record.id)
    state = record.state
    now_ms = int(clock.now() * MS_PER_S)
    turn_id = state.turn_count + 1
    readmitted: list[ContinuityEvent] = []
    if reply_to is not None:
        state, readmitted = readmit_anchor_list(state, turns, reply_to)
    default_reader = reader is None
    if reader is None:
        reader = session_reader(config, root)
    plan = route_turn(state, text, reply_to, config.continuity, turns=summaries(turns),
                      now_ms=now_ms, reader=reader)
    models = lane_models(config, llm)
    ports = LanePorts(
        root=root, models=models,
        asker=asker or default_asker(root, config, llm=llm, dry_run=dry_run,
                                     session_id=record.id, turn_number=turn_id, clock=clock,
                                     on_text=on_text, turn=question),
        graph=graph or default_graph(root, config), drift=default_drift(root, config),
        max_file_bytes=config.index.max_file_bytes)

    def run(plan: TurnPlan) -> tuple[TurnPlan, ContinuityState, list[ContinuityEvent],
                                    LaneOutcome]:
        base, pre = before_lane(state, plan, readmitted)
        ctx = TurnContext(
            plan=plan, state=base, turns=tuple(turns), turn_id=turn_id, now_ms=now_ms,
            repo_name=root.name, config=config, session_id=record.id,
            lane_models=models.names())
        return plan, base, pre, ports.run(execute(ctx))

    plan, base, pre, out = run(plan)
    again = reread_nothing_found(plan, out.transition, out.reasons)
    if again is not None:  # searched for its own words, found nothing: its follow-up reading
        second = route_turn(state, text, reply_to, config.continuity, turns=summaries(turns),
                            now_ms=now_ms, reader=lambda _features: again)
        if second.intent != "root_question" and second.transition != "T10":
            plan, base, pre, out = run(reread_plan(second, again, text))
    turn, new_state = settle_turn(
        state, base, plan, out, pre, session=record.name, session_id=record.id,
        turn_id=turn_id, text=text, reply_to=reply_to, now_ms=now_ms, created_at=clock.now(),
        continuity_hash=config.continuity_hash, caps=config.continuity.caps)
    commit_turn(db, record, turn, new_state, turn.events)
    if default_reader:  # a sense clarifier asked: the answering turn finds its options embedded
        prepare_options(config, root, state, new_state)
    return turn
