"""`helix drift`: re-run recorded questions as dry runs at HEAD; list those whose evidence
changed, worst first (`helix.drift`). Exit 1 when a pinned question drifted (CI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from helix.cli.common import echo_json, one_repo, repo_option, repo_root
from helix.cli.safe_text import echo

if TYPE_CHECKING:
    from helix.drift.records import Pin, Recorded

PIN_FILE_BYTES = 64 * 1024 * 1024  # a pin file with its evidence texts; more is refused


@click.command("drift")
@repo_option("The repository whose questions are re-run (default: here).")
@click.option("--since", default=None, metavar="REV|DATE",
              help="Only questions asked since a date (YYYY-MM-DD, UTC) or a revision's "
                   "commit time.")
@click.option("--question-file", default=None, metavar="FILE",
              help="Pinned questions (one a line, or JSON Lines with their evidence) instead "
                   "of the run log's; exit 1 when one drifted.")
@click.option("--fail-on", type=click.Choice(["changed", "moved", "ranking"]), default=None,
              help="The severity at which a pinned question fails the run (default: "
                   "drift.fail_on, moved).")
@click.option("--write-pins", "write_pins", type=click.Path(dir_okay=False, path_type=Path),
              default=None,
              help="Also write each question with its evidence at HEAD as JSON Lines (a "
                   "pin file for --question-file).")
@click.option("--all", "show_all", is_flag=True, help="Also list the unchanged questions.")
@click.option("--json", "as_json", is_flag=True, help="Print the drift report as JSON.")
def drift(repos: tuple[str, ...], since: str | None, question_file: str | None,
          fail_on: str | None, write_pins: Path | None, show_all: bool,
          as_json: bool) -> None:
    """Re-run the run log's recent questions of this repository (or pinned questions) as
    dry runs at HEAD and list those whose evidence changed, by severity: cited lines
    changed or vanished (with their diff); the answering definition moved or was renamed;
    only the ranking moved."""
    from helix.core.config import load_config
    from helix.drift.render import render
    from helix.drift.run import drift as run_drift
    from helix.drift.run import since_time
    from helix.outfile import check_out_path

    root = repo_root(one_repo(repos))
    if write_pins is not None:
        check_out_path(write_pins, "--write-pins")
    config = load_config(root, flags={"drift.fail_on": fail_on})
    pins = _pins(question_file, config.drift.max_pinned) if question_file else None
    after = since_time(root, since) if since is not None else None
    at_head: list[Recorded] = []
    report = run_drift(root, config, pins=pins, since=after, collect=at_head)
    if write_pins is not None:
        from helix.outfile import write_out

        lines = [json.dumps(r.pin(), sort_keys=True, ensure_ascii=False) for r in at_head]
        write_out(write_pins, "".join(f"{line}\n" for line in lines).encode("utf-8"),
                  "--write-pins")
    if as_json:
        echo_json(report)
    else:
        echo(render(report, show_all=show_all))
    if report.failed:
        raise SystemExit(1)


def _pins(name: str, limit: int) -> list[Pin]:
    from helix.cli.ask_cmd import _read_question_file
    from helix.core.errors import UserError
    from helix.drift.records import parse_pins
    from helix.inputs import decode_text

    raw = _read_question_file(name, PIN_FILE_BYTES + 1)
    if len(raw) > PIN_FILE_BYTES:
        raise UserError(f"question file {name} is larger than {PIN_FILE_BYTES:,} bytes")
    return parse_pins(decode_text(raw, f"question file {name}"), name, limit)
