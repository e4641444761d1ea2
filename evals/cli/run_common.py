"""What the eval sub-commands (`helix eval history`, `qa`, `corpus`) share: their common
options and how a result is written and printed. Here so that no sub-command imports another
(`history_cmd` only hands its arguments on to `qa_cmd` and `corpus_cmd`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from helix.cli.safe_text import echo


def write_json(out: Path, payload: Any) -> None:
    from helix.outfile import write_out  # a link or a device is refused, never replaced

    write_out(out, (json.dumps(payload, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def run_options(command: Any) -> Any:
    """The options every eval sub-command shares: --json, --out, --no-embed,
    --candidate-config, --html (in that order in its help)."""
    for option in reversed((
            click.option("--json", "as_json", is_flag=True, help="Print the result as JSON."),
            click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
                         help="Also write the JSON result to FILE."),
            click.option("--no-embed", is_flag=True,
                         help="Index and ask without embeddings (fast)."),
            click.option("--candidate-config", "candidate", metavar="FILE",
                         help="A configuration (TOML overrides file, or a name in "
                              "evals/configs/)."),
            click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path),
                         help="Also write a self-contained HTML report with charts to FILE."))):
        command = option(command)
    return command


def candidate_overrides(candidate: str | None) -> dict[str, Any]:
    """The dotted overrides of `--candidate-config` (a TOML file or a named configuration)."""
    if candidate is None:
        return {}
    from evals.gates import load_named_config

    return dict(load_named_config(candidate)[1])


def write_html(path: Path, payload: Any, title: str) -> None:
    """The result as a self-contained HTML page with charts (`evals.html_report`)."""
    from evals.html_report import render
    from helix.outfile import write_out

    write_out(path, render(payload, title).encode("utf-8"))


def emit(payload: Any, out: Path | None, as_json: bool, render: Callable[[], str],
         html_out: Path | None = None, title: str = "helix eval") -> None:
    """A result: written to `out` as JSON and to `html_out` as a report when asked, then
    printed as JSON or as text."""
    if out is not None:
        write_json(out, payload)
    if html_out is not None:
        write_html(html_out, payload, title)
    if as_json:
        from helix.cli.common import echo_json

        echo_json(payload)
    else:
        echo(render())


cluster_option = click.option(
    "--cluster", metavar="ADDRESS|local", default=None,
    help="Run the work as Ray tasks on this cluster (`local`: one started here): per "
         "repository, or per chunk of cases; the report is the serial one, with the wall "
         "time and speed-up under `cluster`.")


def on_cluster(payload: dict[str, Any], fan: Any) -> dict[str, Any]:
    """The report with the cluster's books, and one line about them on stderr."""
    if fan is None:
        return payload
    echo(f"helix: {fan.line()}", err=True)
    return {**payload, "cluster": fan.report()}
