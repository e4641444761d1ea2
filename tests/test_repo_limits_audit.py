"""Every setting a repository's config may set is judged: a limit it may only lower
(`helix.core.repo_limits.LOWER_ONLY`), a setting it may not set at all (`REPO_FORBIDDEN`), or
one judged no limit (`NOT_LIMITS`, each with its reason). Round 30 found settings added over
many rounds (`retrieval.pools.test_files`, up to 1000 files looked for) that a repository
could raise; the walk below fails on the next one nobody classified.
"""

from __future__ import annotations

import fnmatch
import re
import types
import typing
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from helix.core.config import REPO_FORBIDDEN, REPO_SECTIONS, HelixConfig, resolve_config
from helix.core.repo_limits import LOWER_ONLY, NOT_LIMITS

RULE = "a repository may lower a limit, never raise it"

# the limits round 30 added (each could be raised by a repository before)
NEW_LIMITS = (
    "index.history_commits", "index.history_per_def",
    "retrieval.pools.prf_terms", "retrieval.pools.prf_docs", "retrieval.pools.test_files",
    "retrieval.pools.verb_members", "retrieval.compaction.chars_per_token",
    "retrieval.file_defs.enabled", "retrieval.file_defs.lead_files", "retrieval.file_defs.reach",
    "retrieval.file_defs.callees", "retrieval.file_defs.vote_terms",
    "retrieval.file_defs.vote_files",
    "retrieval.ranker.max_candidates", "retrieval.ranker.files", "retrieval.ranker.callees",
    "retrieval.ranker.history_k", "retrieval.ranker.considered", "retrieval.ranker.questions",
    "retrieval.respell",
)
# a name that reads as a bound: such a setting of any numeric type must be classified
BOUND_WORDS = re.compile(r"(^|_)(size|count|depth|budget|limit|pool|max|top|k|files|terms|"
                         r"steps|timeout|seconds|ms|bytes|chars|lines|nodes|docs|seeds|leads|"
                         r"candidates|considered|commits|tokens|words|evidence|anchors)(_|$)")
# the repository sections' text settings: none says where data is sent (the sections a
# repository may set hold no endpoint, URL, export target or bind address)
TEXT_SETTINGS = {
    "index.embed_model": "forbidden: which model files are loaded",
    "index.trees": "globs inside the repository (one leaving it is dropped)",
    "retrieval.tree_walk_mode": "an enum",
    "retrieval.routes.*.seed": "moves (an enum), bounded by max_steps and the budgets",
    "retrieval.routes.*.expand": "moves (an enum), bounded by max_steps and the budgets",
    "retrieval.routes.*.widen": "moves (an enum), bounded by max_steps and the budgets",
    "retrieval.file_defs.routes": "route names",
    "retrieval.file_defs.descriptive_routes": "route names",
    "retrieval.file_defs.lead_model_digest": "a digest pinning a shipped model",
    "retrieval.file_defs.swap_model_digest": "a digest pinning a shipped model",
    "retrieval.callees.routes": "route names",
    "retrieval.ranker.mode": "an enum",
    "retrieval.ranker.manifest": "forbidden: which model file is loaded",
    "retrieval.ranker.digest": "a digest pinning a shipped model",
    "retrieval.ranker.question_manifest": "forbidden: which model file is loaded",
    "retrieval.ranker.question_digest": "a digest pinning a shipped model",
}


def _leaves(model: type[BaseModel], prefix: str) -> Iterator[tuple[str, Any]]:
    """(dotted name, annotation) of every leaf setting; a mapping's key is `*`."""
    for name, field in model.model_fields.items():
        dotted, annotation = f"{prefix}.{name}", field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _leaves(annotation, dotted)
            continue
        if typing.get_origin(annotation) is dict:
            value = typing.get_args(annotation)[1]
            if isinstance(value, type) and issubclass(value, BaseModel):
                yield from _leaves(value, f"{dotted}.*")
            else:
                yield f"{dotted}.*", value
            continue
        yield dotted, annotation


def _kinds(annotation: Any) -> set[type]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return set().union(*(_kinds(a) for a in typing.get_args(annotation)))
    return {annotation} if isinstance(annotation, type) else {str}


def _repo_settings() -> list[tuple[str, set[type]]]:
    return [(name, _kinds(annotation)) for section in REPO_SECTIONS
            for name, annotation in _leaves(type(getattr(HelixConfig(), section)), section)]


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def test_every_numeric_setting_a_repository_sets_is_judged() -> None:
    names = {name for name, _ in _repo_settings()}
    assert "retrieval.pools.test_files" in names and "retrieval.routes.*.rrf_k" in names
    unjudged = []
    for name, kinds in _repo_settings():
        if name in REPO_FORBIDDEN or not kinds & {int, bool, float}:
            continue
        must = kinds & {int, bool} or BOUND_WORDS.search(name.rsplit(".", 1)[-1])
        limit, not_limit = _matches(name, LOWER_ONLY), _matches(name, NOT_LIMITS)
        assert not (limit and not_limit), f"{name} is both a limit and no limit"
        if must and not (limit or not_limit):
            unjudged.append(name)
    assert unjudged == [], ("classify each in helix.core.repo_limits: LOWER_ONLY if a larger "
                            f"value (or on) makes Helix do more, else NOT_LIMITS: {unjudged}")


def test_every_no_limit_names_a_setting() -> None:
    names = [name for name, _ in _repo_settings()]
    for pattern in NOT_LIMITS:
        assert any(fnmatch.fnmatchcase(name, pattern) for name in names), pattern


def test_no_text_setting_a_repository_sets_says_where_data_goes() -> None:
    texts = sorted(name for name, kinds in _repo_settings() if not kinds & {int, bool, float})
    assert texts == sorted(TEXT_SETTINGS)
    assert set(REPO_SECTIONS) == {"index", "retrieval"}


def _table(dotted: str, value: object, prefix: str) -> str:
    section, key = dotted.rsplit(".", 1)
    shown = str(value).lower() if isinstance(value, bool) else str(value)
    return f"[{prefix}{section}]\n{key} = {shown}\n"


@pytest.mark.parametrize("dotted", NEW_LIMITS)
def test_a_repository_cannot_raise_the_new_limits(dotted: str, tmp_path: Path,
                                                  helix_home: Path) -> None:
    default: Any = HelixConfig().model_dump()
    for part in dotted.split("."):
        default = default[part]
    low, high = (False, True) if isinstance(default, bool) else (default, default + 1)
    (helix_home / "config.toml").write_text(_table(dotted, low, ""), encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".helix.toml").write_text(_table(dotted, high, "helix."), encoding="utf-8")
    config, notices = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    kept: Any = config.model_dump()
    for part in dotted.split("."):
        kept = kept[part]
    assert kept == low
    assert len(notices) == 1 and notices[0].startswith(f"ignored {dotted} = ")
    assert RULE in notices[0] and f"(in force: {low!r})" in notices[0]
    # lowering stays the repository's to do
    (repo / ".helix.toml").write_text(_table(dotted, low, "helix."), encoding="utf-8")
    assert resolve_config(repo, env={"HELIX_HOME": str(helix_home)})[1] == ()
