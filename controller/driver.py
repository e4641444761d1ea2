"""The thin driver: runs the pure loop against the index, then assembles the envelope.

I/O here is limited to reading the index (the tools) and the injected clock. No LLM: the
envelope it returns is a dry run (`llm_steps == 0`); synthesis completes it elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from controller import callees, file_defs, file_lead_step, file_vote, span_swap_step, weak_leads
from controller.alignment import align
from controller.answer import build_answer
from controller.canonical import canonical_order
from controller.channels import RequestResult, execute
from controller.compaction import compact
from controller.coverage import measure
from controller.dense_adapter import dense_mode
from controller.evidence import (
    DOC_CHUNK_KINDS,
    Candidate,
    build_items,
    definition_names,
    evidence_id,
    item_hashes,
    rank,
    rank_for_route,
    to_item,
)
from controller.file_vote import ANCHORS
from controller.loop import LoopState, ToolResults, initial_state, step
from controller.moves import asks_tests
from controller.question import Question, respell
from controller.rank_step import (
    Scorer,
    applies,
    learned_order,
    load_question_ranker,
    load_ranker,
)
from controller.reasons import Reason
from controller.route import RoutePlan
from controller.text import is_identifier
from controller.treewalk import selected_trees, walk
from helix.core.config import HelixConfig
from helix.core.envelope import (
    Clarify,
    ClarifyOption,
    ControllerStep,
    Envelope,
    EvidenceItem,
    ReferenceSite,
    TreeWalk,
)
from helix.core.policy import FileDefsPolicy
from helix.core.ports import Clock, Embedder
from helix.core.schemas import Chunk
from indexers.api import IndexReader
from indexers.tokenize import tokenize

CODE_EDGES = ("calls", "tests")  # imports are hubs (a shared constants module)
DOC_EDGE = "documents"
DOMINANCE_STEPS = 2  # discovery + per-sense retrieval, outside the loop's step budget
# The live trace: trace(event name, JSON-ready data), called as the run goes (`helix ask
# --trace`): one "controller_step" per step, "stop", "tree_walk", then one "tree_walk_node"
# per walked node (with the evidence bound to it).
Trace = Callable[[str, dict[str, Any]], None]


def _emit_steps(trace: Trace | None, steps: Sequence[ControllerStep], since: int) -> None:
    if trace is not None:
        for s in steps[since:]:
            trace("controller_step", s.model_dump(mode="json"))


def _ms(clock: Clock, since: float) -> float:
    return round((clock.monotonic() - since) * 1000.0, 3)


def file_links(index: IndexReader, results: Sequence[RequestResult]) -> tuple[tuple[str, str], ...]:
    """Pairs of hit files joined in the graph: by a code edge (calls, tests), or a hit
    section that documents definitions of exactly one other hit file (the document that
    describes a module is the same concept, not a sense of its own; a section documenting
    several files is an overview and joins none)."""
    graph = index.graph
    paths = {f.chunk.path for r in results for f in r.found}
    pairs: set[tuple[str, str]] = set()
    for path in sorted(paths):
        nodes = {f"file:{path}", *(f.chunk.node_id for r in results for f in r.found
                                   if f.chunk.path == path)}
        for node in sorted(n for n in nodes if n in graph):
            edges = [*graph.out_edges(node, keys=True), *graph.in_edges(node, keys=True)]
            documented: set[str] = set()
            for u, v, key in edges:
                if key == DOC_EDGE and u == node:
                    documented.add(str(graph.nodes[v].get("path")))
                if key not in CODE_EDGES:
                    continue
                for other in (u, v):
                    other_path = graph.nodes[other].get("path")
                    if other_path in paths and other_path != path:
                        pairs.add(tuple(sorted((path, str(other_path)))))  # type: ignore[arg-type]
            documented.discard(path)
            if len(documented) == 1 and documented <= paths:
                pairs.add(tuple(sorted((path, documented.pop()))))  # type: ignore[arg-type]
    return tuple(sorted(pairs))


def _run_loop(state: LoopState, index: IndexReader, embedder: Embedder | None, clock: Clock,
              started: float, timings: dict[str, float], trace: Trace | None = None
              ) -> LoopState:
    state, action = step(state, None)
    guard = state.settings.max_steps + DOMINANCE_STEPS + 1
    while action is not None and guard > 0:
        guard -= 1
        t = clock.monotonic()
        results = tuple(execute(index, request, embedder, state.settings.pools,
                                dense_mode(state.settings)) for request in action.requests)
        timings[action.phase] = round(timings.get(action.phase, 0.0) + _ms(clock, t), 3)
        links = file_links(index, results) if action.phase == "dominance" else ()
        tools = ToolResults(action=action, results=results, elapsed_ms=_ms(clock, started),
                            file_links=links)
        seen = len(state.steps)
        state, action = step(state, tools)
        _emit_steps(trace, state.steps, seen)
    if state.stop_reason is None:  # the guard tripped: say so rather than loop forever
        state = state.model_copy(update={"stop_reason": "budget_exhausted"})
    return state


def _align(state: LoopState, index: IndexReader) -> LoopState:
    settings = state.settings
    docs = [c for c in rank(state.evidence)
            if c.chunk.kind in DOC_CHUNK_KINDS][:settings.pools.align_docs]
    spans, chunks = align(index, docs, settings.proof_spans_per_doc,
                          settings.pools.align_tests_per_symbol)
    held = {c.chunk.id: c for c in state.evidence}
    score = round(settings.w_graph / (settings.rrf_k + 1), 9)
    # a definition a leading doc section names ranks just below that section
    doc_score = {c.chunk.path: max(c.score, 0.0) for c in reversed(docs)}
    lead = settings.align_lead
    added: list[Candidate] = []
    for chunk, reason in chunks:
        if state.prefixes and not chunk.path.startswith(state.prefixes):
            continue  # a scoped question keeps its evidence in scope ("only in docs/")
        if chunk.id in held:  # already evidence: it gains the pointer from the doc span
            old = held[chunk.id]
            held[chunk.id] = old.model_copy(
                update={"reasons": tuple(dict.fromkeys((*old.reasons, reason)))})
            continue
        if len(added) >= settings.per_step_evidence:
            continue
        named_by = doc_score.get(reason.source) if lead and reason.code == "aligned" else None
        held[chunk.id] = Candidate(chunk=chunk, reasons=(reason,),
                                   score=score if named_by is None else
                                   max(score, round(named_by * lead, 9)),
                                   step=len(state.steps))
        added.append(held[chunk.id])
    evidence = (*(held[c.chunk.id] for c in state.evidence), *added)
    coverage = measure(state.plan, evidence)
    record = ControllerStep(
        index=len(state.steps), phase="align",
        queries=tuple(dict.fromkeys(s.symbol for s in spans)), channels=("symbol", "graph"),
        new_chunk_ids=tuple(c.chunk.id for c in added), coverage=coverage.ratio,
        covered_slots=coverage.covered, note=f"{len(spans)} proof span(s) from doc spans")
    return state.model_copy(update={"evidence": evidence, "coverage": coverage,
                                    "steps": (*state.steps, record),
                                    "proof_spans": tuple(spans)})


def _clarify(state: LoopState, items: dict[str, EvidenceItem]) -> Clarify:
    labels = {s.key: s for s in state.senses}
    options = []
    for score in state.sense_scores[:2]:
        ids = state.sense_evidence.get(score.key, ())
        evidence = tuple(items[i] for i in ids if i in items)[:state.settings.clarify_evidence]
        options.append(ClarifyOption(label=labels[score.key].label, sense=score.key,
                                     evidence=evidence, score=score.score))
    searched = tuple(dict.fromkeys(q for s in state.steps for q in s.queries))
    tops = [f"{e.path}#{e.heading}" if e.heading else e.path
            for option in options for e in option.evidence]
    term = state.plan.ambiguous_term or ""
    return Clarify(question=f"'{term}' means different things in this repository: which one?",
                   options=tuple(options), searched_terms=searched,
                   top_candidates=tuple(dict.fromkeys(tops)))


def _items(state: LoopState, candidates: Sequence[Candidate]) -> dict[str, EvidenceItem]:
    names = definition_names(state.plan)
    return {c.chunk.id: to_item(c, names) for c in candidates}


MAX_REFERENCE_SITES = 1000  # listed in the envelope; the answer states the whole count


class _PathChunks(Mapping[str, Sequence[Chunk]]):
    """path -> its chunks, for the given paths, read from the index on first look."""

    def __init__(self, index: IndexReader, paths: Sequence[str]) -> None:
        self._index = index
        self._paths = tuple(paths)

    def __getitem__(self, path: str) -> Sequence[Chunk]:
        if path not in self._paths:
            raise KeyError(path)
        return self._index.chunks_for_path(path)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def _with_file_definitions(plan: RoutePlan, ranked: list[Candidate], index: IndexReader,
                           config: HelixConfig, prefixes: tuple[str, ...] = ()
                           ) -> list[Candidate]:
    """`controller.file_defs`: the best definition of each of the first files joins the
    evidence after the file's first item (the file's chunks are read here, scored there)."""
    policy = config.retrieval.file_defs
    question = file_defs.question_tokens(plan)
    asks = plan.asked.reads_as_question
    if not ranked or not file_defs.applies(question, plan.intent.route, policy, asks):
        return ranked
    paths = list(dict.fromkeys(c.chunk.path for c in ranked))[:policy.files * 3]
    chunks = _PathChunks(index, paths)  # read when scored, not before
    promoted = file_defs.promotions(question, [c.chunk for c in ranked], chunks, policy, asks)
    out = list(ranked)
    for position, chunk in sorted(promoted, key=lambda p: -p[0]):
        anchor = ranked[position]
        out.insert(position if policy.lead else position + 1, Candidate(
            chunk=chunk, score=anchor.score, step=anchor.step,
            reasons=(Reason(code="in_file", name=chunk.symbol or ""),)))
    if policy.lead_files > 1 and file_defs.descriptive(question, policy, asks):
        out = _file_lead(plan, question, out, policy, index)
    # a question's next definitions by the depth measure, a report's by the in-file one
    deep, reach = file_defs.deeper(question, [c.chunk for c in out], chunks,
                                   policy if asks else file_defs.in_file_order(policy))
    if policy.reach_lead and asks:
        deep, reach = file_defs.lead_first(question, deep, reach,
                                           [c.chunk for c in out[:policy.depth_at]], policy)
    limit = config.retrieval.max_evidence
    cut: list[Candidate] = []
    if deep:
        room = max(limit - len(deep), 0)
        cut = out[room:limit] if policy.recut else []
        last = out[-1]
        picks = [Candidate(chunk=chunk, score=0.0, step=last.step,
                           reasons=(Reason(code="in_file_more", name=chunk.symbol or ""),))
                 for chunk in deep]
        lead = file_defs.picks_ahead(question, deep, [c.chunk for c in out[:room]],
                                     policy) if asks else 0  # a question, not a report
        out = file_defs.with_picks(out[:room], picks, lead, policy.depth_at)
    if not asks:  # a question: reports and commit messages keep their tail
        return out
    step = out[-1].step
    more = {c.id: Candidate(chunk=c, score=0.0, step=step, reasons=(
        Reason(code="in_file_more", name=c.symbol or ""),)) for c in reach}
    first = list(dict.fromkeys(c.chunk.path for c in out if c.chunk.kind in (
        "code_def", "code_module")))[:policy.depth_files] if policy.callees else []
    shown = [c.chunk for c in out if c.chunk.path in first]
    for callee, caller in callees.across(question, shown, _calls_of(index, prefixes),
                                         policy.callees, policy) if first else ():
        more.setdefault(callee.id, Candidate(chunk=callee, score=0.0, step=step, reasons=(
            Reason(code="neighbour", edge="called by", name=caller.symbol or ""),)))
    more.update((c.chunk.id, c) for c in cut if c.chunk.id not in more)
    places = file_defs.reach_places(question, [c.chunk for c in out],
                                    [c.chunk for c in more.values()], policy.depth_at + 1, limit,
                                    policy) if more else {}
    for place, chunk in places.items():
        out[place] = more[chunk.id]
    return span_swap_step.apply(question, out, limit, policy)


def _calls_of(index: IndexReader, prefixes: tuple[str, ...] = ()
              ) -> Callable[[Chunk], list[Chunk]]:
    """A definition's callees: the graph's resolved `calls` edges, read when asked; a scoped
    question's only under its prefixes ("only in tests/" keeps its evidence there)."""
    def callees_of(chunk: Chunk) -> list[Chunk]:
        graph = index.graph
        if chunk.node_id not in graph:
            return []
        targets = sorted({v for _, v, key in graph.out_edges(chunk.node_id, keys=True)
                          if key == "calls" and v != chunk.node_id})
        found = (index.chunk_for_node(v) for v in targets)
        return [c for c in found if c is not None
                and (not prefixes or c.path.startswith(prefixes))]

    return callees_of


