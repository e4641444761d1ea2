"""The corpus's repository list (`data/evals/corpus_repos.json`): validation, the split rule
and the pinning rule, both fixed before anything was measured.

Split rule (by repository, never by case): repositories are grouped by language family
(python; javascript and typescript; java; go; rust). Within a family they are ordered by
`hash_obj(["corpus-split", seed, "owner/name"])`; the first ceil(20%) go to `test`, the next
ceil(15%) to `validation`, the rest to `train`. The repositories the history benchmark holds
out (`FORCED_TEST`) take their family's first test places. The list stores each repository's
split and loading it checks that the stored split is the rule's.

Pinning rule: U (`until`) is the snapshot's HEAD when pinned; R (`revision`, the indexed
revision) is U's first-parent ancestor min(`PIN_WINDOW`, n // 2) steps back, n being the
length of U's first-parent line. Cases come from R..U, history features from R's ancestors.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from evals.reserved import names_reserved
from helix.core.errors import BadPathError, ConfigError
from helix.core.git import run_git
from helix.core.hashing import hash_obj
from helix.core.schemas import Frozen

Split = Literal["train", "validation", "test"]
SPLITS: tuple[Split, ...] = ("train", "validation", "test")
LANGUAGES = {"python": "python", "javascript": "js", "typescript": "js", "java": "java",
             "go": "go", "rust": "rust"}  # language -> family
TEST_SHARE = 0.20
VALIDATION_SHARE = 0.15
SPLIT_SALT = "corpus-split"
PIN_WINDOW = 800  # first-parent commits between R and U at most
REV_LIST_TIMEOUT_S = 120.0
# Held out by `helix eval history` (data/evals/history_repos.json): test split only.
FORCED_TEST = frozenset({"mkdocs/mkdocs", "wntrblm/nox"})
# SWE-QA's repositories are the natural-question dev set: never in the corpus.
DEV_SET = frozenset({"reflex", "sqlfluff", "streamlink", "shiro", "strata", "fineract"})
_SOURCE = re.compile(r"^github:([A-Za-z0-9][A-Za-z0-9_.-]{0,38})/"
                     r"([A-Za-z0-9][A-Za-z0-9_.-]{0,99})$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


class RepoEntry(Frozen):
    name: str
    source: str  # github:owner/name
    language: str  # the main language (a key of LANGUAGES)
    revision: str  # R: the indexed revision
    until: str  # U: the last commit cases are taken from
    split: Split


class RepoList(Frozen):
    description: str
    split_rule: str
    split_seed: int
    pin_rule: str
    repos: tuple[RepoEntry, ...]


def owner_name(source: str) -> str:
    """`owner/name` of a `github:owner/name` source (ConfigError otherwise)."""
    match = _SOURCE.match(source)
    if not match:
        raise ConfigError(f"not a github:owner/name source: {source!r}")
    return f"{match.group(1)}/{match.group(2)}"


def family(language: str) -> str:
    try:
        return LANGUAGES[language]
    except KeyError:
        raise ConfigError(f"language {language!r} is not one of "
                          f"{', '.join(sorted(LANGUAGES))}") from None


def split_key(seed: int, source: str) -> str:
    return hash_obj([SPLIT_SALT, seed, owner_name(source).lower()])


def assign_splits(repos: Iterable[tuple[str, str]], seed: int) -> dict[str, Split]:
    """source -> split for (source, language) pairs, by the rule in the module docstring."""
    groups: dict[str, list[str]] = {}
    for source, language in repos:
        groups.setdefault(family(language), []).append(source)
    out: dict[str, Split] = {}
    for sources in groups.values():
        order = sorted(sources, key=lambda s: (split_key(seed, s), s))
        forced = [s for s in order if owner_name(s).lower() in FORCED_TEST]
        rest = [s for s in order if s not in forced]
        n_test = max(math.ceil(len(order) * TEST_SHARE), len(forced))
        n_val = math.ceil(len(order) * VALIDATION_SHARE)
        ranked = forced + rest
        for i, source in enumerate(ranked):
            out[source] = "test" if i < n_test else (
                "validation" if i < n_test + n_val else "train")
    return out


def _entry(raw: object, index: int) -> RepoEntry:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"repository {index} of the list is not an object")
    try:
        entry = RepoEntry.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"repository {index} of the list: {where}: {first['msg']}") from None
    pair = owner_name(entry.source)
    if not _NAME.match(entry.name):
        raise ConfigError(f"repository name {entry.name!r}: lower-case letters, digits, . _ -")
    family(entry.language)
    for label, sha in (("revision", entry.revision), ("until", entry.until)):
        if not _SHA.match(sha):
            raise ConfigError(f"{entry.name}: {label} must be a 40-hex commit id")
    project = pair.split("/", 1)[1].lower()
    if project in DEV_SET or entry.name in DEV_SET:
        raise ConfigError(f"{entry.name}: SWE-QA's dev-set repositories are not corpus data")
    if names_reserved(pair.replace("/", " ")):
        raise ConfigError(f"{entry.name}: {pair} is a reserved project")
    return entry


def check_repos(listing: RepoList) -> RepoList:
    """Unique names and sources, and every stored split equal to the rule's."""
    seen: set[str] = set()
    for entry in listing.repos:
        for key in (entry.name, owner_name(entry.source).lower()):
            if key in seen:
                raise ConfigError(f"{key} is listed twice")
            seen.add(key)
    rule = assign_splits(((e.source, e.language) for e in listing.repos), listing.split_seed)
    for entry in listing.repos:
        if rule[entry.source] != entry.split:
            raise ConfigError(f"{entry.name}: split {entry.split!r} is not the rule's "
                              f"({rule[entry.source]!r})")
    return listing


