"""Moves: the requests one named step of the route's policy makes (`helix.core.policy`).

Pure: a `MoveContext` (the routed question, the settings, what the loop holds) in, requests out.
The loop runs a phase by concatenating its moves' requests in the policy's order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from controller.channels import Request
from controller.evidence import CODE_CHUNK_KINDS, DOC_CHUNK_KINDS, Candidate
from controller.names import capitalised_only, question_names, spelled_identifiers
from controller.route import RoutePlan
from controller.text import is_identifier, phrase_tokens, token_set
from helix.core.config import RetrievalSettings
from helix.core.policy import Move, RoutePolicy

_NAME = re.compile(r"^[A-Za-z_][\w.]*$")  # one name, plain or dotted

TEST_WORDS = frozenset(("test", "tests", "tested", "testing", "unittest", "pytest", "fixture",
                        "fixtures"))


@dataclass(frozen=True)
class MoveContext:
    plan: RoutePlan
    settings: RetrievalSettings
    prefixes: tuple[str, ...]
    sense_words: tuple[str, ...]
    ranked: tuple[Candidate, ...]  # the evidence held, best first

    @property
    def policy(self) -> RoutePolicy:
        return self.settings.route(self.plan.policy_name)


def main_query(ctx: MoveContext) -> str:
    return " ".join((*ctx.plan.intent.terms, *ctx.sense_words)).strip()


def dense_query(ctx: MoveContext) -> str:
    """The question as asked: a sentence encoder reads whole sentences, not keyword lists
    (measured on networkx: the expected file in the dense top 5 for 36 of 48 questions
    with the question, 32 with its content words)."""
    text = ctx.plan.text or main_query(ctx)
    return " ".join((text, *ctx.sense_words)).strip()


def subject_queries(ctx: MoveContext) -> list[str]:
    out = [main_query(ctx)]
    if ctx.plan.intent.route == "relation":
        out += [p for slot in ("x", "y") for p in ctx.plan.subjects.get(slot, ())]
    return [q for q in dict.fromkeys(out) if q]


def asks_tests(plan: RoutePlan, settings: RetrievalSettings,
               prefixes: tuple[str, ...] = ()) -> bool:
    """The question is about tests (or, by its route's policy, tests are part of the answer)."""
    policy = settings.route(plan.policy_name)
    if policy.asks_tests or any("test" in p for p in prefixes):
        return True
    names_tests = bool(TEST_WORDS & {t.lower() for t in plan.intent.terms})
    if policy.test_words_ask_tests:
        return names_tests or any("test" in p for p in plan.intent.path_hints)
    # a pasted report mentions tests in its story; a long question that names them asks
    return names_tests and plan.asked.reads_as_question


def req(ctx: MoveContext, channel: str, query: str, kinds: tuple[str, ...] = (),
        k: int | None = None, fuzzy: bool = False) -> Request:
    return Request(channel=channel, query=query, k=k or ctx.settings.per_channel_k,  # type: ignore[arg-type]
                   kinds=kinds, prefixes=ctx.prefixes, fuzzy=fuzzy)


def files_request(ctx: MoveContext, query: str,
                  channel: Literal["files", "file_bm25", "name_words"] = "files",
                  kinds: tuple[str, ...] = ()) -> Request:
    """Files pooled from BM25 hits, ranked by whole-file BM25 (`file_bm25`), or definitions
    whose names spell the query (`name_words`); test files only when the question asks
    about tests."""
    return Request(channel=channel, query=query, k=ctx.settings.per_channel_k, kinds=kinds,
                   prefixes=ctx.prefixes,
                   no_tests=not asks_tests(ctx.plan, ctx.settings, ctx.prefixes))


def names(ctx: MoveContext) -> list[tuple[str, tuple[str, ...]]]:
    return question_names(ctx.plan, ctx.policy.capitalised_names, ctx.settings.routing)


def symbol_requests(ctx: MoveContext, fuzzy_ok: bool) -> list[Request]:
    spelled = set(spelled_identifiers(ctx.plan))
    words = tuple(sorted(ctx.plan.term_words))
    action = f".{ctx.plan.action}" if ctx.plan.action else None
    out = []
    for name, must in names(ctx):
        fuzzy = fuzzy_ok and name in spelled
        out.append(Request(channel="symbol", query=name, k=ctx.settings.sense_budget,
                           prefixes=ctx.prefixes, fuzzy=fuzzy, must=must,
                           context=words,
                           capitalised=capitalised_only(ctx.plan, name),
                           # `Owner.action` (`controller.names`): the owner's members named
                           # for the action
                           members=bool(action and name.endswith(action))))
    return out


def _question_text(ctx: MoveContext) -> str:
    return ctx.plan.text or main_query(ctx)


# ---- seed ------------------------------------------------------------------------------

def _doc_bm25(ctx: MoveContext) -> list[Request]:
    return [req(ctx, "bm25", q, DOC_CHUNK_KINDS) for q in subject_queries(ctx)]


def _doc_dense(ctx: MoveContext) -> list[Request]:
    return [req(ctx, "dense", dense_query(ctx), DOC_CHUNK_KINDS)]


def _files(ctx: MoveContext) -> list[Request]:
    # files are matched on the whole question (BM25 weighs its common words down itself)
    return [files_request(ctx, _question_text(ctx))]


def _file_bm25(ctx: MoveContext) -> list[Request]:
    return [files_request(ctx, _question_text(ctx), "file_bm25")]


def _code_files(ctx: MoveContext) -> list[Request]:
    return [files_request(ctx, _question_text(ctx), "files", CODE_CHUNK_KINDS)]


def _code_file_bm25(ctx: MoveContext) -> list[Request]:
    return [files_request(ctx, _question_text(ctx), "file_bm25", CODE_CHUNK_KINDS)]


def _action_code(ctx: MoveContext) -> list[Request]:
    # "where is X built?": the code that does it names the action's base form next to X
    if ctx.plan.intent.route != "location" or not ctx.plan.action:
        return []
    return [req(ctx, "bm25", f"{main_query(ctx)} {ctx.plan.action}", CODE_CHUNK_KINDS),
            req(ctx, "dense", dense_query(ctx), CODE_CHUNK_KINDS)]


def _symbols(ctx: MoveContext) -> list[Request]:
    # exact definitions of the names the question spells are proof, not noise: looked up
    # from the start (fuzzy lookups wait for the expand / widen steps)
    return symbol_requests(ctx, fuzzy_ok=False)


def _refs(ctx: MoveContext) -> list[Request]:
    names = spelled_identifiers(ctx.plan)
    if ctx.plan.intent.route == "usage":  # "who calls index?": its (resolved) call sites
        names += [s for s in ctx.plan.subjects.get("symbol", ())
                  if _NAME.match(s) and s not in names]
    return [req(ctx, "refs", name) for name in names]


def _path_hints(ctx: MoveContext) -> list[Request]:
    return [req(ctx, "path", hint) for hint in ctx.plan.intent.path_hints]


def _module_paths(ctx: MoveContext) -> list[Request]:
    # a dotted name may be a module (`http.client`): its file is a path hint
    return [req(ctx, "path", name) for name in spelled_identifiers(ctx.plan) if "." in name]


def _doc_path(ctx: MoveContext) -> list[Request]:
    if not ctx.plan.doc_words:
        return []
    return [req(ctx, "path", " ".join(ctx.plan.doc_words), fuzzy=True)]


# ---- expand ----------------------------------------------------------------------------

def _wanted(ctx: MoveContext) -> set[str]:
    terms = ctx.plan.intent.terms
    return set().union(*(phrase_tokens(t) for t in terms)) if terms else set()


def _heading_bm25(ctx: MoveContext) -> list[Request]:
    want = _wanted(ctx)
    headings = [c.chunk.heading_path[-1] for c in ctx.ranked
                if c.chunk.heading_path and want & token_set(c.chunk.heading_path[-1])]
    seeds = list(dict.fromkeys(headings))[:ctx.settings.pools.expand_seeds]
    return [req(ctx, "bm25", f"{main_query(ctx)} {heading}") for heading in seeds]


def _stem_bm25(ctx: MoveContext) -> list[Request]:
    stems = [c.chunk.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("_", " ").replace("-", " ")
             for c in ctx.ranked]
    seeds = list(dict.fromkeys(stems))[:ctx.settings.pools.expand_seeds]
    return [req(ctx, "bm25", f"{main_query(ctx)} {words}") for words in seeds]


def _symbols_fuzzy(ctx: MoveContext) -> list[Request]:
    return symbol_requests(ctx, fuzzy_ok=True)


def _lead_symbols(ctx: MoveContext) -> list[Request]:
    """Definitions of identifiers the best hits mention (symbols and words sharing the
    question's words): leads, weighted as related evidence."""
    want = _wanted(ctx)
    symbols = [c.chunk.symbol for c in ctx.ranked
               if c.chunk.symbol and want & token_set(c.chunk.symbol)]
    found: list[str] = []
    for c in ctx.ranked:
        for word in sorted(set(c.chunk.text.replace("`", " ").split())):
            word = word.strip("().,:;'\"[]{}")
            if is_identifier(word) and want & token_set(word):
                found.append(word)
    # a lead whose bare name the question asks for is one of the definitions the seed's own
    # lookup found: a second vote for it would only favour whichever ranked first
    asked = {name.rsplit(".", 1)[-1] for name, _ in names(ctx)}
    leads = [n for n in dict.fromkeys([*symbols, *sorted(set(found))])
             if n.rsplit(".", 1)[-1] not in asked]
    return [req(ctx, "symbol", name, k=ctx.settings.sense_budget)
            for name in leads[:ctx.settings.pools.expand_seeds * 2]]


def _dense(ctx: MoveContext) -> list[Request]:
    return [req(ctx, "dense", dense_query(ctx))]


def _files_terms(ctx: MoveContext) -> list[Request]:
    return [files_request(ctx, main_query(ctx))]


# ---- widen -----------------------------------------------------------------------------

def _code_bm25(ctx: MoveContext) -> list[Request]:
    return [req(ctx, "bm25", q, CODE_CHUNK_KINDS) for q in subject_queries(ctx)]


def _code_dense(ctx: MoveContext) -> list[Request]:
    return [req(ctx, "dense", dense_query(ctx), CODE_CHUNK_KINDS)]


def _graph(ctx: MoveContext) -> list[Request]:
    """Neighbours of the best definitions; more are asked than the step runs (the loop keeps
    the first `graph_seeds` not searched before)."""
    defs = [c for c in ctx.ranked if c.chunk.kind == "code_def"]
    return [req(ctx, "graph", c.chunk.node_id, k=ctx.settings.sense_budget)
            for c in defs[:ctx.settings.pools.graph_seeds * 2]]


def _path_words_request(ctx: MoveContext, query: str, kinds: tuple[str, ...]) -> Request:
    return Request(channel="path_words", query=query, k=ctx.settings.per_channel_k,
                   kinds=kinds, prefixes=ctx.prefixes,
                   no_tests=not asks_tests(ctx.plan, ctx.settings, ctx.prefixes))


def _code_path_words(ctx: MoveContext) -> list[Request]:
    """Source files whose path words a report uses (the whole text)."""
    return [_path_words_request(ctx, _question_text(ctx), CODE_CHUNK_KINDS)]


def _path_words(ctx: MoveContext) -> list[Request]:
    """Files of any kind whose path words the question's terms use: a document named for the
    concept asked about (`docs/knowledge/fractal-pulse.md`)."""
    return [_path_words_request(ctx, main_query(ctx), ())]


def _code_name_words(ctx: MoveContext) -> list[Request]:
    """Code definitions whose names spell the question's words (the whole text)."""
    return [files_request(ctx, _question_text(ctx), "name_words", CODE_CHUNK_KINDS)]


def _test_targets(ctx: MoveContext) -> list[Request]:
    return [req(ctx, "test_targets", _question_text(ctx))]


def prf_requests(ctx: MoveContext) -> list[Request]:
    """The feedback pass over code chunks on the whole question (`controller.prf`), for
    every route's seed when `pools.prf_terms` > 0; none when it is 0 (the default)."""
    if ctx.settings.pools.prf_terms <= 0:
        return []
    return [req(ctx, "prf", _question_text(ctx), CODE_CHUNK_KINDS)]


def test_files_requests(ctx: MoveContext) -> list[Request]:
    """For a question that asks about tests, the `files` list over test files only: its
    best `pools.test_files` (none when 0, the default), so a test the question describes
    competes with the code it tests (docs/ranker.md "Round 29"); with
    `pools.test_files_subject`, only when a test heads the question's subject ("Round 30")."""
    k = ctx.settings.pools.test_files
    if k <= 0 or not asks_tests(ctx.plan, ctx.settings, ctx.prefixes):
        return []
    if ctx.settings.pools.test_files_subject and not ctx.plan.asked.test_subject:
        return []  # a test word that does not head the question's subject (round 30)
    return [Request(channel="test_files", query=_question_text(ctx), k=k,
                    prefixes=ctx.prefixes)]


def seed_extras(ctx: MoveContext) -> list[Request]:
    """The lists every route's seed adds when their settings are on."""
    return [*prf_requests(ctx), *test_files_requests(ctx)]


MOVES: dict[Move, Callable[[MoveContext], list[Request]]] = {
    "doc_bm25": _doc_bm25, "doc_dense": _doc_dense, "files": _files, "file_bm25": _file_bm25,
    "action_code": _action_code, "symbols": _symbols, "refs": _refs,
    "path_hints": _path_hints, "module_paths": _module_paths, "doc_path": _doc_path,
    "heading_bm25": _heading_bm25, "stem_bm25": _stem_bm25, "symbols_fuzzy": _symbols_fuzzy,
    "lead_symbols": _lead_symbols, "dense": _dense, "files_terms": _files_terms,
    "code_bm25": _code_bm25, "code_dense": _code_dense, "graph": _graph,
    "path_words": _path_words, "code_path_words": _code_path_words,
    "test_targets": _test_targets, "code_files": _code_files,
    "code_file_bm25": _code_file_bm25, "code_name_words": _code_name_words,
}


def requests_for(ctx: MoveContext, moves: Sequence[Move]) -> list[Request]:
    return [r for move in moves for r in MOVES[move](ctx)]
