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
)
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
