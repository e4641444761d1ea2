"""The settings a repository's config may only lower: budgets, sizes and caps.

A repository is untrusted input (`helix.core.config`): its `.helix.toml` may tune how it is
indexed and searched, but never make Helix do more work than you allow. Each setting named
here (an fnmatch pattern over dotted names; `*` stands for a route) is a bound: a larger value
means more files read, more chunks, more evidence, more time or memory. A repository value
above the one in force before it (the default, or yours from `$HELIX_HOME/config.toml`) is
dropped with one notice; a lower one is kept. Flags and `HELIX_*` variables are yours and set
any value.

Pure: values in, the kept value and what was dropped out.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any, NamedTuple

LOWER_ONLY: tuple[str, ...] = (
    # what is read and how many chunks it becomes
    "index.max_file_bytes", "index.window_lines", "index.window_overlap",
    "index.max_chunk_lines", "index.max_file_symbols", "index.max_parse_bytes",
    "index.max_tree_nodes", "index.max_tree_depth", "index.max_ignore_lines",
    "index.max_ignore_line_chars", "index.ignore_max_mem",
    # embeddings: whether, how many, how long, in what batches (on is "more" than off)
    "index.embed_enabled", "index.embed_max_chunks", "index.embed_max_chars",
    "index.embed_batch_size", "index.dense_inline_max",
    # the controller's budgets
    "retrieval.per_channel_k", "retrieval.max_steps", "retrieval.max_evidence",
    "retrieval.time_budget_ms", "retrieval.coverage_threshold", "retrieval.sense_budget",
    "retrieval.token_budget", "retrieval.proof_spans_per_doc", "retrieval.per_step_evidence",
    "retrieval.sense_context_lines", "retrieval.clarify_evidence",
    "retrieval.tree_walk_anchors", "retrieval.tree_walk_max_nodes",
    "retrieval.excerpt_context_lines",
    "retrieval.routes.*.per_step_evidence", "retrieval.routes.*.per_channel_k",
    "retrieval.pools.overfetch", "retrieval.pools.file_pool", "retrieval.pools.file_top_chunks",
    "retrieval.pools.file_bm25_pool", "retrieval.pools.module_def_limit",
    "retrieval.pools.graph_seeds", "retrieval.pools.expand_seeds", "retrieval.pools.align_docs",
    "retrieval.pools.align_tests_per_symbol", "retrieval.pools.test_pool",
    "retrieval.pools.test_seeds", "retrieval.pools.fuzzy_names",
    "retrieval.pools.name_words_pool",
    "retrieval.routing.name_max_words", "retrieval.routing.subject_max_words",
    "retrieval.compaction.min_cap_tokens",
    "retrieval.file_defs.files", "retrieval.file_defs.depth", "retrieval.file_defs.depth_files",
    "retrieval.callees.enabled", "retrieval.callees.leads",
    "retrieval.answer.max_list", "retrieval.answer.max_docs",
    "retrieval.answer.min_code_claims",
    # round 30's audit of every setting against this list (tests/test_repo_limits_audit.py):
    # commits read for history words, and the words each definition keeps
    "index.history_commits", "index.history_per_def",
    # feedback terms and the chunks they come from, the test-file list, the members looked up
    "retrieval.pools.prf_terms", "retrieval.pools.prf_docs", "retrieval.pools.test_files",
    "retrieval.pools.verb_members",
    # more characters counted as one token: more text under the token budget
    "retrieval.compaction.chars_per_token",
    # the in-file pass and the files, definitions and feedback terms it reads
    "retrieval.file_defs.enabled", "retrieval.file_defs.lead_files", "retrieval.file_defs.reach",
    "retrieval.file_defs.callees", "retrieval.file_defs.vote_terms",
    "retrieval.file_defs.vote_files",
    # the learned ranker's candidate pool, what it is drawn from, and the texts it orders
    "retrieval.ranker.max_candidates", "retrieval.ranker.files", "retrieval.ranker.callees",
    "retrieval.ranker.history_k", "retrieval.ranker.considered", "retrieval.ranker.questions",
    # a misspelt word looked up across the repository's vocabulary
    "retrieval.respell",
)
# The numeric and on/off settings a repository may set either way, each with why it is no
# limit: a larger value (or on) makes Helix do no more work, read, keep or send no more.
# tests/test_repo_limits_audit.py fails on a setting in neither list (nor `REPO_FORBIDDEN`).
NOT_LIMITS: dict[str, str] = {
    "index.background_dense": "when vectors are built, not how many (embed_* bound them)",
    "index.dense_publish_vectors": "how often the worker publishes: larger is fewer publishes",
    "index.dense_publish_seconds": "how often the worker publishes: larger is fewer publishes",
    "retrieval.w_*": "a channel's fusion weight",
    "retrieval.test_weight": "a weight",
    "retrieval.rrf_k": "the fusion's rank constant: smoothing, no count",
    "retrieval.mmr_lambda": "a diversity weight",
    "retrieval.dominance_ratio": "a score ratio",
    "retrieval.align_lead": "a score margin",
    "retrieval.sense_proof_weight": "a weight",
    "retrieval.sense_merge_jaccard": "a similarity threshold",
    "retrieval.canonical_first": "an order among the evidence already found",
    "retrieval.dense_adapter": "the question's vector turned before the same search: no more hits "
                               "(per_channel_k bounds them), a file shipped with Helix, not the "
                               "repository's",
    "retrieval.dense_adapter_union": "the plain and the turned question vector's lists as one, "
                                     "cut to the same k: no more hits",
    "retrieval.routes.*.rrf_k": "the fusion's rank constant: smoothing, no count",
    "retrieval.routes.*.weights.*": "a channel's fusion weight",
    "retrieval.routes.*.definition_list": "a fusion list of the names already looked up",
    "retrieval.routes.*.asks_tests": "whether tests are scaled down in the order",
    "retrieval.routes.*.test_words_ask_tests": "whether a test word counts as asking for tests",
    "retrieval.routes.*.code_first": "an order",
    "retrieval.routes.*.source_first": "an order",
    "retrieval.routes.*.capitalised_names": "which words are names (the name pools bound them)",
    "retrieval.routes.*.lexical_family": "how lexical lists vote, not how long they are",
    "retrieval.routes.*.fuse_files": "fusion by file or chunk over the same lists",
    "retrieval.pools.file_decay": "a weight",
    "retrieval.pools.path_word_min_chars": "a threshold: larger matches fewer words",
    "retrieval.pools.prf_min_docs": "a threshold: larger keeps fewer terms",
    "retrieval.pools.prf_weight": "a weight",
    "retrieval.pools.w_prf": "a weight",
    "retrieval.pools.w_test_files": "a weight",
    "retrieval.pools.test_files_subject": "on narrows when the test-file list runs",
    # (a pattern: a quoted value after a name ending in "tokens" reads as a token to the scanner)
    "retrieval.compaction.min_excerpt_*": "a floor: larger keeps fewer excerpts",
    # the thresholds that choose a route (name_max_words and subject_max_words bound a lookup)
    "retrieval.routing.short_question_words": "a threshold choosing the route",
    "retrieval.routing.issue_min_words": "a threshold choosing the route",
    "retrieval.routing.issue_min_lines": "a threshold choosing the route",
    "retrieval.routing.long_question_words": "a threshold choosing the route",
    "retrieval.routing.statement_min_words": "a threshold choosing the route",
    "retrieval.routing.change_min_words": "a threshold choosing the route",
    "retrieval.routing.name_min_chars": "a threshold: larger looks up fewer names",
    "retrieval.file_defs.name_weight": "a weight",
    "retrieval.file_defs.body_norm": "a damping constant",
    "retrieval.file_defs.min_score": "a score threshold",
    "retrieval.file_defs.lead": "a placement",
    "retrieval.file_defs.long_forms": "which words match in a definition already read",
    "retrieval.file_defs.descriptive_words": "a threshold: larger treats fewer questions so",
    "retrieval.file_defs.over_lead": "a score ratio",
    "retrieval.file_defs.lead_rank_cost": "a score cost",
    "retrieval.file_defs.lead_agreed": "a placement",
    "retrieval.file_defs.depth_lead": "picks moved forward: an order, no more evidence",
    "retrieval.file_defs.depth_at": "a place in the order",
    "retrieval.file_defs.depth_over": "a score ratio",
    "retrieval.file_defs.depth_tests": "which picks may move, not how many",
    "retrieval.file_defs.depth_name_weight": "a weight",
    "retrieval.file_defs.depth_repeats": "on narrows which places a pick takes",
    "retrieval.file_defs.reach_min": "a score threshold",
    "retrieval.file_defs.reach_lead": "a placement",
    "retrieval.file_defs.recut": "cut items compete for the same places: the budget never grows",
    "retrieval.file_defs.weak_channels": "a threshold of channel votes",
    "retrieval.file_defs.weak_trades": "places traded: an order, no more evidence",
    "retrieval.file_defs.vote_prf_weight": "a weight",
    "retrieval.file_defs.vote_weight": "a weight",
    "retrieval.file_defs.vote_k": "the vote's rank constant: smoothing, no count",
    "retrieval.callees.min_score": "a score threshold",
    "retrieval.callees.ratio": "a score ratio",
    "retrieval.ranker.select_*": "a weight of the pool's cheap score",
    "retrieval.ranker.lead": "the model's first places before the spread: an order",
    "retrieval.ranker.keep_text": "which item leads: an order",
    "retrieval.ranker.keep_file": "a score margin",
    "retrieval.ranker.keep_frame": "which item leads: an order",
}
# A route's own bound left unset (None) falls back to the retrieval setting of the same name.
_ROUTE_PREFIX = "retrieval.routes."


class Raised(NamedTuple):
    """A repository value dropped because it raised a limit."""

    name: str  # dotted setting
    given: Any
    limit: Any  # the value in force before the repository's config


def is_lower_only(dotted: str) -> bool:
    return any(fnmatch.fnmatchcase(dotted, pattern) for pattern in LOWER_ONLY)


def _number(value: Any) -> float | None:
    """A value as a number to compare (a bool counts as 0/1, a numeric string as its number),
    None when it is not one (the settings' validation reports it)."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _at(baseline: Mapping[str, Any], dotted: str) -> Any:
    node: Any = baseline
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _limit(baseline: Mapping[str, Any], dotted: str) -> Any:
    limit = _at(baseline, dotted)
    if limit is None and dotted.startswith(_ROUTE_PREFIX):
        limit = _at(baseline, "retrieval." + dotted.rsplit(".", 1)[-1])
    return limit


def lower_only(dotted: str, value: Any, baseline: Mapping[str, Any]) -> tuple[Any, list[Raised]]:
    """`value` (a repository's, for setting `dotted`) with every limit it raises dropped: a
    table keeps its other keys. `baseline` is the config before the repository's (dumped).
    Returns (kept value, or `DROPPED` for a leaf that raised its limit; the dropped)."""
    if isinstance(value, Mapping):
        kept: dict[str, Any] = {}
        raised: list[Raised] = []
        for key, item in value.items():
            sub, dropped = lower_only(f"{dotted}.{key}", item, baseline)
            raised.extend(dropped)
            if sub is not DROPPED:
                kept[key] = sub
        return kept, raised
    if not is_lower_only(dotted):
        return value, []
    given, limit = _number(value), _number(_limit(baseline, dotted))
    if given is not None and limit is not None and given > limit:
        return DROPPED, [Raised(dotted, value, _limit(baseline, dotted))]
    return value, []


def merge_tables(under: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`over` laid on `under`, table by table: what `over` does not name stays."""
    merged = dict(under)
    for key, value in over.items():
        below = merged.get(key)
        merged[key] = (merge_tables(below, value) if isinstance(value, Mapping)
                       and isinstance(below, Mapping) else value)
    return merged


class _Dropped:
    def __repr__(self) -> str:
        return "DROPPED"


DROPPED: Any = _Dropped()
