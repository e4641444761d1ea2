"""`helix chunks FILE`: how Helix cuts one file into chunks, and which symbols it finds there."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import click

from helix.cli.common import echo_json
from helix.cli.safe_text import echo, visible_field
from helix.core.config import load_config
from helix.core.errors import BadPathError
from helix.core.paths import find_repo_root, user_path


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print chunks, definitions and references.")
@click.option("--text", "with_text", is_flag=True, help="Print each chunk's text too.")
def chunks(file: Path, as_json: bool, with_text: bool) -> None:
    """Show the chunks (kind, lines, symbol or heading path), definitions and references of
    FILE, exactly as `helix index` makes them (same ignore, secret and size rules)."""
    from indexers.parse import parse_file
    from indexers.walker import walk_one

    file = user_path(file)
    if not file.exists() and not file.is_symlink():
        raise BadPathError(f"path does not exist: {file}")
    parent = file.parent.resolve()  # the file itself may be a link: keep its own name
    root = find_repo_root(parent)
    rel = Path(os.path.relpath(parent / file.name, root)).as_posix()
    settings = load_config(root).index
    walked = walk_one(root, rel, settings)
    parsed = parse_file(walked.record, walked.text, settings)
    if as_json:
        echo_json({"file": walked.record.model_dump(mode="json"),
                   **parsed.model_dump(mode="json", include={"chunks", "defs", "refs"})})
        return
    record = walked.record
    echo(f"{visible_field(record.path)}  {record.kind}  {record.lang or '-'}  "
         f"{record.size} bytes")
    for chunk in parsed.chunks:
        label = chunk.symbol or " / ".join(chunk.heading_path) or ""
        kind = f"{chunk.kind}:{chunk.def_kind}" if chunk.def_kind else chunk.kind
        echo(f"  {visible_field(chunk.path)}:{chunk.start_line}-{chunk.end_line}  {kind}  "
             f"{visible_field(label)}")
        if with_text:
            echo("    " + chunk.text.replace("\n", "\n    "))
    refs = Counter(ref.kind for ref in parsed.refs)
    by_kind = ", ".join(f"{kind} {count}" for kind, count in sorted(refs.items()))
    echo(f"{len(parsed.chunks)} chunks, {len(parsed.defs)} definitions, "
         f"{len(parsed.refs)} references" + (f" ({by_kind})" if by_kind else ""))
