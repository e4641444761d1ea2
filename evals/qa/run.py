"""`helix eval qa`: natural questions with reference answers, Helix against whole-file BM25.

Reads `{"question", "answer"}` lines (SWE-QA's `Benchmark/*.jsonl`); a line that is not such
an object is skipped and counted. The repository is a work tree as it is, or, with `--rev`, the
tree of that commit written under `$HELIX_HOME/qa/<repo key>/tree` from git objects (no
checkout: none of the repository's hooks or filters runs; `evals.history.trees`), with a `.git`
whose HEAD is that commit (`evals.corpus.history_git`: the history field, when on, reads the
commits before it and none after). Helix indexes
it and answers each question with the dry-run controller (no model); BM25 ranks the tree's files
for the same question in the same run. Gold comes from each reference answer
(`evals.qa.gold`); a question with no gold file is dropped and counted, and so is one whose
text, reference answer or gold files name a project reserved for checks run elsewhere
(`evals.reserved`: it is theirs to ask, even about another project's code).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evals.baseline_bm25 import BM25Files
from evals.corpus.history_git import drop_head, point_head
from evals.history.mine import git_dir, repo_key, resolve_rev
from evals.history.run import HelixSide
from evals.history.trees import TreeWriter, terminate_as_interrupt
from evals.metrics import ranked_items
from evals.qa.gold import derive_gold
from evals.qa.score import CaseScore, Span, by_group, score_case, summarize
from evals.reserved import names_reserved
from helix.core.errors import BadPathError, UserError
from helix.core.paths import in_home
from helix.core.schemas import Frozen
from indexers.locking import acquire

Progress = Callable[[str], None]


class QACase(Frozen):
    id: str
    question: str
    answer: str


def load_cases(path: Path) -> tuple[list[QACase], int]:
    """The questions of a JSONL file, and how many lines were not a question and answer."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BadPathError(f"cannot read {path}: {exc.strerror or exc}") from None
    cases: list[QACase] = []
    malformed = 0
    for number, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            malformed += 1
            continue
        question = data.get("question") if isinstance(data, dict) else None
        answer = data.get("answer") if isinstance(data, dict) else None
        if not isinstance(question, str) or not isinstance(answer, str) or not question.strip():
            malformed += 1
            continue
        cases.append(QACase(id=f"{path.stem}:{number}", question=question, answer=answer))
    if not cases:
        raise UserError(f"{path} holds no {{\"question\", \"answer\"}} lines")
    return cases, malformed


# how long a run waits for another run of the same repository's tree to end
TREE_WAIT_S = 3600.0


def _tree_home(repo: Path, home: Path | None) -> Path:
    gitdir = git_dir(repo)
    return in_home("qa", repo_key(gitdir)) if home is None else home / "qa" / repo_key(gitdir)


@contextmanager
def one_run_per_tree(repo: Path, rev: str | None, home: Path | None = None) -> Iterator[None]:
    """Runs at a revision share the repository's written-out tree (and its index), which a
    run rewrites to its revision and removes when it ends: a second run waits for the first
    (`TREE_WAIT_S` at most) instead of reading a tree the first changes under it."""
    if rev is None:
        yield
        return
    folder = _tree_home(repo, home)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    release = acquire(folder / "tree.lock", TREE_WAIT_S)
    if release is None:
        raise UserError(f"another run has held {folder / 'tree'} for over {TREE_WAIT_S:.0f} s")
    try:
        yield
    finally:
        release()


def tree_for(repo: Path, rev: str | None, home: Path | None = None) -> tuple[Path, str]:
    """(root to index, revision): the work tree itself, or the tree of `rev` written out."""
    if rev is None:
        if not repo.is_dir():
            raise BadPathError(f"not a directory: {repo}")
        return repo.resolve(), "worktree"
    gitdir = git_dir(repo)
    sha = resolve_rev(gitdir, rev)
    target = _tree_home(repo, home) / "tree"
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    TreeWriter(gitdir, target).move_to(sha)
    point_head(target, gitdir, sha)  # its history is the commit's, nothing after it
    return target, sha


def _spans(items: Sequence[Any]) -> list[Span]:
    return [Span(path=i.path, start_line=i.start_line, end_line=i.end_line) for i in items]


