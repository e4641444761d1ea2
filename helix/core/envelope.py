"""The answer envelope: what one question produced, from route to answer.

Written by the controller (everything up to `answer` in a dry run), completed by synthesis
(`answer`, `answer_mode`, `llm_steps`, `fallback_reason`, `citations`), stored in the run log,
read by export, evals and the continuity lanes. Documented field by field in the README.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from helix.core.schemas import Frozen

Route = Literal["definition", "location", "explanation", "relation", "value_check", "usage",
                "doc_summary", "issue"]
StopReason = Literal["coverage_ok", "budget_exhausted", "dominance_split", "no_new_evidence"]
EvidenceKind = Literal["definition", "contract", "entrypoint", "test", "doc", "code", "tree"]
AnswerMode = Literal["dry_run", "deterministic", "llm", "fallback", "clarify", "continuity"]
Phase = Literal["seed", "expand", "widen", "dominance", "align"]


class ControllerStep(Frozen):
    index: int  # 0-based
    phase: Phase
    queries: tuple[str, ...]
    channels: tuple[str, ...]
    new_chunk_ids: tuple[str, ...]  # evidence first seen in this step, in rank order
    coverage: float  # slot coverage after this step, 0..1
    covered_slots: tuple[str, ...]
    note: str = ""


class EvidenceItem(Frozen):
    id: str  # stable hash of (path, start_line, end_line, content_hash)
    path: str
    start_line: int
    end_line: int
    kind: EvidenceKind
    score: float
    content_hash: str
    node_id: str
    reasons: tuple[str, ...]  # why it was kept ("bm25#2", "defines FooBar", "tests foo")
    # the same, as typed codes (controller.reasons.ReasonCode): what code decides on
    reason_codes: tuple[str, ...] = ()
    heading: str | None = None
    symbol: str | None = None
    text: str = ""  # the span's text (compacted excerpt)
    chunk_id: str = ""

    # the repository it comes from, in a question across several (`helix.multi_repo`); left
    # out of the JSON (and so of every hash) when there is one repository
    repo: str | None = None

    @model_serializer(mode="wrap")
    def _without_repo(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        if data.get("repo") is None:
            data.pop("repo", None)
        return data

    @property
    def context_only(self) -> bool:
        """Kept only as more of a file the evidence leads with, for a model to read
        (`in_file_more`): never an answer's lead, never in a session's numbered list."""
        return bool(self.reason_codes) and set(self.reason_codes) <= {"in_file_more"}


class HitRef(Frozen):
    chunk_id: str
    path: str
    start_line: int
    end_line: int
    score: float
    channels: tuple[str, ...]
    heading: str | None = None
    symbol: str | None = None


class ProofSpan(Frozen):
    doc_chunk_id: str  # the doc span that names the symbol
    symbol: str
    path: str
    start_line: int
    end_line: int
    node_id: str
    content_hash: str
    relation: Literal["definition", "usage", "test"]


class Intent(Frozen):
    route: Route
    slots: tuple[str, ...]
    terms: tuple[str, ...]
    path_hints: tuple[str, ...] = ()
    scope: str | None = None  # path scope ("tests/")
    sense: str | None = None  # chosen sense when an ambiguous term was resolved


class SlotCoverage(Frozen):
    required: tuple[str, ...]
    covered: tuple[str, ...]
    missing: tuple[str, ...]
    ratio: float
    by_slot: dict[str, tuple[str, ...]] = Field(default_factory=dict)  # slot -> evidence ids


class Items(Frozen):
    intent: Intent
    selected_trees: tuple[str, ...]
    doc_section_hits: tuple[HitRef, ...]
    repo_search_hits: tuple[HitRef, ...]
    proof_spans: tuple[ProofSpan, ...]
    slot_coverage_report: SlotCoverage


class ClarifyOption(Frozen):
    label: str
    sense: str
    evidence: tuple[EvidenceItem, ...]
    score: float = 0.0


class Clarify(Frozen):
    question: str
    options: tuple[ClarifyOption, ...]  # exactly two
    searched_terms: tuple[str, ...]
    top_candidates: tuple[str, ...]  # "path" or "path#heading"


class TreeWalkNode(Frozen):
    node_id: str
    title: str
    depth: int
    kind: str
    bound_evidence: tuple[str, ...] = ()  # evidence ids bound to this node


class TreeWalk(Frozen):
    mode: Literal["root->anchor", "full_path"]
    anchors: tuple[str, ...]
    nodes: tuple[TreeWalkNode, ...]
    binding_rate: float  # share of evidence items bound to a walked node
    primary_tree_id: str | None = None


class Citation(Frozen):
    ref: str  # the citation id used in the prompt ("E3")
    evidence_id: str
    path: str
    start_line: int
    end_line: int


class DenseState(Frozen):
    """The index's dense vectors when the question was answered: `vectors` of the `total`
    cards selected for embedding (a lexical-first build fills them in the background), and
    how much of the repository that covers: `eligible` chunks have an embed card (what an
    unlimited budget embeds) of `chunks` in all; `all`: the index embeds every eligible one
    (`helix index --embed-all`). None where the index does not record it."""

    vectors: int
    total: int
    complete: bool
    eligible: int | None = None
    chunks: int | None = None
    all: bool = False
    # which vectors answered (a digest of the dense parts): two answers with the same
    # generation used the same vectors, while a background worker adds more
    generation: str | None = None


class ReferenceSite(Frozen):
    """One resolved reference to the symbol a usage question names (what `helix find`
    counts): where it is, the definition it stands in (None at module level), its kind."""

    path: str
    line: int
    caller: str | None
    kind: str  # call, import, attribute, name, type


class QuestionCut(Frozen):
    """A pasted report longer than the retrieval text: what of it was searched with and sent.
    `kept` names the parts kept whole (title, first paragraphs, traceback frames and errors,
    code blocks, identifiers); the rest of the `chars` characters was left out."""

    chars: int  # the text as pasted
    kept_chars: int  # the text searched with (the envelope's `question`)
    kept: tuple[str, ...]
    cut_lines: int  # lines of the paste left out whole


class ClockStop(Frozen):
    """Retrieval stopped by its clock safety stop (`retrieval.time_budget_ms`): the work budget
    (steps, evidence) normally decides; on a machine far slower than expected the clock did,
    and the evidence may differ from an unhurried run."""

    elapsed_ms: float  # since the controller started, by the injected clock
    budget_ms: int


class AnswerCut(Frozen):
    """The model's answer went on past `synthesis.max_answer_chars`: its first `kept_chars`
    characters were used, and reading stopped after `read_chars` (the rest was never read)."""

    kept_chars: int
    read_chars: int


class RepoChoice(Frozen):
    """A repository a question across many (`--repos GROUP|all`) was searched in: its place
    in the ranking of every repository's summary, the score, the question's words it holds."""

    name: str
    rank: int
    score: float
    matched: tuple[str, ...] = ()


class RepoRouting(Frozen):
    """Which repositories of a group a question was searched in, and why."""

    group: str
    considered: int  # repositories in the group
    searched: tuple[RepoChoice, ...]
    reason: str


class Envelope(Frozen):
    question: str
    repo_root: str
    repo_rev: str
    index_rev: str  # the built index's hash (lattice_rev)
    index_refreshed: bool = False  # the index was refreshed before this question
    config_hash: str
    route: Route
    slots: tuple[str, ...]
    controller_steps: tuple[ControllerStep, ...]
    stop_reason: StopReason
    items: Items
    item_hashes: dict[str, str]
    evidence: tuple[EvidenceItem, ...]
    clarify: Clarify | None = None
    tree_walk: TreeWalk
    answer_mode: AnswerMode
    answer: str
    citations: tuple[Citation, ...] = ()
    fallback_reason: str | None = None
    llm_steps: int = 0
    model: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    # Which index state answered: None when the index has no dense part (embeddings off);
    # else how many of its cards had vectors (`complete` false: lexical first, dense building).
    # Left out of the JSON when None (envelopes written before it existed read the same).
    dense_state: DenseState | None = None
    # A long paste searched with a part of it (`QuestionCut`); left out of the JSON when None.
    question_cut: QuestionCut | None = None
    # A usage question: every resolved reference to its symbol, as the index has them (the
    # list `helix find` counts); left out of the JSON when empty.
    references: tuple[ReferenceSite, ...] = ()
    # The model's answer was cut at the character cap (`AnswerCut`); left out when None.
    answer_cut: AnswerCut | None = None
    # What the model's accepted answer notes the evidence does not show (the contract's
    # `limits`: "the backoff cap isn't in these snippets"); its gate is then `limited`. Left
    # out of the JSON when empty.
    answer_limits: tuple[str, ...] = ()
    # The clock safety stop ended retrieval (`ClockStop`); left out of the JSON when None.
    clock_stopped: ClockStop | None = None
    # A question across a group of repositories: which were searched and why; left out when
    # None.
    repo_routing: RepoRouting | None = None

    @model_serializer(mode="wrap")
    def _without_unset_state(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        for optional in ("dense_state", "question_cut", "references", "answer_cut",
                         "answer_limits", "clock_stopped", "repo_routing"):
            if not data.get(optional):
                data.pop(optional, None)
        return data
