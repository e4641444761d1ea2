"""Running history cases: move the tree, refresh the index, ask Helix, rank with BM25, score.

Per repository: mine and sample the cases (`mine.py`), then for each case, oldest first, move
the one materialized tree (`$HELIX_HOME/history/<repo-key>/tree`, masked and the owner's only:
`trees.py`) to the commit's parent (its `.git` HEAD too: the history field, when on, reads only
the commits before the parent),
refresh Helix's index of it (incremental: only changed files are parsed, embeddings come from
the shared cache), run the real dry-run controller (`llm_steps == 0`) on the question and rank
the tree's code files with whole-file BM25 on the same question. Helix is asked as `helix ask
--dry-run --wait` asks (`helix.service.ask`, the one entry point): its time per case is the
controller run, the question's reading included (the index refresh is reported apart, as
`index`); BM25's is its ranking,
including the rebuild of its index over the current tree. The tree lives only while the
repository's cases run: it is removed when they end, also on an error, Ctrl-C or SIGTERM (and
one left by a killed run is removed before the next one starts).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field

from evals.corpus.history_git import drop_head, point_head
from evals.history.bm25 import BM25Tree
from evals.history.mine import HistoryCase, Mined, git_dir, mine, repo_key
from evals.history.rules import MAX_QUESTION_CHARS, MAX_SOURCE_FILES, MIN_WORDS
from evals.history.score import SystemScore, score, summarize
from evals.history.trees import TreeWriter, terminate_as_interrupt
from evals.metrics import percentile, ranked_items
from helix.core.config import load_config
from helix.core.envelope import Envelope
from helix.core.errors import IndexLockedError, TreeBoundError, TreeError
from helix.core.paths import in_home, user_path
from helix.core.schemas import Frozen
from indexers.locking import acquire

Progress = Callable[[str], None]
HISTORY_DIR = "history"
TREE_LOCK = "lock"  # one run at a time moves a repository's tree
TREE_LOCK_TIMEOUT_S = 1.0
QUESTION_HEAD = 120
MS_PER_S = 1000


class RepoSpec(Frozen):
    name: str | None = None  # default: from the repository's directory
    path: str  # a work tree, a directory inside one, or a (bare) git directory
    rev: str = "HEAD"
    seed: int = 0
    limit: int | None = 40
    since: str | None = None  # YYYY-MM-DD
    kind: str = ""
    held_out: bool = False
    source: str = ""  # where it came from, e.g. github:owner/name


class CaseRun(Frozen):
    id: str
    commit: str
    parent: str
    committed: int
    question_head: str
    question_chars: int
    truncated: bool
    gold: tuple[str, ...]
    helix: SystemScore
    bm25: SystemScore
    route: str = ""
    stop_reason: str = ""
    llm_steps: int = 0
    index_s: float = 0.0
    tree: dict[str, int] = Field(default_factory=dict)  # written, deleted, kept, refused


class RepoRun(Frozen):
    spec: RepoSpec
    name: str
    rev: str
    commits: int
    kept: int
    dropped: dict[str, int]
    skipped: dict[str, int]  # sampled cases not run, by reason
    cases: tuple[CaseRun, ...]
    helix: dict[str, float | int | None]
    bm25: dict[str, float | int | None]
    index: dict[str, float]
    seconds: float


def tree_dir(gitdir: Path, home: Path | None = None) -> Path:
    if home is None:
        return in_home(HISTORY_DIR, repo_key(gitdir), "tree")
    return home / HISTORY_DIR / repo_key(gitdir) / "tree"


def question_head(question: str) -> str:
    line = question.splitlines()[0] if question else ""
    return line if len(line) <= QUESTION_HEAD else line[:QUESTION_HEAD - 3] + "..."


class HelixSide:
    """Helix on the tree, asked as `helix ask --dry-run --wait` asks (`evals.runner.dry_run`:
    through `helix.service.ask`, the one entry point), the tree's configuration read anew for
    each question."""

    def __init__(self, root: Path, overrides: Mapping[str, Any], *, no_embed: bool) -> None:
        from evals.runner import quiet_runlog

        self.root = root
        self.overrides = dict(overrides)
        self.no_embed = no_embed
        self.runlog = quiet_runlog()

    def config(self) -> Any:
        """The configuration a question of the tree is asked with (read anew each time)."""
        from evals.runner import eval_config

        return eval_config(self.root, self.overrides, no_embed=self.no_embed)

    def refresh(self) -> Any:
        """The index of the tree as it is now (what the qa eval derives its gold from)."""
        from indexers.build import ensure_index

        return ensure_index(self.root, self.config())[0]

    def ask(self, question: str) -> Envelope:
        from evals.runner import dry_run

        return dry_run(question, self.root, self.config(), self.runlog)


def _failed(message: str) -> SystemScore:
    return SystemScore(first_rank=None, all_rank=None, top=(), seconds=0.0, error=message)


def run_case(case: HistoryCase, gold: tuple[str, ...], writer: TreeWriter, helix: HelixSide,
             bm25: BM25Tree, moved: dict[str, int]) -> CaseRun:
    """One case on a tree already at its parent: Helix and BM25, each failure kept apart."""
    route = stop = ""
    llm_steps = 0
    start = time.perf_counter()
    try:
        env = helix.ask(case.question)  # the index refresh and the controller, timed apart
        index_s = env.timings_ms.get("index", 0.0) / MS_PER_S
        helix_score = score((item.path for item in ranked_items(env)), gold,
                            env.timings_ms.get("controller", 0.0) / MS_PER_S)
        route, stop, llm_steps = env.route, env.stop_reason, env.llm_steps
    except Exception as exc:  # a crashing case is a miss, reported; the run goes on
        index_s = time.perf_counter() - start
        helix_score = _failed(f"{type(exc).__name__}: {exc}")
    ranked_at = time.perf_counter()
    try:
        ranked = bm25.rank(writer.target, writer.files, case.question)
        bm25_score = score(ranked, gold, time.perf_counter() - ranked_at)
    except Exception as exc:
        bm25_score = _failed(f"{type(exc).__name__}: {exc}")
    return CaseRun(id=case.id, commit=case.commit, parent=case.parent, committed=case.committed,
                   question_head=question_head(case.question),
                   question_chars=len(case.question), truncated=case.truncated, gold=gold,
                   helix=helix_score, bm25=bm25_score, route=route, stop_reason=stop,
                   llm_steps=llm_steps, index_s=round(index_s, 4), tree=moved)


def run_mined(spec: RepoSpec, mined: Mined, gitdir: Path, *, home: Path | None = None,
              overrides: Mapping[str, Any] | None = None, no_embed: bool = False,
              progress: Progress | None = None) -> RepoRun:
    target = tree_dir(gitdir, home)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    release = acquire(target.parent / TREE_LOCK, TREE_LOCK_TIMEOUT_S)
    if release is None:
        raise IndexLockedError(f"another helix eval history is using the tree at {target}; "
                               "try again when it has finished")
    try:
        writer = TreeWriter(gitdir, target)
        drop_head(target)
        writer.remove()  # a tree a killed run left behind (or an older Helix's clear one)
        with terminate_as_interrupt():
            try:
                return _run_locked(spec, mined, writer, overrides=overrides,
                                   no_embed=no_embed, progress=progress)
            finally:
                drop_head(target)
                writer.remove()
    finally:
        release()


def _run_locked(spec: RepoSpec, mined: Mined, writer: TreeWriter, *,
                overrides: Mapping[str, Any] | None, no_embed: bool,
                progress: Progress | None) -> RepoRun:
    started = time.perf_counter()
    helix = HelixSide(writer.target, overrides or {}, no_embed=no_embed)
    bm25 = BM25Tree()
    runs: list[CaseRun] = []
    skipped: dict[str, int] = {}
    for number, case in enumerate(mined.cases, start=1):
        try:
            moved = writer.move_to(case.parent)
            point_head(writer.target, writer.gitdir, case.parent)  # the history before the case
        except TreeError as exc:  # a bound, or a path in the way: this case only
            reason = f"bound_{exc.bound}" if isinstance(exc, TreeBoundError) else "tree_error"
            skipped[reason] = skipped.get(reason, 0) + 1
            if progress is not None:
                progress(f"{mined.repo} {number}/{len(mined.cases)} {case.commit[:12]} "
                         f"skipped: {exc}")
            continue
        gold = tuple(g for g in case.gold if g in writer.files)
        if not gold:  # e.g. the gold file is a symlink at the parent
            skipped["gold_not_in_tree"] = skipped.get("gold_not_in_tree", 0) + 1
            continue
        run = run_case(case, gold, writer, helix, bm25, moved)
        runs.append(run)
        if progress is not None:
            progress(f"{mined.repo} {number}/{len(mined.cases)} {case.commit[:12]} "
                     f"helix={run.helix.all_rank} bm25={run.bm25.all_rank} "
                     f"index={run.index_s:.1f}s ask={run.helix.seconds:.2f}s "
                     f"{run.question_head[:60]}")
    index_times = [r.index_s for r in runs]
    return RepoRun(
        spec=spec, name=mined.repo, rev=mined.rev, commits=mined.commits, kept=mined.kept,
        dropped=mined.dropped, skipped=dict(sorted(skipped.items())), cases=tuple(runs),
        helix=summarize([r.helix for r in runs]), bm25=summarize([r.bm25 for r in runs]),
        index={"first_s": round(index_times[0], 3) if index_times else 0.0,
               "p50_s": round(percentile(index_times, 50), 3),
               "p95_s": round(percentile(index_times, 95), 3),
               "total_s": round(sum(index_times), 3)},
        seconds=round(time.perf_counter() - started, 3))


def run_repo(spec: RepoSpec, *, home: Path | None = None,
             overrides: Mapping[str, Any] | None = None, no_embed: bool = False,
             progress: Progress | None = None) -> RepoRun:
    gitdir = git_dir(user_path(spec.path))
    mined = mine(gitdir, rev=spec.rev, seed=spec.seed, limit=spec.limit, since=spec.since,
                 name=spec.name)
    if progress is not None:
        progress(f"{mined.repo}: {mined.commits} commits, {mined.kept} kept, "
                 f"{len(mined.cases)} sampled at {mined.rev[:12]}")
    return run_mined(spec, mined, gitdir, home=home, overrides=overrides, no_embed=no_embed,
                     progress=progress)


def overall(runs: Sequence[RepoRun]) -> dict[str, Any]:
    """Pooled over every case of the repositories (micro average); `held_out` and `tuning`
    groups when the runs name held-out repositories."""
    groups: dict[str, list[RepoRun]] = {"all": list(runs)}
    if any(r.spec.held_out for r in runs):
        groups["tuning"] = [r for r in runs if not r.spec.held_out]
        groups["held_out"] = [r for r in runs if r.spec.held_out]
    out: dict[str, Any] = {}
    for name, members in groups.items():
        cases = [c for r in members for c in r.cases]
        out[name] = {"repos": [r.name for r in members],
                     "helix": summarize([c.helix for c in cases]),
                     "bm25": summarize([c.bm25 for c in cases])}
    return out


def settings(no_embed: bool, overrides: Mapping[str, Any]) -> dict[str, Any]:
    flags = dict(overrides)
    if no_embed:
        flags["index.embed_enabled"] = False
    return {"no_embed": no_embed, "overrides": dict(overrides),
            "config_hash": load_config(None, flags=flags).evidence_hash,
            "max_question_chars": MAX_QUESTION_CHARS, "min_words": MIN_WORDS,
            "max_source_files": MAX_SOURCE_FILES}


def result_json(runs: Sequence[RepoRun], *, no_embed: bool,
                overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"benchmark": "history", "settings": settings(no_embed, overrides or {}),
            "repos": [r.model_dump(mode="json") for r in runs], "overall": overall(runs)}


def run_all(specs: Sequence[RepoSpec], *, home: Path | None = None,
            overrides: Mapping[str, Any] | None = None, no_embed: bool = False,
            progress: Progress | None = None) -> list[RepoRun]:
    return [run_repo(spec, home=home, overrides=overrides, no_embed=no_embed,
                     progress=progress) for spec in specs]