def _file_lead(plan: RoutePlan, question: frozenset[str], ranked: list[Candidate],
               policy: FileDefsPolicy, index: IndexReader | None = None) -> list[Candidate]:
    """`controller.file_defs.lead_choice`: the first files' leading runs of items, and the one
    that answers best moved to the front (the rest keep their order)."""
    runs: dict[str, list[Candidate]] = {}
    end = 0
    for position, c in enumerate(ranked):
        path = c.chunk.path
        if path not in runs:
            if len(runs) >= policy.lead_files:
                break
            runs[path] = [c]
        elif runs[path][-1] is ranked[position - 1]:
            runs[path].append(c)  # a run: the file's first items, one after the other
        end = position + 1
    paths, first = list(runs), [r for c in runs[next(iter(runs))] for r in c.reasons]
    anchored = any(r.code in ANCHORS for r in first) or file_defs.whole_file_first(first, policy)
    named = frozenset(t.lower() for t in plan.intent.terms if is_identifier(t))
    choice = file_lead_step.choice(question, [runs[p] for p in paths], ranked, anchored,
                                   named, policy, index)
    if choice == 0:
        return ranked
    lead = runs[paths[choice]]
    return lead + [c for c in ranked[:end] if all(c is not x for x in lead)] + ranked[end:]


