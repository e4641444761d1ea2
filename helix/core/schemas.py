"""Records that cross module boundaries on the index side: files, chunks, symbols, hits.

All frozen, all extra="forbid". Paths are POSIX, relative to the repository root. Lines are
1-based and inclusive.

Graph node ids (stable strings, see `node_id_*` helpers):
    repo:                         the repository
    dir:<path>                    a directory ("dir:." is never used; the root is "repo:")
    file:<path>                   a file
    sec:<path>#<line>             a documentation section starting at <line>
    def:<path>::<qualname>        a class / function / method definition
    tree:<tree-file>#<node-id>    a node of a repository-provided tree/concept JSON
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """The one base of Helix's immutable models: frozen, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class FrozenSettings(Frozen):
    """Settings a user writes (config, policy): inf and NaN refused too."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


FileKind = Literal["code", "doc", "text", "tree"]
ChunkKind = Literal["doc_section", "code_def", "code_module", "text_window", "tree_node"]
DefKind = Literal["class", "function", "method", "interface", "struct", "enum", "type", "module"]
RefKind = Literal["call", "name", "attribute", "import", "type"]
Channel = Literal["bm25", "dense", "symbol", "path", "graph", "tree"]
SkipReason = Literal[
    "ignored", "binary", "too_large", "secret", "symlink_outside", "symlink_loop",
    "unreadable", "vanished", "undecodable_name",
]


class FileRecord(Frozen):
    path: str
    content_hash: str
    size: int
    kind: FileKind
    lang: str | None = None  # tree-sitter language name, "markdown", "rst", "text"


class Chunk(Frozen):
    id: str  # stable: derived from path + kind + start line + content hash
    path: str
    kind: ChunkKind
    lang: str | None
    start_line: int
    end_line: int
    text: str
    content_hash: str  # hash of `text`
    heading_path: tuple[str, ...] = ()  # doc sections: the headings down to this one
    symbol: str | None = None  # code_def: qualified name (Class.method)
    def_kind: DefKind | None = None
    node_id: str  # the graph node this chunk belongs to



class ChunkHead(NamedTuple):
    """What a chunk is without its text: enough to filter and group hits by file."""

    id: str
    path: str
    kind: str
    start_line: int
    symbol: str | None

class SymbolDef(Frozen):
    name: str
    qualname: str
    kind: DefKind
    path: str
    start_line: int
    end_line: int
    scope: str | None  # enclosing definition's qualname, None at module level
    node_id: str


class SymbolRef(Frozen):
    name: str
    kind: RefKind
    path: str
    line: int
    scope: str | None  # qualname of the enclosing definition, None at module level
    # For imports: the module path as written (`os.path`, `./util`).
    module: str | None = None
    # A member access's object as written (`self`, `pkg.mod`, `x.items()`; whitespace
    # normalised, at most 80 characters); for an import, the local name it binds when that
    # differs from `name` (`import numpy as np`: np; `import * as ns`: ns); else None.
    receiver: str | None = None


class Hit(Frozen):
    chunk_id: str
    score: float
    channel: Channel
    rank: int  # 1-based within its channel's result list


def node_id_file(path: str) -> str:
    return f"file:{path}"


def node_id_dir(path: str) -> str:
    return "repo:" if path in ("", ".") else f"dir:{path}"


def node_id_section(path: str, start_line: int) -> str:
    return f"sec:{path}#{start_line}"


def node_id_def(path: str, qualname: str) -> str:
    return f"def:{path}::{qualname}"


def node_id_tree(tree_file: str, node: str) -> str:
    return f"tree:{tree_file}#{node}"
