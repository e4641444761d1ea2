"""`helix ask QUESTION --dry-run`: the controller's whole run, without an LLM.

Thin: parse, `ensure_index`, `run_controller`, render. `render_envelope(env, console)` is the
human view (route, steps, stop reason, ranked evidence, clarifier, tree walk, answer); `--json`
prints the envelope. Without --dry-run the answer is the same deterministic extract, marked
answer_mode "deterministic" (synthesis takes this path over when a model is configured).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from helix.cli.common import echo_json
from helix.core.config import IndexSettings
from helix.core.errors import BadPathError, UserError

if TYPE_CHECKING:
    import numpy as np
    from rich.console import Console

    from helix.core.envelope import Envelope


class LazyQueryEmbedder:
    """The query embedder, built on first use: a dry run over an index without embeddings (or a
    question no dense search is run for) never loads a model."""

    def __init__(self, settings: IndexSettings) -> None:
        self._settings = settings
        self._inner: Any = None

    def _get(self) -> Any:
        if self._inner is None:
            from indexers.encoder import query_embedder

            self._inner = query_embedder(self._settings)
        return self._inner

    @property
    def model_key(self) -> str:
        return str(self._get().model_key)

    @property
    def dim(self) -> int:
        return int(self._get().dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._get().embed(texts)


def repo_root(repo: str | None) -> Path:
    from helix.core.paths import find_repo_root

    if repo is None:
        return find_repo_root(Path.cwd())
    path = Path(repo).expanduser()
    if not path.is_dir():
        raise BadPathError(f"not a directory: {repo}")
    return path.resolve()


def read_question(question: Sequence[str], question_file: str | None) -> str:
    """The question from the arguments, a file, or standard input (`-`)."""
    if question_file is not None:
        if question_file == "-":
            text = sys.stdin.read()
        else:
            path = Path(question_file)
            if not path.is_file():
                raise BadPathError(f"question file not found: {question_file}")
            text = path.read_text(encoding="utf-8", errors="replace")
    elif list(question) == ["-"]:
        text = sys.stdin.read()
    else:
        text = " ".join(question)
    text = text.strip()
    if not text:
        raise UserError("no question given (pass it as an argument, --question-file F, or -)")
    return text


def ask_envelope(question: str, repo: str | None, *, dry_run: bool,
                 scope: str | None = None, sense: str | None = None) -> Envelope:
    """Index (if needed) and run the controller; the envelope of a dry or deterministic run."""
    from controller.driver import run_controller
    from helix.core.config import load_config
    from helix.core.ports import SystemClock
    from indexers.build import ensure_index

    root = repo_root(repo)
    config = load_config(root)
    lazy = LazyQueryEmbedder(config.index)
    index, report = ensure_index(root, config, query_embedder=lazy)
    if report.refreshed:
        click.echo(f"helix: index refreshed ({len(report.changed_files)} changed file(s))",
                   err=True)
    has_vectors = bool(getattr(index, "manifest", None) and index.manifest.embed_model_key)
    env = run_controller(question, index, config, query_embedder=lazy if has_vectors else None,
                         clock=SystemClock(), scope=scope, sense=sense,
                         refreshed=report.refreshed)
    return env if dry_run else env.model_copy(update={"answer_mode": "deterministic"})


def render_envelope(env: Envelope, console: Console) -> None:
    """The human view of an envelope (reused by the synthesis path)."""
    from rich.markup import escape
    from rich.table import Table

    intent = env.items.intent
    console.print(f"[bold]route[/] {env.route}  [bold]slots[/] {', '.join(env.slots)}  "
                  f"[bold]terms[/] {escape(', '.join(intent.terms))}"
                  + (f"  [bold]scope[/] {escape(intent.scope)}" if intent.scope else "")
                  + (f"  [bold]sense[/] {escape(intent.sense)}" if intent.sense else ""))
    for s in env.controller_steps:
        console.print(f"  step {s.index} [cyan]{s.phase}[/] channels={','.join(s.channels)} "
                      f"new={len(s.new_chunk_ids)} coverage={s.coverage:.2f} "
                      f"covered=[{', '.join(s.covered_slots)}]")
        if s.queries:
            console.print(f"    queries: {escape(' | '.join(s.queries[:6]))}")
        if s.note:
            console.print(f"    [dim]{escape(s.note)}[/]")
    console.print(f"[bold]stop[/] {env.stop_reason}   [bold]llm_steps[/] {env.llm_steps}   "
                  f"[bold]coverage[/] {env.items.slot_coverage_report.ratio:.2f}")
    table = Table("#", "evidence", "kind", "score", "reasons", box=None, pad_edge=False)
    for n, e in enumerate(env.evidence, start=1):
        table.add_row(str(n), escape(f"{e.path}:{e.start_line}-{e.end_line}"), e.kind,
                      f"{e.score:.4f}", escape(", ".join(e.reasons[:4])))
    console.print(table)
    if env.clarify:
        console.print(f"[bold yellow]clarify[/] {escape(env.clarify.question)}")
        for n, option in enumerate(env.clarify.options, start=1):
            where = ", ".join(f"{e.path}:{e.start_line}-{e.end_line}" for e in option.evidence)
            console.print(f"  {n}. {escape(option.label)} (score {option.score:g}) "
                          f"[{escape(where)}]")
        console.print(f"  searched: {escape(', '.join(env.clarify.searched_terms[:8]))}")
    walk = env.tree_walk
    console.print(f"[bold]tree walk[/] {walk.mode} binding_rate={walk.binding_rate:.2f} "
                  f"primary={escape(str(walk.primary_tree_id))}")
    for node in walk.nodes[:12]:
        bound = f" <- {len(node.bound_evidence)} evidence" if node.bound_evidence else ""
        console.print(f"  {'  ' * node.depth}{escape(node.title)} [dim]{node.kind}[/]{bound}")
    console.print(f"[bold]answer[/] ({env.answer_mode})")
    console.print(escape(env.answer))


@click.command()
@click.argument("question", nargs=-1)
@click.option("--repo", "repo", default=None, help="Repository to ask about (default: here).")
@click.option("--dry-run", is_flag=True, help="Run the controller only: no LLM call.")
@click.option("--json", "as_json", is_flag=True, help="Print the envelope as JSON.")
@click.option("--question-file", default=None, help="Read the question from a file ('-': stdin).")
@click.option("--scope", default=None, help="Only search under this path prefix (e.g. tests/).")
@click.option("--sense", default=None, help="Answer this sense of an ambiguous term.")
def ask(question: tuple[str, ...], repo: str | None, dry_run: bool, as_json: bool,
        question_file: str | None, scope: str | None, sense: str | None) -> None:
    """Ask a question about a repository; --dry-run shows the controller's evidence."""
    text = read_question(question, question_file)
    env = ask_envelope(text, repo, dry_run=dry_run, scope=scope, sense=sense)
    if as_json:
        echo_json(env)
        return
    from rich.console import Console

    render_envelope(env, Console(highlight=False, soft_wrap=True))
