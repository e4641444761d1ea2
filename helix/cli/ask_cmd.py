"""`helix ask QUESTION`: index if needed, run the controller, answer, log the run.

Thin: parse, call `helix.service.ask` (index -> controller -> synthesis -> run log), render.
`--dry-run` stops after the controller (no LLM call) and shows its steps and evidence;
otherwise `render_answer` prints the answer, its `path:start-end` citations and a short evidence
list (with no model configured the answer is the labelled deterministic extract). `--json`
prints the envelope. `render_envelope(env, console)` is the controller view.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

import helix.inputs as inputs
from helix.cli.common import (
    announce_first_index,
    citations_in_order,
    echo_json,
    index_note,
    limits_line,
    one_repo,
    repo_option,
    repo_root,
    yes_option,
)
from helix.cli.safe_text import console as safe_console
from helix.cli.safe_text import echo, json_visible, visible_field
from helix.core.errors import BadPathError, UserError

if TYPE_CHECKING:
    from rich.console import Console

    from helix.ask_plan import AskPlan, AskRequest
    from helix.cli.live_answer import LiveAnswer
    from helix.core.config import HelixConfig
    from helix.core.envelope import Clarify, Envelope


def _read_stdin(limit: int) -> bytes | str:
    """At most `limit` bytes of standard input (text, when stdin has no byte layer)."""
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer.read(limit) if buffer is not None else sys.stdin.read(limit)


def _read_question_file(name: str, limit: int, what: str = "question file") -> bytes:
    """At most `limit` bytes of the regular file `name`. A FIFO, device or socket is refused
    before it is opened, and the open never blocks (a FIFO with no writer would wait
    forever; `/dev/zero` never ends): standard input is `-`. `what` names the file in
    errors."""
    import stat

    from helix.outfile import file_kind

    def refuse(mode: int) -> BadPathError:
        stdin = " (pass '-' to read the question from standard input)" \
            if what == "question file" else ""
        return BadPathError(f"{what} {name} is {file_kind(mode)}, not a regular file{stdin}")

    try:
        info = os.stat(name)
        if stat.S_ISDIR(info.st_mode):
            raise BadPathError(f"{what} is a directory: {name}")
        if not stat.S_ISREG(info.st_mode):
            raise refuse(info.st_mode)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise BadPathError(f"{what} not found: {name}") from None
    except OSError as exc:
        raise BadPathError(f"cannot read {what} {name}: {exc.strerror or exc}") from None
    try:
        opened = os.fstat(fd).st_mode
        if not stat.S_ISREG(opened):  # swapped for something else since the stat
            raise refuse(opened)
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            block = os.read(fd, limit - size)
            if not block:
                break
            chunks.append(block)
            size += len(block)
        return b"".join(chunks)
    except OSError as exc:
        raise BadPathError(f"cannot read {what} {name}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_question(question: Sequence[str], question_file: str | None) -> str:
    """The question from the arguments, a regular file, or standard input (`-`): UTF-8 text
    of at most `helix.inputs.MAX_QUESTION_CHARS` characters, refused in one line otherwise.
    At most that many bytes are read, so a huge file or an endless stream is never read
    whole; a FIFO, device or socket named as the file is refused, never opened."""
    limit = inputs.MAX_QUESTION_BYTES
    what = "the question"
    if question_file is not None or list(question) == ["-"]:
        raw: bytes | str
        if question_file in (None, "-"):
            what = "the question on standard input"
            raw = _read_stdin(limit + 1)
        else:
            assert question_file is not None
            what = f"question file {question_file}"
            raw = _read_question_file(question_file, limit + 1)
        if len(raw) > limit and not (isinstance(raw, bytes) and b"\0" in raw):
            raise UserError(f"{what} is longer than {inputs.MAX_QUESTION_CHARS:,} characters "
                            "(the limit; ask about one thing at a time)")
        text = inputs.decode_text(raw, what) if isinstance(raw, bytes) else raw
    else:
        text = " ".join(question)
    return inputs.check_question(text, what)


def render_envelope(env: Envelope, console: Console) -> None:
    """The human view of an envelope (reused by the synthesis path)."""
    from rich.markup import escape
    from rich.table import Table

    from helix.cli.progress import dense_line

    intent = env.items.intent
    console.print(f"[bold]route[/] {env.route}  [bold]slots[/] {', '.join(env.slots)}  "
                  f"[bold]terms[/] {escape(', '.join(intent.terms))}"
                  + (f"  [bold]scope[/] {escape(intent.scope)}" if intent.scope else "")
                  + (f"  [bold]sense[/] {escape(intent.sense)}" if intent.sense else ""))
    for s in env.controller_steps:
        console.print(f"  step {s.index} [cyan]{s.phase}[/] channels={','.join(s.channels)} "
                      f"new={len(s.new_chunk_ids)} coverage={s.coverage:.2f} "
                      f"covered={escape('[' + ', '.join(s.covered_slots) + ']')}")
        if s.queries:
            shown = " | ".join(visible_field(q) for q in s.queries[:6])
            console.print(f"    queries: {escape(shown)}")
        if s.note:
            console.print(f"    [dim]{escape(s.note)}[/]")
    console.print(f"[bold]stop[/] {env.stop_reason}   [bold]llm_steps[/] {env.llm_steps}   "
                  f"[bold]coverage[/] {env.items.slot_coverage_report.ratio:.2f}")
    building = dense_line(env.dense_state)
    if building:
        console.print(f"[bold yellow]{building}[/]: answered from the lexical channels and "
                      "the vectors so far")
    table = Table("#", "evidence", "kind", "score", "reasons", box=None, pad_edge=False)
    for n, e in enumerate(env.evidence, start=1):
        table.add_row(str(n), escape(f"{visible_field(e.path)}:{e.start_line}-{e.end_line}"),
                      e.kind,
                      f"{e.score:.4f}", escape(", ".join(e.reasons[:4])))
    console.print(table)
    if env.clarify:
        console.print(f"[bold yellow]clarify[/] {escape(env.clarify.question)}")
        for n, option in enumerate(env.clarify.options, start=1):
            where = ", ".join(f"{visible_field(e.path)}:{e.start_line}-{e.end_line}"
                              for e in option.evidence)
            console.print(f"  {n}. {escape(option.label)} (score {option.score:g}) "
                          f"[{escape(where)}]")
        console.print(f"  searched: {escape(', '.join(env.clarify.searched_terms[:8]))}")
    walk = env.tree_walk
    console.print(f"[bold]tree walk[/] {walk.mode} binding_rate={walk.binding_rate:.2f} "
                  f"primary={escape(visible_field(str(walk.primary_tree_id)))}")
    for node in walk.nodes[:12]:
        bound = f" <- {len(node.bound_evidence)} evidence" if node.bound_evidence else ""
        console.print(f"  {'  ' * node.depth}{escape(visible_field(node.title))} "
                      f"[dim]{node.kind}[/]{bound}")
    console.print(f"[bold]answer[/] ({env.answer_mode})")
    console.print(escape(env.answer))
    if env.answer_limits:
        console.print(f"[dim]{escape(limits_line(env.answer_limits))}[/]")


@click.command()
@click.argument("question", nargs=-1)
@repo_option("Repository to ask about (default: here).")
@click.option("--dry-run", is_flag=True, help="Run the controller only: no LLM call.")
@click.option("--json", "as_json", is_flag=True, help="Print the envelope as JSON.")
@click.option("--question-file", default=None, help="Read the question from a file ('-': stdin).")
@click.option("--scope", default=None, help="Only search under this path prefix (e.g. tests/).")
@click.option("--sense", default=None, help="Answer this sense of an ambiguous term.")
@click.option("--model", default=None,
              help="Any litellm model string (gpt-4o-mini, anthropic/..., ollama/...); "
                   "default: HELIX_MODEL or the config file; none: a deterministic answer.")
@click.option("--api-base", "api_base", default=None,
              help="Base URL of an OpenAI-compatible server (default: HELIX_API_BASE).")
@click.option("--verbose", "-v", is_flag=True, help="Also show the controller's steps.")
@click.option("--trace", is_flag=True,
              help="Stream the live trace to stderr as JSON lines (controller steps, stop, "
                   "tree walk and its nodes) while the controller runs.")
@click.option("--session", default=None,
              help="Continue the named conversation session (continuity lanes, T1-T10).")
@click.option("--reply-to", "reply_to", type=click.IntRange(min=1, max=inputs.MAX_COUNT),
              default=None,
              help="Anchor focus to this turn of the session.")
@click.option("--wait", is_flag=True,
              help="Embed every card before answering (default: answer from the lexical "
                   "index at once and embed in the background when many cards are new).")
@click.option("--repos", "group", default=None, metavar="GROUP|all",
              help="Ask across the registered repositories of GROUP (or all): the best few "
                   "for the question by their summaries (`helix repos` lists them).")
@yes_option
def ask(question: tuple[str, ...], repos: tuple[str, ...], dry_run: bool, as_json: bool,
        question_file: str | None, scope: str | None, sense: str | None,
        session: str | None, reply_to: int | None, model: str | None, api_base: str | None,
        verbose: bool, trace: bool, wait: bool, group: str | None, yes: bool) -> None:
    """Ask a question about a repository; --dry-run shows the controller's evidence."""
    from helix.ask_plan import AskRequest, plan_ask

    request = AskRequest(text=read_question(question, question_file), repos=repos,
                         group=group, dry_run=dry_run, scope=scope, sense=sense,
                         session=session, reply_to=reply_to, model=model, api_base=api_base,
                         trace=trace, wait=wait)
    plan = plan_ask(request)  # the path and its flags are decided there, not here
    if plan.path == "across":
        _ask_across(request, plan.flags, as_json=as_json, verbose=verbose)
    elif plan.path == "session":
        from helix.cli.turn_view import ask_in_session

        repo = one_repo(repos) or str(repo_root(None, yes))  # the same guard, root handed on
        ask_in_session(request.text, repo, session=session, reply_to=reply_to,
                       dry_run=dry_run, as_json=as_json, serve=plan.try_server,
                       flags=plan.flags)
    else:
        _ask_here(request, plan, one_repo(repos), as_json=as_json, verbose=verbose, yes=yes)