def _canonical_first(plan: RoutePlan, ranked: list[Candidate], index: IndexReader,
                     config: HelixConfig) -> list[Candidate]:
    """`controller.canonical`: among same-named definitions, the one the others' files import
    goes first (the files' imports edges are read here)."""
    if not config.retrieval.canonical_first or len(ranked) < 2:
        return ranked
    graph = index.graph
    memo: dict[str, frozenset[str]] = {}

    def importers(path: str) -> frozenset[str]:
        if path not in memo:
            node = f"file:{path}"
            memo[path] = frozenset(
                str(graph.nodes[u].get("path")) for u, _, key in graph.in_edges(node, keys=True)
                if key == "imports") if node in graph else frozenset()
        return memo[path]

    order = canonical_order([c.chunk for c in ranked], importers,
                            frozenset(tokenize(" ".join((plan.text, *plan.intent.terms)))))
    return [ranked[p] for p in order]


def _with_callees(plan: RoutePlan, ranked: list[Candidate], index: IndexReader,
                  config: HelixConfig, prefixes: tuple[str, ...] = ()) -> list[Candidate]:
    """`controller.callees`: the callee that does the work joins the evidence after the
    function the evidence leads with (its `calls` edges are read here, scored there)."""
    policy = config.retrieval.callees
    if not policy.enabled or not ranked or plan.intent.route not in policy.routes:
        return ranked
    promoted = callees.promotions(file_defs.question_tokens(plan), [c.chunk for c in ranked],
                                  _calls_of(index, prefixes), policy,
                                  config.retrieval.file_defs)
    out = list(ranked)
    for position, chunk in sorted(promoted, key=lambda p: -p[0]):
        caller = ranked[position]
        out.insert(position + 1, Candidate(
            chunk=chunk, score=caller.score, step=caller.step,
            reasons=(Reason(code="neighbour", edge="called by",
                            name=caller.chunk.symbol or ""),)))
    return out


