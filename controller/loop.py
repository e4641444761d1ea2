"""The pure controller loop: `step(state, results) -> (state, next action | None)`.

Phases (plan phase 1): seed (docs-first: doc sections, tree nodes, path hints) -> expand
(heading seeds, filename tokens, symbol names from hits) -> widen (code-first: code search,
symbol index, 1-hop graph neighbours of definitions; repeated while it finds something).
Before the seed, a bare one-word term gets dominance steps (plan phase 4): sense discovery, then
per-sense retrieval; a dominant sense restricts the rest of the run, a split stops the loop.

Stop reasons: coverage_ok, budget_exhausted (steps, evidence, time), dominance_split,
no_new_evidence. Evidence is only ever added, so coverage never decreases.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from pydantic import Field

from controller.channels import Request, RequestResult
from controller.coverage import measure
from controller.dominance import (
    Sense,
    SenseScore,
    decide,
    detect_senses,
    found_by_sense,
    scoped,
    score_senses,
    sense_requests,
)
from controller.evidence import (
    Candidate,
    defines,
    definition_names,
    is_test,
    rank,
)
from controller.fusion import FAMILIES, Fused, Ranked, mmr, rrf, rrf_files
from controller.moves import MoveContext, asks_tests, req, requests_for, seed_extras
from controller.names import capitalised_only, question_names
from controller.reasons import Reason
from controller.route import RoutePlan
from controller.text import phrase_tokens, token_set
from helix.core.config import RetrievalSettings
from helix.core.envelope import (
    ClockStop,
    ControllerStep,
    Phase,
    ProofSpan,
    SlotCoverage,
    StopReason,
)
from helix.core.policy import RoutePolicy
from helix.core.schemas import Chunk, Frozen


class Action(Frozen):
    phase: Phase
    requests: tuple[Request, ...]
    note: str = ""


class ToolResults(Frozen):
    action: Action
    results: tuple[RequestResult, ...]
    elapsed_ms: float  # since the run started, from the injected clock
    # Dominance steps: pairs of files among the hits that import / call / test one another.
    file_links: tuple[tuple[str, str], ...] = ()


class LoopState(Frozen):
    plan: RoutePlan
    settings: RetrievalSettings
    prefixes: tuple[str, ...] = ()  # scope or chosen sense: every request is restricted
    sense_words: tuple[str, ...] = ()
    evidence: tuple[Candidate, ...] = ()
    steps: tuple[ControllerStep, ...] = ()
    coverage: SlotCoverage | None = None
    searched: tuple[str, ...] = ()  # "channel:query" already run
    loop_steps: int = 0  # seed/expand/widen steps (dominance steps have their own budget)
    senses: tuple[Sense, ...] = ()
    sense_scores: tuple[SenseScore, ...] = ()
    # sense key -> chunk ids, best first
    sense_evidence: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    proof_spans: tuple[ProofSpan, ...] = ()  # set by alignment, after the loop
    stop_reason: StopReason | None = None
    clock_stopped: ClockStop | None = None  # the clock safety stop ended the loop
    last_phase: Phase | None = None
    # Every channel list found so far, the chunks they name and the channels' reasons: the
    # evidence is scored by one fusion over all of them.
    lists: tuple[Ranked, ...] = ()
    pool: dict[str, Chunk] = Field(default_factory=dict)
    found_reasons: dict[str, tuple[Reason, ...]] = Field(default_factory=dict)


def route_settings(plan: RoutePlan, settings: RetrievalSettings) -> RetrievalSettings:
    """The settings with the route's own overrides (helix.core.policy.RoutePolicy)."""
    policy = settings.route(plan.policy_name)
    update: dict[str, int] = {}
    if policy.rrf_k is not None:
        update["rrf_k"] = policy.rrf_k
    if policy.per_step_evidence is not None:
        update["per_step_evidence"] = policy.per_step_evidence
    if policy.per_channel_k is not None:
        update["per_channel_k"] = policy.per_channel_k
    return settings.model_copy(update=update) if update else settings


def initial_state(plan: RoutePlan, settings: RetrievalSettings) -> LoopState:
    plan, prefixes = scoped(plan)
    return LoopState(plan=plan, settings=route_settings(plan, settings), prefixes=prefixes)


def _ctx(state: LoopState) -> MoveContext:
    return MoveContext(plan=state.plan, settings=state.settings, prefixes=state.prefixes,
                       sense_words=state.sense_words, ranked=tuple(rank(state.evidence)))


def _policy(state: LoopState) -> RoutePolicy:
    return state.settings.route(state.plan.policy_name)


