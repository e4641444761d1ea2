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

Every weight, budget and threshold lives in a settings model, never inline, with its valid
range (no NaN or infinity anywhere): the sections the evidence and the answer depend on in
`helix.core.section_settings` (imported from here), the others in their own
`helix/core/*_settings.py`; `HelixConfig` assembles them. A bad value is a one-line
`ConfigError` naming the setting, the value and where it came from. The config is frozen; its
`evidence_hash` (index + retrieval sections) goes into every index manifest and every envelope,
so a change of settings is never confused with a change of code or repository. The answer
contract's thresholds (`synthesis.absence`) are in it too.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from helix.core import home
from helix.core.errors import ConfigError
from helix.core.hashing import hash_obj
from helix.core.history_settings import DriftSettings, StaleDocsSettings
from helix.core.repo_limits import DROPPED, lower_only, merge_tables
from helix.core.scale_settings import ClusterSettings, StateSettings
from helix.core.schemas import FrozenSettings
from helix.core.section_settings import (
    RUNTIME_INDEX_SETTINGS,
    AbsencePolicy,
    ContinuitySettings,
    IndexSettings,
    RetrievalSettings,
    SynthesisSettings,
)
from helix.core.server_settings import ServerSettings

# The section models are imported from here (helix.core.section_settings holds them).
__all__ = ["ENV_ALIASES", "REPO_FORBIDDEN", "REPO_SECTIONS", "RUNTIME_INDEX_SETTINGS",
           "AbsencePolicy", "ContinuitySettings", "HelixConfig", "IndexSettings",
           "RetrievalSettings", "SynthesisSettings", "helix_home", "load_config",
           "resolve_config"]

_Frozen = FrozenSettings


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
        return hash_obj({"index": self._index_content(), "retrieval": self.retrieval.hashed(),
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
    "retrieval.ranker.question_manifest": "it decides which model file is loaded",
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
    """The repository's tables (.helix.toml, pyproject's [tool.helix]), each merged against
    the settings in force before either (validated only when there is a table to merge)."""
    tables: list[tuple[Mapping[str, Any], str]] = []
    repo_file = repo_root / ".helix.toml"
    if repo_file.is_file():
        table = _read_toml(repo_file).get("helix", {})
        if isinstance(table, Mapping):
            tables.append((table, str(repo_file)))
    pyproject = repo_root / "pyproject.toml"
    if pyproject.is_file():
        try:
            tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
            tool = {}  # someone else's broken pyproject is not our config error
        helix_table = tool.get("helix", {}) if isinstance(tool, dict) else {}
        if isinstance(helix_table, Mapping) and helix_table:
            tables.append((helix_table, f"{pyproject} [tool.helix]"))
    if tables:
        baseline = _baseline(loaded)
        for table, origin in tables:
            _merge_repo(loaded, table, origin, baseline)


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
    """Where all Helix state lives: `$HELIX_HOME`, else the per-user cache directory
    (`helix.core.home.helix_home`, which the model helper's early start reads without the
    settings)."""
    return home.helix_home(env)