def _ask_here(request: AskRequest, plan: AskPlan, repo: str | None, *, as_json: bool,
              verbose: bool, yes: bool) -> None:
    """One question in this repository: through a warm server when the plan offers it and one
    answers, else through `helix.service.ask` in this process; rendered either way."""
    text, dry_run = request.text, request.dry_run
    root = repo_root(repo, yes)  # before the imports below (~0.5 CPU s): a bad one is quick
    from helix.cli.live_answer import live_answer
    from helix.cli.progress import progress_bar, wait_timer, wanted
    from helix.core.config import load_config
    from helix.core.notices import notify
    from helix.service import ask as service_ask
    from helix.service import cli_llm, open_runlog

    if plan.try_server:
        streaming = live_answer(sys.stdout, None, as_json=as_json, dry_run=dry_run)
        served = _ask_server(text, root, dry_run=dry_run, scope=request.scope,
                             on_text=streaming.on_text if streaming else None)
        if served is not None:
            if verbose:
                echo(f"helix: answered by the helix server at {served[2]}", err=True)
            _show(served[0], served[1], as_json=as_json, dry_run=dry_run, verbose=verbose,
                  live=streaming)
            return
    config = load_config(root, flags=plan.flags)
    run_log = open_runlog(notify)  # opened first: a read-only HELIX_HOME is said before any work
    llm = cli_llm(config, dry_run=dry_run)  # litellm's import starts now, elsewhere
    announce_first_index(root)
    sense = request.sense
    if sense is not None:  # a number as printed by the clarifier, a key, or a naming word
        sense = choose_sense(text, sense, root=root, config=config, scope=request.scope)
    # the real streams, taken before the bar's display stands in for them
    timer = wait_timer()
    live = live_answer(sys.stdout, timer, as_json=as_json, dry_run=dry_run)
    with progress_bar(wanted(as_json) and not request.trace) as progress:
        result = service_ask(text, root=root, config=config, dry_run=dry_run,
                             scope=request.scope, sense=sense, llm=llm,
                             trace=trace_to_stderr if request.trace else None,
                             runlog=run_log, progress=progress,
                             waiting=live.waiting if live else (timer or _quiet_wait),
                             on_text=live.on_text if live else None)
    note = index_note(result.build)
    if note:
        echo(f"helix: {note}", err=True)
    building = dense_note(result.envelope, result.build.get("worker_pid"))
    if building:
        echo(f"helix: {building}", err=True)
    _show(result.envelope, result.run_id, as_json=as_json, dry_run=dry_run, verbose=verbose,
          live=live)