# questions in, each one's score (or why it was dropped) out, in order: the serial loop, or
# Ray tasks over chunks of them (`evals.cluster`)
CaseRunner = Callable[[Path, Sequence[QACase]], list["CaseScore | str"]]


def run_qa(jsonl: Path, repo: Path, *, rev: str | None = None, limit: int | None = None,
           overrides: Mapping[str, Any] | None = None, no_embed: bool = False,
           progress: Progress | None = None, home: Path | None = None,
           fan_out: CaseRunner | None = None) -> dict[str, Any]:
    cases, malformed = load_cases(jsonl)
    if limit is not None:
        cases = cases[:limit]
    with terminate_as_interrupt(), one_run_per_tree(repo, rev, home):
        root, revision = tree_for(repo, rev, home)
        try:
            return _run_cases(cases, malformed, jsonl, repo, root, revision,
                              overrides=overrides, no_embed=no_embed, progress=progress,
                              fan_out=fan_out)
        finally:
            if rev is not None:  # the tree written out lives only as long as the run
                drop_head(root)
                TreeWriter(git_dir(repo), root).remove()


class QAContext:
    """What every question of a run is answered and scored against: Helix's index of the
    tree, its file list, whole-file BM25 over it."""

    def __init__(self, root: Path, overrides: Mapping[str, Any] | None, no_embed: bool) -> None:
        self.helix = HelixSide(root, overrides or {}, no_embed=no_embed)
        self.index = self.helix.refresh()
        self.files = [record.path for record in self.index.files()]
        self.bm25 = BM25Files.build(root)

    def score(self, case: QACase) -> CaseScore | str:
        """The case's score, or why it is dropped ("no_gold_file", "reserved")."""
        gold = derive_gold(case.answer, self.files, self.index.find_definitions)
        if not gold.files:
            return "no_gold_file"
        if names_reserved(case.question, case.answer, *gold.files):
            return "reserved"
        started = time.perf_counter()
        error, route, items, sent = None, "", [], []
        try:
            env = self.helix.ask(case.question)
            items, sent, route = _spans(ranked_items(env)), _spans(env.evidence), env.route
        except Exception as exc:  # a crashing question is a miss, reported; the run goes on
            error = f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - started
        return score_case(case.id, case.question, gold, items, sent,
                          self.bm25.rank(case.question), route=route, seconds=seconds,
                          error=error)


def score_cases(root: Path, cases: Sequence[QACase], overrides: Mapping[str, Any] | None,
                no_embed: bool) -> list[CaseScore | str]:
    """A chunk of questions over the tree at `root` (what one cluster task runs)."""
    context = QAContext(root, overrides, no_embed)
    return [context.score(case) for case in cases]


def _run_cases(cases: Sequence[Any], malformed: int, jsonl: Path, repo: Path, root: Path,
               revision: str, *, overrides: Mapping[str, Any] | None, no_embed: bool,
               progress: Progress | None, fan_out: CaseRunner | None = None) -> dict[str, Any]:
    context = QAContext(root, overrides, no_embed)  # built (or refreshed) once, here
    outcomes: list[CaseScore | str]
    if fan_out is not None:
        outcomes = fan_out(root, cases)
    else:
        outcomes = []
        for number, case in enumerate(cases, start=1):
            outcomes.append(context.score(case))
            if progress is not None and not isinstance(outcomes[-1], str):
                score = outcomes[-1]
                progress(f"{number}/{len(cases)} helix file={score.helix_file_rank} "
                         f"span={score.helix_span_rank} bm25={score.bm25_file_rank} "
                         f"{score.question_head[:60]}")
    scored = [o for o in outcomes if not isinstance(o, str)]
    dropped = {"no_gold_file": 0, "malformed_line": malformed, "reserved": 0}
    for reason in (o for o in outcomes if isinstance(o, str)):
        dropped[reason] += 1
    return {"benchmark": "qa", "file": jsonl.name, "repo": str(repo), "rev": revision,
            "no_embed": no_embed, "overrides": dict(sorted((overrides or {}).items())),
            "index_rev": context.index.index_rev, "read": len(cases), "dropped": dropped,
            "summary": summarize(scored), "groups": by_group(scored),
            "cases": [c.model_dump() for c in scored]}