def _asks_tests(state: LoopState) -> bool:
    return asks_tests(state.plan, state.settings, state.prefixes)


def _req(state: LoopState, channel: str, query: str, kinds: tuple[str, ...] = (),
         k: int | None = None) -> Request:
    return req(_ctx(state), channel, query, kinds, k)


LEAD_REASON = Reason(code="symbol_lead")
EXACT_REASON = Reason(code="symbol_exact")


def _key(r: Request) -> str:
    return (f"{r.channel}:{r.query}:{','.join(r.kinds)}:{'~' if r.fuzzy else ''}:"
            f"{','.join(r.must)}{':-tests' if r.no_tests else ''}{':members' if r.members else ''}")


def _fresh(state: LoopState, requests: Sequence[Request]) -> tuple[Request, ...]:
    done = set(state.searched)
    out: list[Request] = []
    for r in requests:
        key = _key(r)
        if r.query and key not in done:
            done.add(key)
            out.append(r)
    return tuple(out)


def _seed(state: LoopState) -> Action:
    reqs = [*requests_for(_ctx(state), _policy(state).seed), *seed_extras(_ctx(state))]
    return Action(phase="seed", requests=_fresh(state, reqs), note="docs-first")


def _identifiers(state: LoopState) -> list[str]:
    return [name for name, _ in question_names(state.plan, _policy(state).capitalised_names,
                                               state.settings.routing)]


def _expand(state: LoopState) -> Action:
    reqs = requests_for(_ctx(state), _policy(state).expand)
    return Action(phase="expand", requests=_fresh(state, reqs),
                  note="heading seeds, filename tokens, symbol names")


def _widen(state: LoopState) -> Action:
    fresh = _fresh(state, requests_for(_ctx(state), _policy(state).widen))
    # graph neighbours go last, for the first `graph_seeds` definitions not searched before
    graph = [r for r in fresh if r.channel == "graph"][:state.settings.pools.graph_seeds]
    return Action(phase="widen", requests=tuple([r for r in fresh if r.channel != "graph"]
                                                + graph),
                  note="code-first, symbol index, 1-hop graph")


def _discovery(state: LoopState, term: str) -> Action:
    reqs = (_req(state, "bm25", term), _req(state, "dense", term),
            *(_req(state, "symbol", name).model_copy(
                update={"capitalised": capitalised_only(state.plan, name)})
              for name in _identifiers(state)))
    return Action(phase="dominance", requests=reqs, note=f"sense discovery for '{term}'")


def _per_sense(state: LoopState, term: str) -> Action:
    budget = state.settings.sense_budget
    reqs = [r for sense in state.senses for r in sense_requests(term, sense, budget)]
    return Action(phase="dominance", requests=tuple(reqs), note="per-sense retrieval")


def first_action(state: LoopState) -> Action:
    if state.plan.ambiguous_term and not state.plan.intent.sense:
        return _discovery(state, state.plan.ambiguous_term)
    return _seed(state)


def _lists(results: Sequence[RequestResult], names: frozenset[str],
           asked: frozenset[str] = frozenset(), definition_first: bool = True) -> list[Ranked]:
    # A symbol looked up because a hit mentions it (not because the question names it) is a
    # lead, weighted like a graph neighbour (channel "related").
    lists = [Ranked(channel="related" if r.request.channel == "symbol"
                    and r.request.query not in asked else r.request.channel,
                    query=r.request.query, chunk_ids=tuple(f.chunk.id for f in r.found))
             for r in results]
    # Definition first: exact definitions of the names the question spells or implies (a def,
    # a heading, an assignment) form one more list of their own (weight `w_definition`), so a
    # definition is not outvoted by chunks that merely mention its words in several channels.
    # The most specific name first ("edge_betweenness_centrality" before "betweenness"),
    # then the order found.
    exact: dict[str, tuple[int, int]] = {}
    position = 0
    for r in results:
        for f in r.found:
            position += 1
            name = (r.request.query if r.request.channel == "symbol"
                    and r.request.query in asked and EXACT_REASON in f.reasons
                    else defines(f.chunk, names))
            if name and f.chunk.id not in exact:
                exact[f.chunk.id] = (-len(phrase_tokens(name.replace("_", " "))), position)
    if exact and definition_first:
        ordered = sorted(exact, key=lambda cid: (*exact[cid], cid))
        lists.append(Ranked(channel="definition", query="", chunk_ids=tuple(ordered)))
    return lists