PIPE_WIDTH = 100_000  # columns when standard output is not a terminal: nothing is cut


def _ask_across(request: AskRequest, flags: dict[str, Any], *, as_json: bool,
                verbose: bool) -> None:
    """`--repo A --repo B`: one question across several repositories (`helix.multi_repo`);
    `--repos GROUP`: across the best of a registered group for it."""
    from helix.core.config import load_config
    from helix.multi_repo import ask_across, ask_group

    def config_for(root: Path) -> HelixConfig:
        return load_config(root, flags=flags)

    if request.group is not None:
        from helix.cluster.summary import routing_line

        envelope, run_id = ask_group(request.text, request.group, dry_run=request.dry_run,
                                     config_for=config_for)
        if envelope.repo_routing is not None and not as_json:
            echo(f"helix: {routing_line(envelope.repo_routing)}", err=True)
    else:
        roots = list(dict.fromkeys(repo_root(r) for r in request.repos))
        envelope, run_id = ask_across(request.text, roots, dry_run=request.dry_run,
                                      config_for=config_for)
    _show(envelope, run_id, as_json=as_json, dry_run=request.dry_run, verbose=verbose)


def _quiet_wait(model: str, elapsed: float, deadline: float) -> None:
    """Not a terminal: the wait for the model is not shown (nothing on stderr)."""


