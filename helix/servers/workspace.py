"""What a long-running Helix (the MCP server, the HTTP API) serves: the repositories it was
started with (an allowlist: a client names one of them, never a path of its own), and the
operations the CLI has, through the same service functions (`helix.service.ask`, the session
runner, `helix.lookups`, the index build and status). Each returns JSON-ready data.

A repository is named by its path as given at start, its resolved path, or its directory name
when that is unique among those served; no name means the first one. The configuration of each
is loaded once (a changed `.helix.toml` needs a restart); the index is refreshed incrementally
before every request, as the CLI does, without walking a repository a watch says is unchanged
(`indexers.tree_watch`). A repository's first index is built by one request while the others
for it wait (a burst of first questions never races two builders).

A server answers only about what it serves: the runs (`runs`, `run`) and exports are those of
its repositories (the run log under $HELIX_HOME is shared by all), and a text a client sends
(a repository name, a path, a scope, a symbol) that is not UTF-8 or holds a NUL is one
`UserError`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helix.core.config import HelixConfig, load_config
from helix.core.errors import BadPathError, NotFoundError, UserError
from helix.core.paths import refuse_dangerous_root
from helix.inputs import check_field, check_question, shown
from indexers import tree_watch

if TYPE_CHECKING:
    from helix.lookups import SearchChannel

MAX_REPOS = 32
NO_WATCH_ENV = "HELIX_NO_WATCH"
RUNLOGS_KEPT = 8  # open run-log connections kept between questions (one per request at once)


def error_text(exc: BaseException) -> str:
    """An error as the one line the CLI prints, without its `helix: ` prefix."""
    from helix.cli.main import error_line

    return error_line(str(exc)).removeprefix("helix: ")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _answer(envelope: Any, *, repo: str | list[str], run_id: str, dry_run: bool
            ) -> dict[str, Any]:
    """A question's reply: the answer, its citations, what it notes the evidence does not
    show (`answer_limits`), its item hashes, the envelope."""
    dumped = envelope.model_dump(mode="json")
    return {"repo": repo, "run_id": run_id, "dry_run": dry_run, "answer": dumped["answer"],
            "answer_mode": dumped["answer_mode"], "citations": dumped["citations"],
            "answer_limits": dumped.get("answer_limits", []),
            "item_hashes": dumped["item_hashes"], "envelope": dumped}


class Workspace:
    def __init__(self, repos: Sequence[str | Path], group: str | None = None) -> None:
        """`group`: a registered group (or `all`) whose questions across repositories this
        server answers (`helix.multi_repo.ask_group`); the registry says which they are."""
        self.group = group
        if not repos and group is None:
            raise UserError("no repository to serve (give --repo PATH)")
        if len(repos) > MAX_REPOS:
            raise UserError(f"at most {MAX_REPOS} repositories per server, got {len(repos)}")
        roots: list[Path] = []
        for repo in repos:
            path = Path(repo).expanduser()
            if not path.is_dir():
                raise BadPathError(f"not a directory: {repo}")
            root = path.resolve()
            refuse_dangerous_root(root)
            if root not in roots:
                roots.append(root)
        self.roots = tuple(roots)
        if os.environ.get(NO_WATCH_ENV) != "1":  # asked again and again: unchanged trees
            tree_watch.enable()  # are not walked (HELIX_NO_WATCH=1: walk before every one)
        self._configs: dict[Path, HelixConfig] = {}
        self.scope = tuple(str(root) for root in self.roots)  # the runs its clients see
        self._locks = {root: threading.Lock() for root in self.roots}
        self._first = {root: threading.Lock() for root in self.roots}  # the first build
        self._indexed: set[Path] = set()
        self._runlogs: list[tuple[Any, tuple[int, int] | None]] = []
        self._runlogs_lock = threading.Lock()

    def describe(self) -> list[dict[str, str]]:
        served = [{"name": root.name, "path": str(root)} for root in self.roots]
        return served + ([{"group": self.group}] if self.group is not None else [])

    def root(self, repo: str | None = None) -> Path:
        """The served repository `repo` names (see the module docstring); NotFoundError when
        it names none of them: a client never reaches a path the server was not started with."""
        if not self.roots:
            raise NotFoundError(f"this server answers questions across the group "
                                f"'{self.group}' only: ask with repos")
        if repo is None or not repo.strip():
            return self.roots[0]
        wanted = check_field(repo, "repository").strip()
        for root in self.roots:
            if wanted == str(root):
                return root
        try:
            resolved = Path(wanted).expanduser().resolve()
        except (OSError, RuntimeError):
            resolved = None
        if resolved in self.roots:
            return resolved
        named = [root for root in self.roots if root.name == wanted]
        if len(named) == 1:
            return named[0]
        served = ", ".join(root.name for root in self.roots)
        raise NotFoundError(f"repository {shown(wanted)} is not served here (served: {served})")

    def config(self, root: Path) -> HelixConfig:
        if root not in self._configs:
            self._configs[root] = load_config(root)
        return self._configs[root]

    def index(self, repo: str | None = None) -> Any:
        """The repository's index, refreshed when files changed (vectors in the background)."""
        root = self.root(repo)
        self._first_index(root)
        return self._ensure(root)

    def _ensure(self, root: Path) -> Any:
        from indexers.build import declined_embeddings, ensure_index

        config = declined_embeddings(root, self.config(root), quiet=True)
        index, _ = ensure_index(root, config, dense="background")
        return index

    def _first_index(self, root: Path) -> None:
        """Before this server's first request for `root` goes on, its index is there: built
        (or found) by one request while the others for it wait."""
        if root in self._indexed:
            return
        with self._first[root]:
            if root not in self._indexed:
                self._ensure(root)
                self._indexed.add(root)

    def search(self, query: str, repo: str | None = None, channel: SearchChannel = "all",
               k: int = 10) -> dict[str, Any]:
        from helix import lookups

        check_field(query, "query")
        return {"query": query,
                "hits": lookups.search_hits(self.index(repo), query, channel, k)}

    def find(self, symbol: str, repo: str | None = None, limit: int = 20) -> dict[str, Any]:
        from helix import lookups

        return lookups.find_symbol(self.index(repo), check_field(symbol, "symbol"), limit)

    def callers(self, symbol: str, repo: str | None = None) -> dict[str, Any]:
        from helix import lookups

        return lookups.callers_of(self.index(repo), check_field(symbol, "symbol"))

    def tests(self, symbol: str, repo: str | None = None) -> dict[str, Any]:
        from helix import lookups

        return lookups.tests_of(self.index(repo), check_field(symbol, "symbol"))

    def open_span(self, path: str, start: int = 1, end: int | None = None,
                  repo: str | None = None) -> dict[str, Any]:
        from helix import lookups

        root = self.root(repo)
        return lookups.read_span(root, path, start, end,
                                 max_bytes=self.config(root).index.max_file_bytes)

    def ask(self, question: str, repo: str | list[str] | None = None, *, dry_run: bool = True,
            session: str | None = None, reply_to: int | None = None,
            scope: str | None = None, sense: str | None = None,
            trace: Callable[[str, dict[str, Any]], None] | None = None,
            on_text: Callable[[str], None] | None = None,
            group: str | None = None) -> dict[str, Any]:
        """One question (or one turn of `session`): the answer, its citations, the envelope.
        `repo` as a list of served repositories asks across them (`helix.multi_repo`).
        `on_text` receives the model's answer as it streams (one repository; in a session,
        the answer of a root question)."""
        question = check_question(question)
        for value, what in ((scope, "scope"), (sense, "sense"), (session, "session")):
            if value is not None:
                check_field(value, what)
        if group is not None:
            return self._ask_group(question, check_field(group, "group"), repo=repo,
                                   dry_run=dry_run, session=session, scope=scope,
                                   sense=sense, reply_to=reply_to)
        if isinstance(repo, list):
            roots = list(dict.fromkeys(self.root(r) for r in repo))
            for each in roots:
                self._first_index(each)
            if len(roots) > 1:
                return self._ask_across(question, roots, dry_run=dry_run, session=session,
                                        scope=scope, sense=sense, reply_to=reply_to)
            repo = str(roots[0]) if roots else None
        root = self.root(repo)
        self._first_index(root)
        config = self.config(root)
        if session is not None:
            if scope is not None or sense is not None:
                raise UserError("scope/sense do not combine with a session (say it in words)")
            from helix.session.runner import run_turn

            with self._locks[root]:
                turn = run_turn(session, question, root=root, config=config,
                                reply_to=reply_to, dry_run=dry_run, on_text=on_text)
            return {"repo": str(root), "session": session,
                    **turn.model_dump(mode="json")}
        if reply_to is not None:
            raise UserError("reply_to needs a session")
        from helix.service import ask

        with self._runlog() as runlog:
            result = ask(question, root=root, config=config, dry_run=dry_run, scope=scope,
                         sense=sense, notify=lambda message: None, trace=trace,
                         on_text=on_text, runlog=runlog)
        return _answer(result.envelope, repo=str(root), run_id=result.run_id, dry_run=dry_run)

    @contextlib.contextmanager
    def _runlog(self) -> Iterator[Any]:
        """A run log connection from those kept open (a question's own when none is free):
        opening one and closing it (a WAL checkpoint) cost more than a dry run's retrieval.
        One that saw an error is closed, not kept; None when the run log cannot be written
        (`helix.service.open_runlog` then logs the question in memory, as the CLI does)."""
        from helix.core.errors import RunLogUnwritableError
        from helix.core.paths import runlog_path
        from helix.runlog import RunLog

        with self._runlogs_lock:
            log, file = self._runlogs.pop() if self._runlogs else (None, None)
        if log is not None and file != _identity(runlog_path()):
            log.close()  # the file was moved aside (damaged) or replaced since: open it anew
            log = None
        if log is None:
            try:
                log = RunLog()
            except RunLogUnwritableError:
                yield None
                return
            file = _identity(runlog_path())
        kept = False
        try:
            yield log
            with self._runlogs_lock:
                if len(self._runlogs) < RUNLOGS_KEPT:
                    self._runlogs.append((log, file))
                    kept = True
        finally:
            if not kept:
                log.close()

    def close(self) -> None:
        """Close the run-log connections kept open (the server is stopping)."""
        with self._runlogs_lock:
            logs, self._runlogs = self._runlogs, []
        for log, _ in logs:
            log.close()

    def _ask_across(self, question: str, roots: list[Path], *, dry_run: bool,
                    **single_only: Any) -> dict[str, Any]:
        from helix.multi_repo import ask_across

        given = sorted(k for k, v in single_only.items() if v is not None)
        if given:
            raise UserError(f"{', '.join(given)} do not combine with several repositories")
        envelope, run_id = ask_across(question, roots, config_for=self.config,
                                      dry_run=dry_run, notify=lambda message: None)
        return _answer(envelope, repo=[str(root) for root in roots], run_id=run_id,
                       dry_run=dry_run)

    def _ask_group(self, question: str, group: str, *, dry_run: bool, **single_only: Any
                   ) -> dict[str, Any]:
        from helix.multi_repo import ask_group

        if self.group is None:
            raise UserError("this server serves no repository group (start it with --repos "
                            "GROUP|all)")
        if self.group != "all" and group != self.group:
            raise NotFoundError(f"group {shown(group)} is not served here (served: "
                                f"{self.group})")
        given = sorted(k for k, v in single_only.items() if v is not None)
        if given:
            raise UserError(f"{', '.join(given)} do not combine with repos (a group)")
        envelope, run_id = ask_group(question, group, config_for=load_config,
                                     dry_run=dry_run, notify=lambda message: None)
        routing = envelope.repo_routing
        names = [choice.name for choice in routing.searched] if routing is not None else []
        return _answer(envelope, repo=names, run_id=run_id, dry_run=dry_run)

    def drift(self, repo: str | None = None, *, since: str | None = None,
              questions: Sequence[str | dict[str, Any]] | None = None) -> dict[str, Any]:
        """`helix drift` of a served repository: its recent questions from the run log (this
        repository's runs only), or `questions` pinned (texts, or pin objects with their
        evidence), re-run as dry runs at HEAD."""
        from helix.drift.records import pins_from
        from helix.drift.run import drift, since_time

        root = self.root(repo)
        self._first_index(root)
        config = self.config(root)
        pins = pins_from(list(questions), config.drift.max_pinned) \
            if questions is not None else None
        after = since_time(root, check_field(since, "since")) if since is not None else None
        with self._runlog() as runlog:
            report = drift(root, config, pins=pins, since=after, runlog=runlog)
        return report.model_dump(mode="json")

    def stale_docs(self, repo: str | None = None, *, paths: Sequence[str] = (),
                   baseline: Sequence[str] = ()) -> dict[str, Any]:
        """`helix stale-docs` of a served repository: `paths` inside it only (relative to
        it), `baseline` the keys of findings acknowledged."""
        from helix.staledocs.run import stale_docs
        from helix.staledocs.sections import repo_paths

        root = self.root(repo)
        self._first_index(root)
        known = {check_field(key, "baseline key") for key in baseline}
        report = stale_docs(root, self.config(root), paths=repo_paths(root, list(paths)),
                            baseline=known)
        return report.model_dump(mode="json")

    def build(self, repo: str | None = None, *, force: bool = False) -> dict[str, Any]:
        from indexers.build import build_index

        root = self.root(repo)
        with self._first[root], self._locks[root]:
            report = build_index(root, self.config(root), force=force)
            self._indexed.add(root)
        return report.model_dump(mode="json")

    def status(self, repo: str | None = None) -> dict[str, Any]:
        from indexers.build import declined_embeddings, index_status

        root = self.root(repo)
        config = declined_embeddings(root, self.config(root), quiet=True)
        return index_status(root, config).model_dump(mode="json")

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Any]:
        """The run log, opened for one read and closed after."""
        from helix.runlog import RunLog

        log = RunLog()
        try:
            yield log
        finally:
            log.close()

    def runs(self, limit: int = 20) -> list[dict[str, Any]]:
        """The recent runs of the served repositories (`helix log --json`)."""
        with self._reading() as log:
            return [run.model_dump(mode="json") for run in log.recent(limit, self.scope)]

    def run(self, turn: str) -> dict[str, Any]:
        """A run of a served repository (`helix show TURN --json`), without its prompt; any
        other is "no such turn", as one that never existed."""
        with self._reading() as log:
            data = log.get(check_field(turn, "turn"), self.scope).model_dump(mode="json")
        data.pop("prompt", None)
        return data

    def export(self, *, fmt: str = "records", include_diagnostic: bool = False,
               answer_modes: tuple[str, ...] = ("llm",), since: str | None = None
               ) -> dict[str, Any]:
        """`helix export` of the served repositories' runs, the records returned instead of
        written where a client says; `since="last"` is this set of repositories' last export
        (`helix export --since last` keeps its own)."""
        import json
        import tempfile

        from helix.core.hashing import short_id
        from helix.core.ports import SystemClock
        from helix.export import (
            ExportSettings,
            exports_dir,
            read_last,
            since_time,
            write_last,
        )
        from helix.export import export as run_export

        settings = ExportSettings(format=fmt,  # type: ignore[arg-type]
                                  include_diagnostic=include_diagnostic,
                                  answer_modes=tuple(sorted(set(answer_modes))))
        marker = f"last-served-{short_id(sorted(self.scope))}.json"
        after = since_time(check_field(since, "since"), read_last(marker)) \
            if since is not None else None
        with self._reading() as log:
            runs = [r for r in log.records(roots=self.scope)
                    if after is None or r.created > after]
            unreadable = len(log.unreadable)
        exports_dir().mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=exports_dir(), prefix=".http-") as scratch:
            out = Path(scratch) / "records.jsonl"
            report = run_export(out, settings, runs, unreadable=unreadable,
                                created=SystemClock().now())
            records = [json.loads(line) for line in out.read_text(encoding="utf-8")
                       .splitlines() if line.strip()]
        if runs:
            write_last(max(r.created for r in runs), marker)
        return {"report": report.model_dump(mode="json"), "records": records}