def graph_pack_trace(graph: Any, tree_walk: Any, evidence: Sequence[Any],
                     index: IndexReader) -> dict[str, Any]:
    """The graph-pack metadata of a run, as export writes it in each record: concept trees
    by their own ids, the primary one, anchors, the walked path, the anchor tree file's
    content hash, the repository and index revisions."""
    from indexers.trees import concept_tree_id

    concept = [e.node_id for e in evidence if e.node_id.startswith("tree:")]
    named = [concept_tree_id(graph, n) for n in (*tree_walk.anchors, *concept)]
    tree_ids = list(dict.fromkeys(t for t in named if t))
    anchored = [a for a in tree_walk.anchors if a.startswith("tree:")]
    version = None
    if anchored and anchored[0] in graph:
        tree_file = graph.nodes[anchored[0]].get("tree_file")
        file_node = f"file:{tree_file}"
        if tree_file and file_node in graph:
            version = graph.nodes[file_node].get("content_hash")
    return {"treeIds": tree_ids,
            "primaryTreeId": (concept_tree_id(graph, anchored[0]) if anchored
                              else tree_ids[0] if tree_ids else None),
            "anchorIds": list(tree_walk.anchors),
            "pathIds": [n.node_id for n in tree_walk.nodes], "treeVersion": version,
            "repo_rev": index.repo_rev, "lattice_rev": index.index_rev}