def _ask_server(text: str, root: Path, *, dry_run: bool, scope: str | None,
                on_text: Callable[[str], None] | None = None
                ) -> tuple[Envelope, str, str] | None:
    """The answer of a running `helix serve` for this $HELIX_HOME and repository (the same
    evidence and item hashes as in process), or None to answer here: no server, one busy,
    or `HELIX_NO_SERVER=1`. A request the server refuses is that error here too."""
    from helix.core.config import helix_home
    from helix.core.envelope import Envelope
    from helix.servers.discovery import ask_served

    served = ask_served(helix_home(), root, {"question": text, "repo": str(root),
                                             "dry_run": dry_run, "scope": scope},
                         on_text=on_text)
    if served is None:
        return None
    info, body = served
    return Envelope.model_validate(body["envelope"]), str(body["run_id"]), info.base


def _show(envelope: Envelope, run_id: str, *, as_json: bool, dry_run: bool,
          verbose: bool, live: LiveAnswer | None = None) -> None:
    if as_json:
        echo_json(envelope)
        _exit_without_model(envelope)
        return
    # repository and model text made visible, never obeyed; off a terminal no line is cut to
    # a width (a `path:line` reaches a pipe whole)
    console = safe_console() if sys.stdout.isatty() else safe_console(width=PIPE_WIDTH)
    if dry_run or verbose:
        render_envelope(envelope, console)
    if not dry_run:  # a streamed answer the contract kept as shown is not printed again
        render_answer(envelope, console, text=live is None or live.after(envelope))
    if envelope.clarify is not None:
        numbers = " or ".join(f"--sense {n}" for n in range(1, len(envelope.clarify.options) + 1))
        console.print(f"[dim]choose one: ask again with {numbers}[/]")
    console.print(f"[dim]turn {run_id} (helix show {run_id})[/]")
    _exit_without_model(envelope)


EXIT_WITHOUT_MODEL = 3  # a model was asked for; the answer shown is the deterministic one


def _exit_without_model(envelope: Envelope) -> None:
    """Exit 3 when a model was configured but its answer was not used (a failed call, or an
    answer the contract refused): the deterministic answer was shown, the reason is the
    envelope's `fallback_reason` (also in --json)."""
    if envelope.answer_mode == "fallback":
        raise SystemExit(EXIT_WITHOUT_MODEL)


