"""Tree-sitter definitions and references, from one parse and one query run per file.

Queries live in `indexers/queries/<lang>.scm` and use these captures:
    @definition.<kind> + @name   a definition (kind: class, function, struct, interface, enum,
                                 type, module; `impl` is a Rust impl block: a qualname prefix
                                 for its methods, not a definition itself)
    @receiver, @type_body        Go: the method's receiver type, the type spec's body
    @reference.<kind>            a reference's name node (call, type, name, attribute; an
                                 attribute that is called counts as a call only); when the
                                 name is the member of a member access (`obj.run()`,
                                 `pkg::f()`, `$this->m()`), the object's text is its receiver
    @import / @import.require    an import statement (parsed here per language) / a require()
A "function" whose nearest enclosing definition is class-like becomes a "method"; qualnames join
names with "." (`Class.method`, Go `Recv.Method`, Rust `Type.method`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, cast

from tree_sitter import Node, Parser, Query, QueryCursor

from helix.core.schemas import DefKind, Frozen, RefKind, SymbolDef, SymbolRef, node_id_def

# Languages whose grammar reuses another language's query file.
QUERY_FILE = {"tsx": "typescript"}
CLASS_LIKE: frozenset[str] = frozenset({"class", "struct", "interface", "enum", "impl"})
# Nodes directly above a definition that belong to its chunk (doc comments, attributes).
LEADING_NODES = frozenset(
    {"comment", "line_comment", "block_comment", "attribute_item", "decorator", "annotation"}
)
# Node types whose parent is the real extent of the definition.
WRAPPERS = frozenset({"decorated_definition"})
GO_TYPE_KINDS: dict[str, DefKind] = {"struct_type": "struct", "interface_type": "interface"}
# Member accesses, by grammar: a reference's name node whose parent is one of these (a Kotlin
# navigation_suffix's parent) and which does not start it is the member; the text before it is
# the object (its receiver).
MEMBER_TYPES = frozenset({
    "attribute",  # python
    "member_expression", "nested_type_identifier",  # javascript, typescript
    "selector_expression", "qualified_type",  # go
    "field_expression", "scoped_identifier", "scoped_type_identifier",  # rust, c, c++, java
    "qualified_identifier",  # c++
    "method_invocation", "field_access",  # java
    "member_access_expression", "qualified_name",  # c#, php
    "navigation_expression", "user_type",  # kotlin
    "member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression",
    "nullsafe_member_access_expression", "class_constant_access_expression",  # php
    "call", "scope_resolution",  # ruby
})
RECEIVER_MAX = 80
_TRAILING_SEP = re.compile(r"\s*(?:\?\.|!!\.|&\.|\.|::|\?->|->|\\)\s*$")
_SPACED_SEP = re.compile(r"\s*(\?\.|::|\?->|->|\.)\s*|(?<=[(\[{])\s+|\s+(?=[)\]}])")
Import = tuple[str, str, str | None]  # (name, module as written, local alias or None)


class DefSpan(Frozen):
    """A definition as the chunker needs it (lines are 1-based, inclusive)."""

    qualname: str
    kind: DefKind
    start_line: int  # the definition itself (decorators included)
    end_line: int
    chunk_start: int  # start_line moved up over adjacent leading comments / attributes
    parent: str | None  # qualname of the enclosing definition, if any


class FileSymbols(Frozen):
    spans: tuple[DefSpan, ...]  # sorted by (start_line, -end_line, qualname)
    defs: tuple[SymbolDef, ...]
    refs: tuple[SymbolRef, ...]


@cache
def _tools(lang: str) -> tuple[Parser, Query]:
    from tree_sitter_language_pack import get_language, get_parser

    name = QUERY_FILE.get(lang, lang)
    source = resources.files("indexers").joinpath("queries", f"{name}.scm").read_text("utf-8")
    return get_parser(cast(Any, lang)), Query(get_language(cast(Any, lang)), source)


@cache
def supported(lang: str | None) -> bool:
    """Whether a query ships for `lang` (checked once per language)."""
    if lang is None:
        return False
    return resources.files("indexers").joinpath(
        "queries", f"{QUERY_FILE.get(lang, lang)}.scm"
    ).is_file()


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def receiver_of(node: Node, source: bytes) -> str | None:
    """The object a reference's name is a member of (`pkg.mod` in `pkg.mod.f()`, `self`,
    `Foo` in `Foo::new()`, `$this` in `$this->m()`), as written with whitespace normalised and
    the separator dropped; None when the name is not a member (`f()`). Texts longer than
    RECEIVER_MAX are cut and end in "…" (an expression, never a name)."""
    parent = node.parent
    if parent is not None and parent.type == "navigation_suffix":  # kotlin
        parent = parent.parent
    while (parent is not None and parent.type == "qualified_identifier"
           and parent.parent is not None and parent.parent.type == "qualified_identifier"
           and parent.parent.child_by_field_name("name") == parent):  # c++ a::b::f
        parent = parent.parent
    if parent is None or parent.type not in MEMBER_TYPES or parent.start_byte >= node.start_byte:
        return None
    raw = source[parent.start_byte:node.start_byte].decode("utf-8", errors="replace")
    text = _SPACED_SEP.sub(lambda m: m.group(1) or "", " ".join(raw.split()))
    text = _TRAILING_SEP.sub("", text).lstrip("\\")
    if not text:
        return None
    return text if len(text) <= RECEIVER_MAX else text[:RECEIVER_MAX - 1] + "…"


@dataclass
class _RawDef:
    node: Node  # the definition node (used for scope of references)
    name_node: Node
    extent: Node  # node whose lines the definition covers (decorated wrapper if any)
    name: str
    kind: str
    receiver: str | None
    qualname: str = ""
    parent: _RawDef | None = None


def _leading_start(extent: Node) -> int:
    row = extent.start_point[0]
    sibling = extent.prev_named_sibling
    while sibling is not None and sibling.type in LEADING_NODES and sibling.end_point[0] >= row - 1:
        row = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    return row


def _raw_def(caps: dict[str, list[Node]], key: str) -> _RawDef | None:
    node = caps[key][0]
    names = caps.get("name")
    if not names:
        return None
    kind = key.split(".", 1)[1]
    body = caps.get("type_body")
    if body:
        kind = GO_TYPE_KINDS.get(body[0].type, "type")
    if kind == "class" and any(child.type == "interface" for child in node.children):
        kind = "interface"  # Kotlin: `interface I` is a class_declaration with that keyword
    receiver = caps.get("receiver")
    extent = node.parent if node.parent is not None and node.parent.type in WRAPPERS else node
    owner = _text(receiver[0]) if receiver else None
    return _RawDef(node, names[0], extent, _text(names[0]), kind, owner)


def _qualify(raw: list[_RawDef]) -> list[_RawDef]:
    """Nest by byte containment and give every definition its qualname."""
    raw.sort(key=lambda d: (d.extent.start_byte, -d.extent.end_byte, d.name))
    stack: list[_RawDef] = []
    seen: set[tuple[int, int, str]] = set()
    out: list[_RawDef] = []
    for item in raw:
        key = (item.node.start_byte, item.node.end_byte, item.name)
        if key in seen:  # the same definition matched by two patterns
            continue
        seen.add(key)
        # Equal extents are siblings (`const a = () => 1, b = () => 2`), not parent and child.
        while stack and (
            stack[-1].extent.end_byte <= item.extent.start_byte
            or (stack[-1].extent.start_byte, stack[-1].extent.end_byte)
            == (item.extent.start_byte, item.extent.end_byte)
        ):
            stack.pop()
        item.parent = stack[-1] if stack else None
        parts = item.name.replace("::", ".").split(".")
        item.name = parts[-1]
        prefix = ".".join(parts[:-1])
        if item.receiver:
            prefix = item.receiver
        elif item.parent is not None:
            prefix = ".".join(p for p in (item.parent.qualname, prefix) if p)
        item.qualname = f"{prefix}.{item.name}" if prefix else item.name
        if item.kind == "function" and (
            item.receiver or (item.parent is not None and item.parent.kind in CLASS_LIKE)
        ):
            item.kind = "method"
        stack.append(item)
        out.append(item)
    return out


def _scope_of(item: _RawDef, known: set[str]) -> str | None:
    """The enclosing definition's qualname; a method's type when it is defined in this file."""
    parent = item.parent
    if parent is not None and parent.kind != "impl":
        return parent.qualname
    owner = item.qualname.rpartition(".")[0]
    return owner if owner and owner in known else None


def _scopes(defs: list[_RawDef], positions: list[int]) -> list[str | None]:
    """Innermost definition (by its own node) enclosing each byte position (positions sorted)."""
    ordered = sorted(
        (d for d in defs if d.kind != "impl"),
        key=lambda d: (d.node.start_byte, -d.node.end_byte, d.qualname),
    )
    out: list[str | None] = []
    stack: list[_RawDef] = []
    i = 0
    for pos in positions:
        while i < len(ordered) and ordered[i].node.start_byte <= pos:
            while stack and stack[-1].node.end_byte <= ordered[i].node.start_byte:
                stack.pop()
            stack.append(ordered[i])
            i += 1
        while stack and stack[-1].node.end_byte <= pos:
            stack.pop()
        out.append(stack[-1].qualname if stack else None)
    return out


# ---- imports: (name, module) pairs per language -------------------------------------------

def _unquote(text: str) -> str:
    return text.strip().strip("\"'`<>")


def _alias(node: Node, field: str = "alias") -> str | None:
    alias = node.child_by_field_name(field)
    return _text(alias) if alias is not None else None


def _python_imports(node: Node) -> list[Import]:
    named: list[tuple[str, str | None]] = []
    for child in node.children_by_field_name("name"):
        aliased = child.type == "aliased_import"
        target = child.child_by_field_name("name") if aliased else child
        named.append((_text(target) if target is not None else _text(child),
                      _alias(child) if aliased else None))
    if node.type == "import_statement":
        return [(dotted, dotted, alias) for dotted, alias in named]
    module_node = node.child_by_field_name("module_name")
    module = _text(module_node) if module_node is not None else "__future__"
    if any(child.type == "wildcard_import" for child in node.named_children):
        named.append(("*", None))
    return [(name, module, alias) for name, alias in named]


def _require_binding(node: Node) -> str | None:
    """`x` in `const x = require("./m")` (None for a destructuring or a bare require)."""
    call = node.parent.parent if node.parent is not None else None
    declarator = call.parent if call is not None else None
    if declarator is None or declarator.type != "variable_declarator":
        return None
    name = declarator.child_by_field_name("name")
    return _text(name) if name is not None and name.type == "identifier" else None


def _specifiers(part: Node, kind: str) -> list[tuple[str, str | None]]:
    return [(_text(spec.child_by_field_name("name") or spec), _alias(spec))
            for spec in part.named_children if spec.type == kind]


def _js_imports(node: Node) -> list[Import]:
    if node.type == "string":  # require("x")
        module = _unquote(_text(node))
        return [(module, module, _require_binding(node))]
    source = node.child_by_field_name("source")
    if source is None:
        return []
    module = _unquote(_text(source))
    names: list[tuple[str, str | None]] = []
    for child in node.named_children:
        if child.type == "import_clause":
            for part in child.named_children:
                if part.type == "identifier":
                    names.append((_text(part), None))
                elif part.type == "namespace_import":
                    bound = [c for c in part.named_children if c.type == "identifier"]
                    names.append(("*", _text(bound[0]) if bound else None))
                elif part.type == "named_imports":
                    names.extend(_specifiers(part, "import_specifier"))
        elif child.type == "export_clause":
            names.extend(_specifiers(child, "export_specifier"))
    if not names:
        names = [("*", None)] if node.type == "export_statement" else [(module, None)]
    return [(name, module, alias) for name, alias in names]


def _go_imports(node: Node) -> list[Import]:
    path = node.child_by_field_name("path")
    if path is None:
        return []
    module = _unquote(_text(path))
    alias = node.child_by_field_name("name")
    name = _text(alias) if alias is not None else ""
    if name in ("", "_", "."):
        name = module.rsplit("/", 1)[-1]
    return [(name, module, None)]


def _split_rust(full: str, alias: str | None = None) -> Import:
    module, _, name = full.rpartition("::")
    return name, module, alias


def _rust_use(node: Node, prefix: str) -> list[Import]:
    def join(text: str) -> str:
        return f"{prefix}::{text}" if prefix and text else prefix or text

    kind = node.type
    if kind == "use_as_clause":
        path = node.child_by_field_name("path")
        if path is None:
            return []
        return [(name, module, _alias(node)) for name, module, _ in _rust_use(path, prefix)]
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = join(_text(path) if path is not None else "")
        listing = node.child_by_field_name("list")
        return _rust_use(listing, inner) if listing is not None else []
    if kind == "use_list":
        return [pair for child in node.named_children for pair in _rust_use(child, prefix)]
    if kind == "use_wildcard":
        return [("*", join(_text(node).removesuffix("*").removesuffix("::")), None)]
    return [_split_rust(join(_text(node)))]


def _rust_imports(node: Node) -> list[Import]:
    argument = node.child_by_field_name("argument")
    return _rust_use(argument, "") if argument is not None else []


def _java_imports(node: Node) -> list[Import]:
    dotted = _text(node).removeprefix("import").strip().removesuffix(";").strip()
    dotted = dotted.removeprefix("static").strip().replace(" ", "")
    module, _, name = dotted.rpartition(".")
    return [(name, module, None)]


def _include(node: Node) -> list[Import]:
    if node.type == "string":  # ruby require
        module = _unquote(_text(node))
        return [(module, module, None)]
    path = node.child_by_field_name("path")
    if path is None:
        return []
    module = _unquote(_text(path))
    return [(module, module, None)]


def _csharp_imports(node: Node) -> list[Import]:
    text = _text(node).removeprefix("global").strip().removeprefix("using").strip()
    text = text.removesuffix(";").strip().removeprefix("static").strip()
    alias, _, target = text.partition("=")
    if target:
        return [(alias.strip(), target.strip(), None)]
    return [(text, text, None)]


def _as_alias(text: str) -> tuple[str, str | None]:
    """`a.b.C as D` -> ("a.b.C", "D"); no `as`: (text, None)."""
    path, _, alias = text.partition(" as ")
    return path.strip(), alias.strip() or None


def _php_imports(node: Node) -> list[Import]:
    if node.type != "namespace_use_clause":  # require / include "x.php"
        module = _unquote(_text(node))
        return [(module, module, None)] if module else []
    path, alias = _as_alias(_text(node))
    module, _, name = path.lstrip("\\").rpartition("\\")
    return [(name, module, alias)]


def _kotlin_imports(node: Node) -> list[Import]:
    dotted, alias = _as_alias(_text(node).removeprefix("import").strip())
    module, _, name = dotted.rpartition(".")
    return [(name, module, alias)]


IMPORT_PARSERS: dict[str, Callable[[Node], list[Import]]] = {
    "python": _python_imports,
    "javascript": _js_imports,
    "typescript": _js_imports,
    "tsx": _js_imports,
    "go": _go_imports,
    "rust": _rust_imports,
    "java": _java_imports,
    "c": _include,
    "cpp": _include,
    "ruby": _include,
    "csharp": _csharp_imports,
    "php": _php_imports,
    "kotlin": _kotlin_imports,
}


# ---- the one entry point ------------------------------------------------------------------

class TooManySymbols(Exception):
    """A file defines more symbols than `IndexSettings.max_file_symbols`."""


def extract(path: str, lang: str, source: bytes, max_defs: int | None = None) -> FileSymbols:
    """Definitions (as spans and SymbolDefs) and references of one file, from one parse.
    TooManySymbols as soon as more than `max_defs` definitions are found (memory stays
    bounded: the rest are never built)."""
    parser, query = _tools(lang)
    tree = parser.parse(source)
    raw: list[_RawDef] = []
    ref_nodes: list[tuple[Node, str]] = []
    import_nodes: list[Node] = []
    for _, caps in QueryCursor(query).matches(tree.root_node):
        for key, nodes in caps.items():
            if key.startswith("definition."):
                item = _raw_def(caps, key)
                if item is not None:
                    raw.append(item)
                    if max_defs is not None and len(raw) > max_defs:
                        raise TooManySymbols(f"{path}: more than {max_defs:,} definitions")
            elif key.startswith("reference."):
                ref_nodes.extend((node, key.split(".", 1)[1]) for node in nodes)
            elif key in ("import", "import.require"):
                import_nodes.extend(nodes)
    defs = _qualify(raw)
    kinds = {d.qualname: d.kind for d in defs if d.kind != "impl"}
    known = set(kinds)
    spans: list[DefSpan] = []
    symbol_defs: list[SymbolDef] = []
    name_starts: set[int] = set()
    for item in defs:
        if item.kind == "impl":
            continue
        name_starts.add(item.name_node.start_byte)
        start = item.extent.start_point[0] + 1
        end = item.extent.end_point[0] + 1
        scope = _scope_of(item, known)
        if item.kind == "function" and scope is not None and kinds.get(scope) in CLASS_LIKE:
            item.kind = "method"  # C++ `void C::m() {}` outside its class
        kind = cast(DefKind, item.kind)
        spans.append(
            DefSpan(
                qualname=item.qualname, kind=kind, start_line=start, end_line=end,
                chunk_start=_leading_start(item.extent) + 1, parent=scope,
            )
        )
        symbol_defs.append(
            SymbolDef(
                name=item.name, qualname=item.qualname, kind=kind, path=path, start_line=start,
                end_line=end, scope=scope, node_id=node_id_def(path, item.qualname),
            )
        )
    refs = _references(path, lang, source, defs, ref_nodes, import_nodes, name_starts)
    spans.sort(key=lambda s: (s.start_line, -s.end_line, s.qualname))
    symbol_defs.sort(key=lambda d: (d.start_line, -d.end_line, d.qualname))
    return FileSymbols(spans=tuple(spans), defs=tuple(symbol_defs), refs=refs)


def _references(
    path: str,
    lang: str,
    source: bytes,
    defs: list[_RawDef],
    ref_nodes: list[tuple[Node, str]],
    import_nodes: list[Node],
    name_starts: set[int],
) -> tuple[SymbolRef, ...]:
    # (byte, kind, name) -> (line, module, receiver, order); a node captured by two patterns
    # counts once
    found: dict[tuple[int, str, str], tuple[int, str | None, str | None, int]] = {}
    calls = {node.start_byte for node, kind in ref_nodes if kind == "call"}
    for node, kind in ref_nodes:
        if node.start_byte in name_starts:
            continue  # a definition's own name is not a reference
        if kind == "attribute" and node.start_byte in calls:
            continue  # `obj.run()` is a call of run, not also an attribute access
        key = (node.start_byte, kind, _text(node))
        if key not in found:
            found[key] = (node.start_point[0] + 1, None, receiver_of(node, source), len(found))
    parse_imports = IMPORT_PARSERS.get(lang)
    if parse_imports is not None:
        for node in import_nodes:
            for name, module, alias in parse_imports(node):
                if name:
                    found.setdefault(
                        (node.start_byte, "import", name),
                        (node.start_point[0] + 1, module, alias if alias != name else None,
                         len(found)),
                    )
    # Source order; the names of one import statement in the order written.
    keys = sorted(found, key=lambda key: (key[0], found[key][3]))
    scopes = _scopes(defs, [key[0] for key in keys])
    refs = []
    for (pos, kind, name), scope in zip(keys, scopes, strict=True):
        line, written, receiver, _ = found[(pos, kind, name)]
        refs.append(SymbolRef(name=name, kind=cast(RefKind, kind), path=path, line=line,
                              scope=scope, module=written, receiver=receiver))
    return tuple(refs)