class _TokenSets(Mapping[str, frozenset[str]]):
    """Chunk id -> its text's token set, computed on first look (`controller.text`)."""

    def __init__(self, texts: dict[str, str]) -> None:
        self._texts = texts

    def __getitem__(self, chunk_id: str) -> frozenset[str]:
        return token_set(self._texts[chunk_id])

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def _gathered(state: LoopState, results: Sequence[RequestResult]
              ) -> tuple[dict[str, Chunk], dict[str, list[Reason]], frozenset[str]]:
    """(the pool, every chunk's reasons so far, the identifiers the question asked for) with
    this step's results added."""
    pool = dict(state.pool)
    found_reasons = {cid: list(r) for cid, r in state.found_reasons.items()}
    asked = frozenset(_identifiers(state))
    for result in results:
        lead = result.request.channel == "symbol" and result.request.query not in asked
        for found in result.found:
            pool[found.chunk.id] = found.chunk
            # A lead (a name a hit mentions) is not a definition the question asked for.
            said = [LEAD_REASON if lead and r == EXACT_REASON else r for r in found.reasons]
            found_reasons.setdefault(found.chunk.id, []).extend(said)
    return pool, found_reasons, asked


def _fused(state: LoopState, lists: Sequence[Ranked], pool: dict[str, Chunk]
           ) -> list[Fused]:
    """Every list fused (by file first when the policy says so), tests scaled down unless the
    question asks about them."""
    policy = _policy(state)
    weights = {str(c): w for c, w in policy.weights.items()}
    families = FAMILIES if policy.lexical_family else {}
    fused = rrf(lists, state.settings, weights, families)
    files_first: list[Fused] = []
    if policy.fuse_files:
        files_first, fused = rrf_files(lists, fused, {cid: c.path for cid, c in pool.items()},
                                       state.settings, weights, families)
    if not _asks_tests(state) and state.settings.test_weight != 1.0:
        # Tests are supporting evidence unless the question asks about them: scale them down.
        files_first, fused = (
            sorted((f.model_copy(update={"score": round(f.score * state.settings.test_weight,
                                                         9)})
                    if is_test(pool[f.chunk_id]) else f for f in group),
                   key=lambda f: (-f.score, f.chunk_id))
            for group in (files_first, fused))
    return [*files_first, *fused]


def _rescored(held: dict[str, Candidate], fused: Sequence[Fused],
              found_reasons: dict[str, list[Reason]]) -> dict[str, Candidate]:
    """The held evidence with the new fusion's score (the higher) and reasons."""
    updated = dict(held)
    for f in fused:
        if f.chunk_id in held:
            old = held[f.chunk_id]
            merged = tuple(dict.fromkeys((*old.reasons, *f.reasons,
                                          *found_reasons[f.chunk_id])))
            updated[f.chunk_id] = old.model_copy(update={"score": max(old.score, f.score),
                                                         "reasons": merged})
    return updated


def _eligible(fused: Sequence[Fused], held: dict[str, Candidate],
              lists: Sequence[Ranked], only: set[str] | None) -> list[Fused]:
    """Anything any step found may be admitted now (a chunk an earlier step passed over may
    have gained votes since); dominance steps admit only their sense's chunks."""
    if not any(r.chunk_ids for r in lists if r.channel != "dense"):
        # Vectors alone never make evidence: nearest neighbours always exist, so when no word,
        # name or path of the question was found anywhere, nothing is admitted (the answer
        # says nothing was found instead of quoting the closest noise).
        return []
    return [f for f in fused if f.chunk_id not in held
            and (only is None or f.chunk_id in only)]


