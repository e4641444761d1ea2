"""Parse shards: a large repository's parse stage split by directory, each shard parsed apart
(by a Ray task on a cluster, `helix.cluster`; in turn in this process otherwise), and the
results merged back in the walk's order. Parsing is pure (`indexers.parse`: one file in, its
chunks and symbols out), so the merged build writes the very rows, BM25 and graph a single
process writes: the same item hashes and the same `index_rev`.

    plan_shards(paths, max_files)   the files to parse, grouped by directory into shards of at
                                    most `max_files` (a larger directory is split by its
                                    subdirectories, then by path order; small neighbours are
                                    packed together): deterministic, a function of the paths
    to_parse(files, previous)       what a build would parse (not unchanged since `previous`)
    parse_shard(files, settings)    each file read and parsed as the build would: its record,
                                    its parse, its tree nodes and the warnings it raised
    parse_in_shards(...)            the build's hook: None below `cluster.shard_above_files`,
                                    else {path: parsed file} through the given `ParseMap`
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from helix.core.config import HelixConfig, IndexSettings
from helix.core.schemas import FileRecord


class ParsedFile(NamedTuple):
    record: FileRecord
    result: Any  # indexers.parse.ParsedFile or indexers.formats.CachedParse (a tree file)
    nodes: list[Any]  # indexers.trees.TreeNode
    warnings: list[str]


# shards of walked files in, each shard's parsed files out (same order): the port a cluster
# (or this process) implements
ParseMap = Callable[[list[list[Any]], IndexSettings], list[list[ParsedFile]]]


def _split(paths: Sequence[str], depth: int, max_files: int) -> list[list[str]]:
    """`paths` (sharing their first `depth` components) as groups of at most `max_files`,
    by directory at the next depth, in path order."""
    if len(paths) <= max_files:
        return [list(paths)]
    groups: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        parts = path.split("/")
        groups["/".join(parts[:depth + 1]) if len(parts) > depth + 1 else ""].append(path)
    here = groups.pop("", [])  # files directly in this directory: split by path order
    out = [here[i:i + max_files] for i in range(0, len(here), max_files)]
    for key in sorted(groups):
        out.extend(_split(groups[key], depth + 1, max_files))
    return out


def plan_shards(paths: Sequence[str], max_files: int) -> list[list[str]]:
    """Shards of at most `max_files` paths, each a run of whole directories where they fit."""
    if max_files < 1:
        raise ValueError("max_files must be at least 1")
    pieces = _split(sorted(paths), 0, max_files)
    shards: list[list[str]] = []
    for piece in pieces:
        if not piece:
            continue
        if shards and len(shards[-1]) + len(piece) <= max_files:
            shards[-1].extend(piece)
        else:
            shards.append(list(piece))
    return shards


def to_parse(files: Sequence[Any], previous: Any) -> list[Any]:
    """The walked files a build parses: those the previous generation does not hold as they
    are (the rest are copied from it)."""
    if previous is None:
        return list(files)
    return [wf for wf in files if previous.files.get(wf.record.path) != wf.record.content_hash]


def parse_shard(files: Sequence[Any], settings: IndexSettings) -> list[ParsedFile]:
    """Each walked file read, its secrets masked and parsed as `indexers.build_lexical` does
    (the shard's own `indexers.secret_scan.Scanner`: a finding depends only on the text, and
    `index.mask_secrets` is honoured as in the build)."""
    from indexers.build_lexical import parse_one
    from indexers.secret_scan import Scanner

    out = []
    with Scanner(settings) as scanner:
        for wf in files:
            read, text = wf.read(scanner.mask)
            warnings: list[str] = []
            record, result, nodes = parse_one(read, text, settings, warnings)
            out.append(ParsedFile(record, result, nodes, warnings))
    return out


def serial_map(shards: list[list[Any]], settings: IndexSettings) -> list[list[ParsedFile]]:
    return [parse_shard(shard, settings) for shard in shards]


def parse_in_shards(files: Sequence[Any], previous: Any, config: HelixConfig,
                    parse_map: ParseMap | None) -> dict[str, ParsedFile] | None:
    """{path: parsed file} when a parse map is given and more files are to parse than
    `cluster.shard_above_files`; None otherwise (the build parses them itself)."""
    pending = to_parse(files, previous)
    if parse_map is None or len(pending) <= config.cluster.shard_above_files:
        return None
    by_path = {wf.record.path: wf for wf in pending}
    plan = plan_shards(list(by_path), config.cluster.shard_files)
    parsed = parse_map([[by_path[p] for p in shard] for shard in plan], config.index)
    if [len(s) for s in parsed] != [len(s) for s in plan]:
        raise RuntimeError("a parse shard came back with another number of files")
    return {wf_path: item for shard, got in zip(plan, parsed, strict=True)
            for wf_path, item in zip(shard, got, strict=True)}