def match_sense(sense: str, clarify: Clarify | None, question: str) -> str:
    """The sense key `--sense` names: an option's number as printed (`--sense 2`), its key, or
    a word that names exactly one option ("storage"). Anything else is a user error."""
    wanted = sense.strip()
    if clarify is None:
        raise UserError(f"--sense {inputs.shown(wanted)}: {inputs.shown(question)} has no "
                        "senses to choose from here (no clarifier); ask without --sense, or "
                        "narrow it with --scope")
    options = clarify.options
    listed = "; ".join(f"{n}. {o.label}" for n, o in enumerate(options, start=1))
    if wanted.isascii() and wanted.isdigit():
        number = int(wanted)
        if 1 <= number <= len(options):
            return options[number - 1].sense
        raise UserError(f"--sense {wanted}: there are {len(options)} senses ({listed})")
    for option in options:
        if wanted == option.sense:
            return option.sense
    word = wanted.lower().strip("/")
    by_label = [o for o in options if word in re.findall(r"[a-z0-9_]+", o.label.lower())]
    by_path = [o for o in options if any(part.strip().strip("/").split("/")[0] == word
                                         for part in o.sense.split(","))]
    for hits in (by_label, by_path):  # the words printed first, then the senses' directories
        if word and len(hits) == 1:
            return hits[0].sense
    raise UserError(f"--sense {inputs.shown(wanted)}: not one of the senses ({listed}); "
                    "give its number")


def choose_sense(question: str, sense: str, *, root: Path, config: HelixConfig,
                 scope: str | None) -> str:
    """Read the question's clarifier (a dry run recorded nowhere) and resolve `--sense`."""
    import sqlite_utils

    from helix.runlog import RunLog
    from helix.service import ask as service_ask

    probe = service_ask(question, root=root, config=config, dry_run=True, scope=scope,
                        runlog=RunLog(db=sqlite_utils.Database(memory=True)))
    note = index_note(probe.build)
    if note:
        echo(f"helix: {note}", err=True)
    return match_sense(sense, probe.envelope.clarify, question)


MAX_EVIDENCE_SHOWN = 8


def dense_note(env: Envelope, worker_pid: int | None = None) -> str | None:
    """While vectors are being built: which state answered and what that means, one line."""
    from helix.cli.progress import channels_used, dense_line

    line = dense_line(env.dense_state, worker_pid)
    if line is None:
        return None
    channels = channels_used(env.controller_steps)
    if env.dense_state is not None and env.dense_state.vectors == 0:
        channels = [c for c in channels if c != "dense"]  # asked, with nothing to search yet
    used = ", ".join(channels) or "none"
    if worker_pid is None:  # stopped (`helix index --stop`), failed, or held by a writer
        return (f"{line}; this answer used {used}; no dense worker is running (`helix status` "
                "says why; `helix index` embeds the rest)")
    return (f"{line}; this answer used {used} (later answers use the vectors as they come; "
            "--wait waits for all)")


def trace_to_stderr(event: str, data: dict[str, Any]) -> None:
    """One live-trace event: a canonical JSON line on stderr, flushed at once."""
    from helix.core.hashing import canonical_json

    click.echo(json_visible(canonical_json({"event": event, **data})), err=True)


def render_answer(env: Envelope, console: Console, *, text: bool = True) -> None:
    """The answer (unless `text` is False: it was streamed as it is), its `path:start-end`
    citations and a short evidence list."""
    from rich.markup import escape

    if text:
        console.print(escape(env.answer))
    if env.answer_limits:
        console.print(f"[dim]{escape(limits_line(env.answer_limits))}[/]")
    if env.citations:
        console.print("\n[bold]citations[/]")
        for c in citations_in_order(env.citations):
            where = f"{visible_field(c.path)}:{c.start_line}-{c.end_line}"
            console.print(f"  [{c.ref}] {escape(where)}")
    if env.evidence:
        console.print("[bold]evidence[/]")
        for n, e in enumerate(env.evidence[:MAX_EVIDENCE_SHOWN], start=1):
            label = e.symbol or e.heading or ""
            where = f"{visible_field(e.path)}:{e.start_line}-{e.end_line}"
            console.print(f"  E{n} {escape(where)} {e.kind}"
                          + (f" {escape(visible_field(label))}" if label else ""))
        if len(env.evidence) > MAX_EVIDENCE_SHOWN:
            console.print(f"  ... {len(env.evidence) - MAX_EVIDENCE_SHOWN} more (--json)")
    from helix.cli.progress import dense_line

    mode = env.answer_mode + (f" ({env.fallback_reason})" if env.fallback_reason else "")
    building = dense_line(env.dense_state)
    console.print(f"[dim]mode {mode} · model {env.model or '-'} · llm_steps {env.llm_steps}"
                  + (f" · {building}" if building else "") + "[/]")