def load_repo_list(path: Path) -> RepoList:
    """The validated list (ConfigError in one line for anything wrong)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadPathError(f"repository list not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadPathError(f"cannot read the repository list {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(raw, Mapping) or not isinstance(raw.get("repos"), list):
        raise ConfigError(f"{path}: expected an object with a list 'repos'")
    if not raw["repos"]:
        raise ConfigError(f"{path} lists no repository")
    repos = tuple(_entry(item, i) for i, item in enumerate(raw["repos"]))
    seed = raw.get("split_seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError(f"{path}: split_seed must be an integer")
    listing = RepoList(description=str(raw.get("description", "")),
                       split_rule=str(raw.get("split_rule", "")), split_seed=seed,
                       pin_rule=str(raw.get("pin_rule", "")), repos=repos)
    return check_repos(listing)


def mirror_dir(mirrors: Path, source: str) -> Path:
    """The git directory of a fetched snapshot: `<mirrors>/<owner>+<name>/repo` (the fetch
    layout) or `<mirrors>/<owner>+<name>` (a bare clone)."""
    base = mirrors / owner_name(source).replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise BadPathError(f"no snapshot of {source} under {mirrors} "
                       f"(expected {base}/repo, a git directory)")


def first_parent_line(gitdir: Path, head: str) -> list[str]:
    out = run_git(gitdir, "rev-list", "--first-parent", "--end-of-options", head,
                  timeout=REV_LIST_TIMEOUT_S)
    if out is None:
        raise ConfigError(f"cannot list the first-parent history of {head} in {gitdir}")
    return out.decode("ascii", "replace").split()


def pin(gitdir: Path, head: str = "HEAD", window: int = PIN_WINDOW) -> tuple[str, str]:
    """(R, U) by the pinning rule in the module docstring."""
    line = first_parent_line(gitdir, head)
    if len(line) < 2:
        raise ConfigError(f"{gitdir}: too short a history to pin")
    return line[min(window, len(line) // 2)], line[0]


def check_pinned(gitdir: Path, entry: RepoEntry) -> None:
    """R is on U's first-parent line (ConfigError otherwise, e.g. an older snapshot)."""
    if entry.revision not in set(first_parent_line(gitdir, entry.until)):
        raise ConfigError(f"{entry.name}: revision {entry.revision[:12]} is not on the "
                          f"first-parent line of {entry.until[:12]} in {gitdir}")


def pinned_list(pairs: Sequence[tuple[str, str, str]], mirrors: Path, seed: int,
                description: str) -> dict[str, object]:
    """A new list for (name, source, language) triples: R and U pinned from each snapshot's
    HEAD, splits by the rule."""
    splits = assign_splits(((s, lang) for _, s, lang in pairs), seed)
    repos = []
    for name, source, language in sorted(pairs):
        revision, until = pin(mirror_dir(mirrors, source))
        repos.append({"name": name, "source": source, "language": language,
                      "revision": revision, "until": until, "split": splits[source]})
    return {"description": description, "split_rule": SPLIT_RULE_TEXT, "split_seed": seed,
            "pin_rule": PIN_RULE_TEXT, "repos": repos}


SPLIT_RULE_TEXT = (
    "By repository. Group by language family (python; javascript+typescript; java; go; rust); "
    "order each family by hash_obj(['corpus-split', split_seed, 'owner/name'.lower()]); the "
    f"first ceil({TEST_SHARE:.0%}) are test, the next ceil({VALIDATION_SHARE:.0%}) validation, "
    "the rest train; mkdocs/mkdocs and wntrblm/nox (held out by `helix eval history`) take "
    "their family's first test places. Fixed before any measurement (evals/corpus/repos.py).")
PIN_RULE_TEXT = (
    "until = the snapshot's HEAD when pinned; revision = until's first-parent ancestor "
    f"min({PIN_WINDOW}, n // 2) steps back (n: the first-parent line's length). Cases: "
    "non-merge commits in revision..until; history features: ancestors of revision only.")