def reference_sites(plan: RoutePlan, index: IndexReader) -> tuple[ReferenceSite, ...]:
    """A usage question's symbol: every reference the index resolved to it, by path and
    line ("who calls X" keeps the calls; "where is X used" every kind, imports included)."""
    if plan.intent.route != "usage":
        return ()
    symbol = next(iter(plan.subjects.get("symbol", ())), "").strip("`").removesuffix("()")
    if not symbol or " " in symbol:
        return ()
    calls_only = plan.asked.calls_only
    refs = [r for r in index.references_to(symbol) if not calls_only or r.kind == "call"]
    if not calls_only:
        refs += index.imports_of(symbol)
    sites = sorted((r.path, r.line, r.scope or "", r.kind) for r in refs)
    return tuple(ReferenceSite(path=path, line=line, caller=caller or None, kind=kind)
                 for path, line, caller, kind in sites[:MAX_REFERENCE_SITES])


def _retrieved(plan: RoutePlan, index: IndexReader, config: HelixConfig,
               query_embedder: Embedder | None, clock: Clock, started: float,
               timings: dict[str, float], trace: Trace | None) -> LoopState:
    """The pure loop driven to its stop, then the alignment (unless the senses split)."""
    state = _run_loop(initial_state(plan, config.retrieval), index, query_embedder, clock,
                      started, timings, trace)
    t = clock.monotonic()
    if state.stop_reason != "dominance_split":
        seen = len(state.steps)
        state = _align(state, index)
        _emit_steps(trace, state.steps, seen)
        timings["align"] = _ms(clock, t)
    if trace is not None:
        trace("stop", {"stop_reason": state.stop_reason})
    return state


def _ranked(state: LoopState, index: IndexReader, config: HelixConfig) -> list[Candidate]:
    """The evidence in the route's order with the canonical document, file definitions and
    callees placed, a weak lead yielding, a voted lead (`weak_leads`, `file_vote`)."""
    plan = state.plan
    policy = config.retrieval.route(plan.policy_name)
    ranked = rank_for_route(plan, state.evidence, policy.code_first, policy.source_first,
                            asks_tests(plan, config.retrieval, state.prefixes))
    ranked = _canonical_first(plan, ranked, index, config)
    ranked = _with_file_definitions(plan, ranked, index, config, state.prefixes)
    ranked = _with_callees(plan, ranked, index, config, state.prefixes)
    return file_vote.step(plan, weak_leads.step(plan, ranked, config), index, config)