def _admit(state: LoopState, results: Sequence[RequestResult], limit: int,
           step_index: int, extra_reason: dict[str, Reason] | None = None,
           only: set[str] | None = None) -> tuple[LoopState, list[str]]:
    """Fuse every list found so far (this step's and the earlier steps'), rescore the held
    evidence, and add up to `limit` new candidates by MMR. One fusion over all steps keeps
    scores comparable across steps: a chunk that BM25 found in the seed and the dense channel
    in the expand step has both votes, and the final order is by the same score."""
    pool, found_reasons, asked = _gathered(state, results)
    # usage: the call sites are the answer, so definitions get no list of their own (policy)
    step_lists = _lists(results, definition_names(state.plan), asked,
                        definition_first=_policy(state).definition_list)
    lists = (*state.lists, *step_lists)
    fused = _fused(state, lists, pool)
    held = {c.chunk.id: c for c in state.evidence}
    updated = _rescored(held, fused, found_reasons)
    eligible = _eligible(fused, held, lists, only)
    texts = {**{f.chunk_id: pool[f.chunk_id].text for f in eligible},
             **{cid: c.chunk.text for cid, c in held.items()}}
    tokens = _TokenSets(texts)  # tokenized when MMR compares them, not before
    room = min(limit, state.settings.max_evidence - len(held))
    if _policy(state).fuse_files:
        # by file: every file's best chunk in file order first, then, while there is room,
        # the files' further chunks (a small repository's few files say more than one chunk)
        new = eligible[:room]
    else:
        new = mmr(eligible, tokens, lam=state.settings.mmr_lambda, limit=room,
                  selected=sorted(held))
    order = [c.chunk.id for c in state.evidence]
    for f in new:
        extra = (extra_reason or {}).get(f.chunk_id)
        why = tuple(dict.fromkeys((*f.reasons, *found_reasons[f.chunk_id],
                                   *([extra] if extra else []))))
        updated[f.chunk_id] = Candidate(chunk=pool[f.chunk_id], score=f.score, reasons=why,
                                        step=step_index)
        order.append(f.chunk_id)
    state = state.model_copy(update={
        "pool": pool, "lists": lists,
        "found_reasons": {cid: tuple(dict.fromkeys(r)) for cid, r in found_reasons.items()}})
    return state.model_copy(update={"evidence": tuple(updated[cid] for cid in order)}), \
        [f.chunk_id for f in new]


CLOCK_STOP = "clock safety stop"


def _record(state: LoopState, action: Action, new_ids: list[str], coverage: SlotCoverage,
            note: str) -> tuple[ControllerStep, ...]:
    queries = tuple(dict.fromkeys(r.query for r in action.requests))
    channels = tuple(sorted({r.channel for r in action.requests}))
    step = ControllerStep(index=len(state.steps), phase=action.phase, queries=queries,
                          channels=channels, new_chunk_ids=tuple(new_ids),
                          coverage=coverage.ratio, covered_slots=coverage.covered, note=note)
    return (*state.steps, step)


def _searched(state: LoopState, action: Action) -> tuple[str, ...]:
    keys = [_key(r) for r in action.requests]
    return tuple(dict.fromkeys((*state.searched, *keys)))


def _discover(state: LoopState, tools: ToolResults, term: str
              ) -> tuple[LoopState, Action | None]:
    """The discovery step: the senses the found chunks show; per-sense searches when there
    are two or more, else the ordinary seed."""
    coverage = state.coverage or measure(state.plan, state.evidence)
    found = [f.chunk for r in tools.results for f in r.found]
    senses = detect_senses(term, found, state.settings, tools.file_links)
    note = f"{len(senses)} sense(s): " + "; ".join(s.label for s in senses[:4])
    steps = _record(state, tools.action, [], coverage, note)
    # a sense check only leaves the question's own searches to run as asked
    searched = state.searched if state.plan.sense_check_only else _searched(state, tools.action)
    state = state.model_copy(update={"steps": steps, "coverage": coverage,
                                     "searched": searched})
    if len(senses) < 2:
        return state, _seed(state)
    state = state.model_copy(update={"senses": tuple(senses[:4]),
                                     "sense_evidence": {"__discovery__": tuple(
                                         c.id for c in found)}})
    return state, _per_sense(state, term)


def _dominance(state: LoopState, tools: ToolResults) -> tuple[LoopState, Action | None]:
    term = state.plan.ambiguous_term or ""
    settings = state.settings
    if not state.senses:
        return _discover(state, tools, term)
    discovery = set(state.sense_evidence.get("__discovery__", ()))
    per = len(sense_requests(term, state.senses[0], settings.sense_budget))
    retrieved = {sense.key: [f.chunk for result in tools.results[i * per:(i + 1) * per]
                             for f in result.found]
                 for i, sense in enumerate(state.senses)}
    scores = score_senses(state.senses, term, retrieved, settings)
    winner = decide(scores, settings)
    if winner is not None and state.plan.sense_check_only:
        return _checked(state, tools, scores, winner)
    per_sense = found_by_sense(tools.results, term, state.senses,
                               settings.sense_context_lines)
    top_two = [s.key for s in scores[:2]]
    keep = set(per_sense.get(winner, [])) if winner else \
        {cid for key in top_two for cid in per_sense[key][:settings.clarify_evidence]}
    labels = {s.key: s.label for s in state.senses}
    words = {s.key: " ".join(s.words) for s in state.senses}
    reason = {cid: Reason(code="sense", name=words[key])
              for key, ids in per_sense.items() for cid in ids}
    admitted, new_ids = _admit(state, tools.results, settings.per_step_evidence,
                               len(state.steps), reason, only=keep)
    evidence = admitted.evidence
    coverage = measure(state.plan, evidence)
    score_note = ", ".join(f"{labels[s.key]}={s.score:g}" for s in scores[:2])
    note = (f"dominant: {labels[winner]} ({score_note})" if winner
            else f"split ({score_note}); ratio < {settings.dominance_ratio:g}")
    update = {"steps": _record(state, tools.action, new_ids, coverage, note),
              "coverage": coverage, "evidence": evidence, "sense_scores": tuple(scores),
              "sense_evidence": {k: tuple(v) for k, v in per_sense.items()} | {
                  "__discovery__": tuple(sorted(discovery))},
              "searched": _searched(state, tools.action), "lists": admitted.lists,
              "pool": admitted.pool, "found_reasons": admitted.found_reasons}
    if winner is None:
        update["stop_reason"] = "dominance_split"
        return state.model_copy(update=update), None
    sense = next(s for s in state.senses if s.key == winner)
    plan = state.plan.model_copy(update={"intent": state.plan.intent.model_copy(
        update={"sense": winner})})
    update |= {"plan": plan, "prefixes": state.prefixes or sense.dirs,
               "sense_words": sense.words[:1]}
    state = state.model_copy(update=update)
    return state, _seed(state)


