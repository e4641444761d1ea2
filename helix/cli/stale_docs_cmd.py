"""`helix stale-docs [PATH...]`: documentation sections whose aligned code changed after the
section was last edited (`helix.staledocs`). Exit 1 when one is found that the baseline does
not acknowledge."""

from __future__ import annotations

from pathlib import Path

import click

from helix.cli.common import echo_json, one_repo, repo_option, repo_root
from helix.cli.safe_text import echo

BASELINE_BYTES = 16 * 1024 * 1024


@click.command("stale-docs")
@click.argument("paths", nargs=-1)
@repo_option("The repository (default: here).")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Findings acknowledged in this file are counted, not listed (and do not "
                   "fail the run).")
@click.option("--write-baseline", "write_baseline",
              type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every finding (with those of --baseline) to FILE as a baseline and "
                   "exit 0.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def stale_docs(paths: tuple[str, ...], repos: tuple[str, ...], baseline: Path | None,
               write_baseline: Path | None, as_json: bool) -> None:
    """List documentation sections (under PATH..., default: all) whose aligned definitions
    changed after the section's last commit: what changed in the code (signature,
    parameters, defaults, raised errors, removed names) and the commits. Changes of layout,
    comments or docstrings are ignored. Exit 1 when any is found."""
    from helix.core.config import load_config
    from helix.outfile import check_out_path, write_out
    from helix.staledocs.render import render
    from helix.staledocs.run import baseline_json, read_baseline
    from helix.staledocs.run import stale_docs as run_stale_docs

    root = repo_root(one_repo(repos))
    if write_baseline is not None:
        check_out_path(write_baseline, "--write-baseline")
    known = read_baseline(baseline, _read(baseline)) if baseline is not None else set()
    from helix.inputs import check_field
    from helix.staledocs.sections import repo_paths

    # a PATH is relative to here (or absolute); one that is not here, to the repository
    wanted = repo_paths(root, [str((Path.cwd() / check_field(p, "PATH")).resolve())
                               if (Path.cwd() / p).exists() else p for p in paths])
    report = run_stale_docs(root, load_config(root), paths=wanted, baseline=known)
    if write_baseline is not None:
        write_out(write_baseline, baseline_json(report, known).encode("utf-8"),
                  "--write-baseline")
    if as_json:
        echo_json(report)
    else:
        echo(render(report))
    if report.stale and write_baseline is None:
        raise SystemExit(1)


def _read(path: Path) -> bytes:
    from helix.cli.ask_cmd import _read_question_file
    from helix.core.errors import UserError

    data = _read_question_file(str(path), BASELINE_BYTES + 1, "--baseline")
    if len(data) > BASELINE_BYTES:
        raise UserError(f"--baseline {path} is larger than {BASELINE_BYTES:,} bytes")
    return data