def _walked(index: IndexReader, evidence: tuple[EvidenceItem, ...], config: HelixConfig,
            trace: Trace | None) -> TreeWalk:
    tree_walk = walk(index.graph, evidence, config.retrieval)
    if trace is not None:
        trace("tree_walk", tree_walk.model_dump(mode="json", exclude={"nodes"}))
        for node in tree_walk.nodes:
            trace("tree_walk_node", node.model_dump(mode="json"))
        trace("graph_pack", graph_pack_trace(index.graph, tree_walk, evidence, index))
    return tree_walk


def run_controller(question: Question, index: IndexReader, config: HelixConfig, *,
                   query_embedder: Embedder | None, clock: Clock, refreshed: bool = False,
                   trace: Trace | None = None, ranker: Scorer | None = None) -> Envelope:
    """Retrieve, align, compact and walk: the whole dry run for one question (read once:
    `controller.question`; the index's vocabulary completes its reading here when it was read
    before the index was open). `trace` receives the live trace (see `Trace`); it never
    changes the result. `ranker`: what orders the evidence when `retrieval.ranker.mode` is
    "learned" (default: the model the config names, `controller.rank_step.load_ranker`)."""
    started = clock.monotonic()
    timings: dict[str, float] = {}
    question = respell(question, config.retrieval, index.spelled_as, index.knows)
    plan = question.plan
    state = _retrieved(plan, index, config, query_embedder, clock, started, timings, trace)
    t = clock.monotonic()
    ranked = _ranked(state, index, config)
    if config.retrieval.ranker.mode == "learned" and state.stop_reason != "dominance_split":
        scorer = ranker or load_ranker(config.retrieval.ranker)
        asks = question.asked.rstrip().endswith("?")
        chosen: Scorer | None = scorer
        if not applies(scorer, plan.intent.route, asks, config.retrieval.ranker):
            # what the first model leaves in the hand order, a question model may order
            chosen = None if ranker is not None else load_question_ranker(
                config.retrieval.ranker)
            if chosen is not None and not applies(chosen, plan.intent.route, asks):
                chosen = None
        if chosen is not None:
            ranked = learned_order(state, ranked, index, config, chosen, question.asked)
    all_items = _items(state, ranked)
    kept = compact(list(all_items.values()), config.retrieval.token_budget,
                   plan.intent.terms, config.retrieval.excerpt_context_lines,
                   config.retrieval.compaction)
    kept_by_id = {e.id: e for e in kept}
    kept_candidates = [c for c in ranked if evidence_id(c.chunk) in kept_by_id]
    evidence = tuple(kept_by_id[evidence_id(c.chunk)] for c in kept_candidates)
    coverage = state.coverage or measure(state.plan, state.evidence)
    clarify = _clarify(state, all_items) if state.stop_reason == "dominance_split" else None
    tree_walk = _walked(index, evidence, config, trace)
    items = build_items(state.plan, kept_candidates, selected_trees(index.graph, evidence),
                        state.proof_spans, coverage)
    references = reference_sites(state.plan, index)
    answer = build_answer(state.plan, evidence, coverage, clarify,
                          channels=[c for s in state.steps for c in s.channels],
                          policy=config.retrieval.answer, references=references)
    if question.note:  # the user sees what was read, not a silent rewrite
        answer = f"{question.note}\n{answer}"
    timings["assemble"] = _ms(clock, t)
    timings["total"] = _ms(clock, started)
    return Envelope(
        question=question.asked, repo_root=str(index.root), repo_rev=index.repo_rev,
        index_rev=index.index_rev, index_refreshed=refreshed, config_hash=config.evidence_hash,
        route=state.plan.intent.route, slots=state.plan.intent.slots,
        controller_steps=state.steps, stop_reason=state.stop_reason or "budget_exhausted",
        items=items, item_hashes=item_hashes(items, evidence), evidence=evidence,
        clarify=clarify, tree_walk=tree_walk,
        answer_mode="dry_run", answer=answer, llm_steps=0,
        timings_ms=timings, references=references, question_cut=question.cut,
        clock_stopped=state.clock_stopped)