def _checked(state: LoopState, tools: ToolResults, scores: Sequence[SenseScore],
             winner: str) -> tuple[LoopState, Action | None]:
    """A sense check with a dominant sense: noted; the question runs as asked, unrestricted."""
    note = f"dominant: {winner} (" + ", ".join(f"{s.key}={s.score:g}" for s in scores[:2]) + ")"
    steps = _record(state, tools.action, [], state.coverage or measure(state.plan, state.evidence),
                    f"{note}; the question runs as asked")
    state = state.model_copy(update={"steps": steps, "senses": (), "sense_evidence": {}})
    return state, _seed(state)


def _next(state: LoopState, phase: Phase, new_ids: list[str]) -> Action | StopReason:
    settings = state.settings
    if phase == "seed":
        action = _expand(state)
    elif phase == "expand":
        action = _widen(state)
    else:
        if not new_ids:
            return "no_new_evidence"
        action = _widen(state)
    if not action.requests:
        return _next(state, "widen", []) if phase != "widen" else "no_new_evidence"
    if state.loop_steps >= settings.max_steps:
        return "budget_exhausted"
    return action


def step(state: LoopState, tools: ToolResults | None) -> tuple[LoopState, Action | None]:
    """Fold one action's results into the state; return the next action, or None to stop."""
    if tools is None:
        return state, first_action(state)
    if tools.action.phase == "dominance":
        return _dominance(state, tools)
    settings = state.settings
    state, new_ids = _admit(state, tools.results, settings.per_step_evidence, len(state.steps))
    evidence = state.evidence
    coverage = measure(state.plan, evidence)
    if state.coverage is not None and coverage.ratio < state.coverage.ratio:
        coverage = state.coverage  # cannot happen (evidence only grows); kept as a guard
    state = state.model_copy(update={
        "evidence": evidence, "coverage": coverage, "loop_steps": state.loop_steps + 1,
        "steps": _record(state, tools.action, new_ids, coverage, tools.action.note),
        "searched": _searched(state, tools.action), "last_phase": tools.action.phase})
    stop: StopReason | None = None
    if coverage.ratio >= settings.coverage_threshold and evidence:
        stop = "coverage_ok"
    elif len(evidence) >= settings.max_evidence:
        stop = "budget_exhausted"
    elif tools.elapsed_ms >= settings.time_budget_ms:
        # The work budget (steps, evidence) decides the evidence; the clock is only a safety
        # stop for a machine far slower than expected, and says so where it acted.
        stop = "budget_exhausted"
        last = state.steps[-1]
        note = (f"{CLOCK_STOP}: {tools.elapsed_ms:.0f} ms >= retrieval.time_budget_ms "
                f"{settings.time_budget_ms}")
        state = state.model_copy(update={
            "steps": (*state.steps[:-1], last.model_copy(
                update={"note": f"{last.note}; {note}" if last.note else note})),
            "clock_stopped": ClockStop(elapsed_ms=tools.elapsed_ms,
                                       budget_ms=settings.time_budget_ms)})
    else:
        nxt = _next(state, tools.action.phase, new_ids)
        if isinstance(nxt, Action):
            return state, nxt
        stop = nxt
    return state.model_copy(update={"stop_reason": stop}), None
