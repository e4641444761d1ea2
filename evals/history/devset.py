"""The history benchmark's development set (`data/evals/history_repos.json`) as RepoSpecs.

Each repository names its `fetch` source (`github:owner/name`) and the commit it is mined at;
the set gives the seed, limit and since date (a repository may override them). The git
directory is looked for, in order, under `$HELIX_HOME/history/repos/<owner>+<name>.git` and
`<mirrors>/<owner>+<name>/repo` (where `fetch` puts a bare mirror).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.history.run import RepoSpec
from evals.suites import EVALS_DIR
from helix.core.config import helix_home
from helix.core.errors import ConfigError, NotFoundError
from helix.core.schemas import Frozen

DEV_SET = EVALS_DIR / "history_repos.json"
MIRRORS = Path("/work/.mirror")


class DevRepo(Frozen):
    name: str
    kind: str
    source: str
    commit: str
    held_out: bool = False
    seed: int | None = None
    limit: int | None = None
    since: str | None = None


class DevSet(Frozen):
    description: str = ""
    held_out_rule: str = ""
    seed: int
    limit: int
    since: str | None = None
    repos: tuple[DevRepo, ...]


def load(path: Path = DEV_SET) -> DevSet:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        return DevSet.model_validate(data)
    except (OSError, ValueError, ValidationError) as exc:
        raise ConfigError(f"cannot read the dev set {path}: {exc}") from None


def mirror_name(source: str) -> str:
    """`github:owner/name` -> `owner+name`."""
    return source.removeprefix("github:").replace("/", "+")


def locate(repo: DevRepo, mirrors: Path = MIRRORS, home: Path | None = None) -> Path:
    name = mirror_name(repo.source)
    for candidate in ((home or helix_home()) / "history" / "repos" / f"{name}.git",
                      mirrors / name / "repo"):
        if candidate.is_dir():
            return candidate
    raise NotFoundError(f"no clone of {repo.source} (fetch it, or clone it bare into "
                        f"$HELIX_HOME/history/repos/{name}.git)")


def specs(devset: DevSet, mirrors: Path = MIRRORS, home: Path | None = None,
          only: tuple[str, ...] = ()) -> list[RepoSpec]:
    """The RepoSpecs of the set (only the named repositories when `only` is given)."""
    chosen = [r for r in devset.repos if not only or r.name in only]
    unknown = sorted(set(only) - {r.name for r in devset.repos})
    if unknown:
        raise NotFoundError(f"not in the dev set: {', '.join(unknown)}")
    return [RepoSpec(name=r.name, path=str(locate(r, mirrors, home)), rev=r.commit,
                     seed=devset.seed if r.seed is None else r.seed,
                     limit=devset.limit if r.limit is None else r.limit,
                     since=r.since or devset.since, kind=r.kind, held_out=r.held_out,
                     source=r.source) for r in chosen]
