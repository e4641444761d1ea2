"""Every repository of the list, mined once (cached per repository: resumable), then one case
list and its manifest.

    <work>/<name>.json   one repository's cases and drop counts, keyed by everything they
                         depend on (the list entry, the limits, the digest of the code that
                         decides them); a killed build resumes at the first repository
                         without a current file
    <out>/cases.jsonl    every case, one canonical JSON object a line, by (split, repo,
                         commit time, commit)
    <out>/manifest.json  the repositories with their revisions and splits, the rules and
                         limits, drops per reason, counts per split and language, and the
                         corpus hash (`digest` of cases.jsonl's bytes)
Both outputs are written whole or not at all; the same inputs give the same bytes.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.corpus.mine import CorpusCase, RepoCases, mine_repo
from evals.corpus.repos import SPLITS, RepoEntry, RepoList, check_pinned, mirror_dir
from evals.corpus.rules import Limits, drop_order
from helix.core.config import IndexSettings
from helix.core.errors import ConfigError
from helix.core.hashing import canonical_json, digest, hash_obj
from helix.outfile import write_out

ROOT = Path(__file__).resolve().parent.parent.parent
CASES_FILE = "cases.jsonl"
MANIFEST_FILE = "manifest.json"
# The code whose change changes the cases (the cache key includes its digest).
DECIDING_FILES = ("evals/corpus/defs.py", "evals/corpus/mine.py", "evals/corpus/patches.py",
                  "evals/corpus/rules.py", "evals/history/rules.py", "evals/history/mine.py",
                  "indexers/symbols.py", "indexers/languages.py", "indexers/chunkers.py",
                  "data/reserved_projects.txt")


@cache
def code_digest() -> str:
    files = [*DECIDING_FILES, *sorted(p.relative_to(ROOT).as_posix()
                                      for p in (ROOT / "indexers" / "queries").glob("*.scm"))]
    return digest(b"".join(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0"
                           for name in files))


def _settings() -> IndexSettings:
    return IndexSettings()


def cache_key(entry: RepoEntry, limits: Limits) -> str:
    settings = _settings()
    return hash_obj({"entry": entry, "limits": limits, "code": code_digest(),
                     "parse": [settings.max_parse_bytes, settings.max_file_symbols]})


def _load_cached(path: Path, key: str) -> RepoCases | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("key") != key:
            return None
        return RepoCases.model_validate(raw["result"])
    except (OSError, ValueError, KeyError, TypeError, ValidationError):
        return None  # missing, stale or damaged: mined again


def repo_cases(entry: RepoEntry, mirrors: Path, work: Path, limits: Limits,
               progress: Callable[[str], None] | None = None) -> tuple[RepoCases, float, bool]:
    """(cases, seconds, whether they came from the cache) of one repository."""
    key = cache_key(entry, limits)
    path = work / f"{entry.name}.json"
    cached = _load_cached(path, key)
    if cached is not None:
        return cached, 0.0, True
    gitdir = mirror_dir(mirrors, entry.source)
    check_pinned(gitdir, entry)
    started = time.monotonic()
    result = mine_repo(gitdir, entry, limits, _settings(), progress)
    seconds = time.monotonic() - started
    work.mkdir(parents=True, exist_ok=True)
    payload = {"key": key, "seconds": round(seconds, 2), "result": result.model_dump(mode="json")}
    write_out(path, canonical_json(payload).encode("utf-8"))
    return result, seconds, False


def case_order(case: CorpusCase) -> tuple[int, str, int, str]:
    return (SPLITS.index(case.split), case.repo, case.committed, case.commit)


def cases_bytes(cases: Sequence[CorpusCase]) -> bytes:
    return b"".join(canonical_json(c).encode("utf-8") + b"\n"
                    for c in sorted(cases, key=case_order))


def _counts(cases: Sequence[CorpusCase]) -> dict[str, Any]:
    by_split = Counter(c.split for c in cases)
    by_language = Counter(c.language for c in cases)
    by_both: dict[str, dict[str, int]] = {}
    for c in cases:
        by_both.setdefault(c.split, Counter())[c.language] += 1
    return {"cases": len(cases), "by_split": dict(sorted(by_split.items())),
            "by_language": dict(sorted(by_language.items())),
            "by_split_language": {k: dict(sorted(v.items())) for k, v in sorted(by_both.items())},
            "names_target": sum(c.names_target for c in cases),
            "exact": sum(c.exact for c in cases),
            "targets": sum(len(c.targets) for c in cases)}


def manifest(listing: RepoList, results: Sequence[RepoCases], limits: Limits,
             data: bytes) -> dict[str, Any]:
    by_name = {r.name: r for r in results}
    cases = [c for r in results for c in r.cases]
    dropped: Counter[str] = Counter()
    for r in results:
        dropped.update(r.dropped)
    order = list(drop_order())
    repos = []
    for entry in listing.repos:
        r = by_name[entry.name]
        repos.append({**entry.model_dump(mode="json"), "commits": r.commits, "merges": r.merges,
                      "eligible": r.eligible, "cases": len(r.cases),
                      "names_target": sum(c.names_target for c in r.cases),
                      "dropped": r.dropped})
    from evals.corpus import rules as rules_module

    return {
        "description": "Training corpus of issue 31 (part 1): commit message -> the definitions "
                       "the commit changed, at the repository's indexed revision. Built by "
                       "`helix eval corpus build`; messages are the only copied text.",
        "cases_file": CASES_FILE, "corpus_hash": digest(data),
        "split_rule": listing.split_rule, "split_seed": listing.split_seed,
        "pin_rule": listing.pin_rule, "limits": limits.model_dump(mode="json"),
        "rules": (rules_module.__doc__ or "").strip(), "code_digest": code_digest(),
        "counts": _counts(cases),
        "dropped": {k: dropped[k] for k in sorted(dropped, key=lambda k: (
            order.index(k) if k in order else len(order), k))},
        "repos": repos,
    }


# The repositories mined elsewhere (`evals.cluster.corpus_fan_out`: one Ray task each, under a
# `work` every worker sees): (entries, mirrors, work, limits) -> repo_cases' triples, in order.
MineMap = Callable[[Sequence[RepoEntry], Path, Path, Limits],
                   list[tuple[RepoCases, float, bool]]]


def build(listing: RepoList, mirrors: Path, work: Path, out: Path, limits: Limits | None = None,
          progress: Callable[[str], None] | None = None,
          mine_map: MineMap | None = None) -> dict[str, Any]:
    """Mine (or reuse) every repository, here one after another or through `mine_map`, then
    write the case list and the manifest (the same bytes either way: a repository's cases
    depend only on it, and they are merged in the list's order)."""
    limits = limits or Limits()
    if not listing.repos:
        raise ConfigError("the repository list is empty")
    for entry in listing.repos:  # a missing snapshot fails before any long run
        mirror_dir(mirrors, entry.source)
    results: list[RepoCases] = []

    def said(entry: RepoEntry, mined: tuple[RepoCases, float, bool]) -> None:
        result, seconds, cached = mined
        results.append(result)
        if progress:
            progress(f"{entry.name} [{entry.split}] {len(result.cases)} cases "
                     f"({result.eligible} eligible of {result.commits} commits) "
                     + ("cached" if cached else f"{seconds:.1f}s"))

    if mine_map is None:
        for entry in listing.repos:
            said(entry, repo_cases(entry, mirrors, work, limits, progress))
    else:
        for entry, mined in zip(listing.repos, mine_map(listing.repos, mirrors, work, limits),
                                strict=True):
            said(entry, mined)
    data = cases_bytes([c for r in results for c in r.cases])
    result_manifest = manifest(listing, results, limits, data)
    out.mkdir(parents=True, exist_ok=True)
    write_out(out / CASES_FILE, data)
    write_out(out / MANIFEST_FILE,
              (json.dumps(result_manifest, indent=1, sort_keys=True, ensure_ascii=False)
               + "\n").encode("utf-8"))
    return result_manifest


def load_cases(path: Path) -> list[CorpusCase]:
    """The case list (ConfigError in one line for a malformed line)."""
    out: list[CorpusCase] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read the case list {path}: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(CorpusCase.model_validate_json(line))
        except ValidationError:
            raise ConfigError(f"{path}:{number}: not a corpus case") from None
    return out
