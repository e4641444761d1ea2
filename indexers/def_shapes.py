"""Definition shapes: what a definition says, apart from how it is written.

A shape is read from one tree-sitter parse of a whole file (the queries of `indexers.symbols`
find the definitions). Its token stream is the parse's leaves without comments, without
docstrings, with string quotes made alike (`'x'` and `"x"`) and a trailing comma before a
closing bracket dropped: a change that only moves whitespace, reflows lines, edits a comment
or a docstring, or swaps quotes leaves every digest as it was.

    signature  the header's tokens (decorators, name, parameters, return type)
    params     each parameter: name, default, annotation (a class: its constructor's
               parameters, else its annotated fields, `x: int = 5`)
    returns    the return annotation
    raises     the names a `raise` / `throw` in the body names (Python, JavaScript,
               TypeScript, Java, C#, PHP, Kotlin)
    members    a class: its public methods and fields
    body       a digest of the body's tokens (a class: without its methods, which are shapes
               of their own)

`changes(old, new)` says what changed between two shapes of one definition, as typed
`CodeChange` records (parameters, defaults, signature, raises, members, body).
`code_tokens(lang, text)` is the same token stream for a snippet (a chunk's text).
"""

from __future__ import annotations

import bisect
import re
import textwrap
from collections.abc import Iterator, Sequence

from tree_sitter import Node, QueryCursor

from helix.core.changes import CodeChange
from helix.core.hashing import digest
from helix.core.schemas import Frozen
from indexers.def_parts import assigned, raises_and_calls, untyped
from indexers.symbols import CLASS_LIKE, _qualify, _raw_def, _RawDef, _tools, supported

CONSTRUCTORS = frozenset({"__init__", "constructor", "initialize", "__construct", "new"})
CLOSERS = frozenset({")", "]", "}"})
QUOTES = {"'": '"', "'''": '"""', "`": "`"}
DOCSTRING_OWNERS = frozenset({"function_definition", "class_definition", "module"})
PARAM_FIELDS = ("parameters", "parameter")
RETURN_FIELDS = ("return_type", "result")
SEARCH_DEPTH = 3  # how deep under a definition node its parameters are looked for
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
OVERLOAD = re.compile(r"(?:^| )@ (?:\w+ \. )*overload\b")  # `@overload`, `@typing.overload`


class Param(Frozen):
    name: str
    default: str | None = None
    annotation: str | None = None


class DefShape(Frozen):
    qualname: str
    kind: str
    start_line: int
    end_line: int
    signature: str  # the header without its parameters and return type (decorators, bases)
    params: tuple[Param, ...]
    returns: str | None
    raises: tuple[str, ...]
    members: tuple[str, ...]
    body: str
    tokens: str
    # a class without a constructor or fields of its own takes its parameters from a base:
    # its own are not known, and never compared
    params_known: bool = True
    # a signature without a body (a TypeScript overload, an `@overload` stub): what runs is
    # the implementation written after it under the same name
    stub: bool = False
    # the names the body calls (the last name of each callee): where an error it raises
    # through a helper comes from (never compared: a change of them is one of the body)
    calls: tuple[str, ...] = ()


Leaf = tuple[int, str]  # start byte, normalized text


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _docstring(node: Node) -> bool:
    """A string that is the first statement of a Python module, class or function body."""
    parent = node.parent
    if node.type == "expression_statement":
        named = node.named_children
        if len(named) != 1 or named[0].type != "string":
            return False
    elif node.type != "string" or parent is None or parent.type not in ("block", "module"):
        return False
    if parent is None:
        return False
    if parent.type == "block":
        owner = parent.parent
        if owner is None or owner.type not in DOCSTRING_OWNERS:
            return False
    elif parent.type != "module":
        return False
    first = next((c for c in parent.named_children if "comment" not in c.type), None)
    return first is not None and first.id == node.id


def _leaves(root: Node) -> list[Leaf]:
    """The normalized token stream under `root` (see the module docstring)."""
    out: list[Leaf] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if "comment" in kind or _docstring(node):
            continue
        if node.child_count == 0:
            text = _text(node)
            if kind in ("string_start", "string_end", "'", '"'):
                text = QUOTES.get(text.lstrip("rbfuRBFU"), text.lstrip("rbfuRBFU").replace(
                    "'", '"'))
            if text.strip():
                out.append((node.start_byte, text))
            continue
        stack.extend(reversed(node.children))
    kept: list[Leaf] = []
    for i, leaf in enumerate(out):  # a trailing comma before a closing bracket: form only
        if leaf[1] == "," and i + 1 < len(out) and out[i + 1][1] in CLOSERS:
            continue
        kept.append(leaf)
    return kept


def code_tokens(lang: str | None, text: str) -> tuple[str, ...]:
    """The normalized token stream of a snippet; words for text in no parsed language."""
    if lang is None or not supported(lang):
        return tuple(text.split())
    parser, _ = _tools(lang)
    tree = parser.parse(textwrap.dedent(text).encode("utf-8", "replace"))
    return tuple(t for _, t in _leaves(tree.root_node))


def _field(node: Node, names: Sequence[str]) -> Node | None:
    for name in names:
        found = node.child_by_field_name(name)
        if found is not None:
            return found
    return None


def _find(node: Node, names: Sequence[str], depth: int = SEARCH_DEPTH) -> Node | None:
    """`node`'s first field among `names`, looked for under it (not in bodies) to `depth`."""
    queue = [(node, 0)]
    while queue:
        current, level = queue.pop(0)
        found = _field(current, names)
        if found is not None:
            return found
        if level < depth:
            queue += [(c, level + 1) for c in current.named_children
                      if c.type not in ("block", "statement_block", "class_body", "body")
                      and c != current.child_by_field_name("body")]
    return None


def _joined(leaves: Sequence[Leaf]) -> str:
    return " ".join(t for _, t in leaves)


def _span(leaves: list[Leaf], starts: list[int], node: Node | None) -> list[Leaf]:
    if node is None:
        return []
    lo = bisect.bisect_left(starts, node.start_byte)
    hi = bisect.bisect_left(starts, node.end_byte)
    return leaves[lo:hi]


SEPARATORS = frozenset({"keyword_separator", "positional_separator"})


NAME_NODES = frozenset({"identifier", "list_splat_pattern", "dictionary_splat_pattern",
                        "rest_pattern", "simple_identifier", "variadic_parameter"})
SPLATS = frozenset({"list_splat_pattern", "dictionary_splat_pattern", "rest_pattern"})
# annotations written two ways that mean one thing (PEP 585 / 604 spellings)
TYPING_ALIASES = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set",
                  "FrozenSet": "frozenset", "Type": "type"}


def _param(node: Node, leaves: list[Leaf], starts: list[int]) -> Param | None:
    if "comment" in node.type or node.type in SEPARATORS:
        return None
    name_node = _field(node, ("name", "pattern"))
    if name_node is None:  # a typed parameter: its first name-like child (`x: int`)
        name_node = node if node.type in NAME_NODES else next(
            (c for c in node.named_children if c.type in NAME_NODES), node)
    name = "".join(t for _, t in _span(leaves, starts, name_node)) \
        if name_node.type in SPLATS else _joined(_span(leaves, starts, name_node))
    default = _field(node, ("value", "default_value"))
    annotation = _field(node, ("type",))
    if name_node is node and default is not None:
        name = name.split(" = ", 1)[0]
    return Param(name=name,
                 default=_joined(_span(leaves, starts, default)) if default is not None else None,
                 annotation=(annotation_text([t for _, t in _span(leaves, starts, annotation)])
                             if annotation is not None else None))


def annotation_text(tokens: Sequence[str]) -> str:
    """An annotation's tokens, its spellings made one: `typing.` dropped, `Optional[X]` as
    `X | None`, `Union[A, B]` as `A | B`, `List` / `Dict` / ... as `list` / `dict` / ..."""
    words = [t for t in tokens if t != ":"]
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] == "typing" and i + 1 < len(words) and words[i + 1] == ".":
            i += 2
            continue
        out.append(TYPING_ALIASES.get(words[i], words[i]))
        i += 1
    return _unwrapped(out)


def _unsubscripted(text: str) -> str:
    """A header without type arguments (`Mapping [ str , str ]` -> `Mapping`): a base class
    that gains its type parameters is the same base."""
    out: list[str] = []
    depth = 0
    for token in text.split(" "):
        if token == "[":
            depth += 1
        elif token == "]":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(token)
    return " ".join(out)


def _unwrapped(tokens: list[str]) -> str:
    """`Optional [ X ]` -> `X | None` and `Union [ A , B ]` -> `A | B`, nested ones too."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in ("Optional", "Union") and i + 1 < len(tokens) and tokens[i + 1] == "[":
            depth, j, args, start = 0, i + 1, [], i + 2
            while j < len(tokens):
                if tokens[j] == "[":
                    depth += 1
                elif tokens[j] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                elif tokens[j] == "," and depth == 1:
                    args.append(tokens[start:j])
                    start = j + 1
                j += 1
            args.append(tokens[start:j])
            parts = [_unwrapped(a) for a in args if a]
            out.append(" | ".join([*parts, "None"] if word == "Optional" else parts))
            i = j + 1
            continue
        out.append(word)
        i += 1
    return " ".join(out)


def _params(node: Node | None, leaves: list[Leaf], starts: list[int]) -> tuple[Param, ...]:
    if node is None:
        return ()
    if not node.named_children:  # a single bare parameter (`x => x`)
        return (Param(name=_text(node)),) if node.type == "identifier" else ()
    found = (_param(child, leaves, starts) for child in node.named_children)
    return tuple(p for p in found if p is not None and p.name not in ("self", "cls"))


def _fields(body: Node | None, leaves: list[Leaf], starts: list[int]) -> list[Param]:
    """A class body's annotated assignments (`x: int = 5`): dataclass-style fields."""
    out: list[Param] = []
    for child in body.named_children if body is not None else ():
        target = child.named_children[0] if child.type == "expression_statement" and \
            child.named_children else child
        if target.type != "assignment" or target.child_by_field_name("type") is None:
            continue
        left, value = target.child_by_field_name("left"), target.child_by_field_name("right")
        out.append(Param(name=_text(left),
                         default=_joined(_span(leaves, starts, value)) if value else None,
                         annotation=_joined(_span(leaves, starts,
                                                  target.child_by_field_name("type")))))
    return out


def _shape_of(raw: _RawDef, leaves: list[Leaf], starts: list[int],
              nested: list[tuple[int, int]]) -> DefShape:
    node, extent = raw.node, raw.extent
    # a function bound to a name (`const f = (x) => {...}`) has its body under the value
    body = node.child_by_field_name("body") or _find(node, ("body",))
    head_end = body.start_byte if body is not None else extent.end_byte
    lo = bisect.bisect_left(starts, extent.start_byte)
    head = leaves[lo:bisect.bisect_left(starts, head_end)]
    body_leaves = _span(leaves, starts, body)
    if raw.kind in CLASS_LIKE:
        body_leaves = [leaf for leaf in body_leaves
                       if not any(a <= leaf[0] < b for a, b in nested)]
    params, returns = _find(node, PARAM_FIELDS), _find(node, RETURN_FIELDS)
    apart = [(n.start_byte, n.end_byte) for n in (params, returns) if n is not None]
    rest = [leaf for leaf in head if not any(a <= leaf[0] < b for a, b in apart)]
    raises, calls = raises_and_calls(body)
    return DefShape(
        qualname=raw.qualname, kind=raw.kind,
        start_line=extent.start_point[0] + 1, end_line=extent.end_point[0] + 1,
        signature=_unsubscripted(annotation_text([t for _, t in rest])),
        params=_params(params, leaves, starts),
        returns=annotation_text([t for _, t in _span(leaves, starts, returns)]) or None,
        raises=raises, calls=calls, members=(), body=digest(_joined(body_leaves)),
        stub=(body is None and raw.kind not in CLASS_LIKE) or bool(OVERLOAD.search(
            " ".join(t for _, t in rest))),
        tokens=digest(_joined(leaves[lo:bisect.bisect_left(starts, extent.end_byte)])))


def shapes(lang: str, source: bytes, wanted: frozenset[str] | None = None,
           max_defs: int | None = None) -> dict[str, DefShape]:
    """qualname -> shape, for every definition of the file (or those in `wanted`); the first
    of two definitions with one qualname (a redefinition, a property's setter) is kept, but
    for `@overload` stubs: the implementation after them is. {} when the
    language has no query or the file defines more than `max_defs` names."""
    root, defs = _definitions(lang, source, max_defs)
    if root is None or not defs:
        return {}
    picked = [d for d in defs if wanted is None or d.qualname in wanted
              or _owns(d.qualname, wanted)]
    if not picked:
        return {}
    # the token stream of what is read only: a definition's tokens are those under it
    leaves = _leaves(root) if wanted is None else \
        _leaves_under([d.extent for d in picked])
    starts = [leaf[0] for leaf in leaves]
    children: dict[str, list[_RawDef]] = {}
    for d in defs:
        if d.parent is not None:
            children.setdefault(d.parent.qualname, []).append(d)
    out: dict[str, DefShape] = {}
    for d in picked:
        if d.qualname in out and not stub(out[d.qualname]):
            continue
        kids = children.get(d.qualname, [])
        nested = [(k.extent.start_byte, k.extent.end_byte) for k in kids]
        shape = _shape_of(d, leaves, starts, nested)
        if d.kind in CLASS_LIKE:
            shape = _class_shape(shape, d, kids, leaves, starts)
        if d.qualname not in out or not stub(shape):  # the implementation after its stubs
            out[d.qualname] = shape
    return {q: s for q, s in out.items() if wanted is None or q in wanted}


def _definitions(lang: str, source: bytes, max_defs: int | None = None
                 ) -> tuple[Node | None, list[_RawDef]]:
    """The parse's root and the file's definitions, qualified (none when the language has
    no query or the file defines more than `max_defs` names)."""
    if not supported(lang):
        return None, []
    parser, query = _tools(lang)
    tree = parser.parse(source)
    raw = []
    for _, caps in QueryCursor(query).matches(tree.root_node):
        for key in caps:
            if key.startswith("definition."):
                item = _raw_def(caps, key)
                if item is not None:
                    raw.append(item)
        if max_defs is not None and len(raw) > max_defs:
            return None, []
    return tree.root_node, [d for d in _qualify(raw) if d.kind != "impl"]


def defined(lang: str, source: bytes) -> dict[str, str]:
    """qualname -> kind of every definition of the file: what `shapes` finds, without
    reading any of them (no token stream): for asking which names a version defines."""
    return {d.qualname: d.kind for d in _definitions(lang, source)[1]}


def _leaves_under(nodes: Sequence[Node]) -> list[Leaf]:
    """The token stream under each of `nodes` (one nested in another read once), in order:
    for a definition the same tokens `_leaves` of the whole file has under it."""
    out: list[Leaf] = []
    end = -1
    for node in sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte)):
        if node.start_byte >= end:
            out += _leaves(node)
            end = node.end_byte
        elif node.end_byte > end:  # overlapping, not nested: the rest of it
            out += [leaf for leaf in _leaves(node) if leaf[0] >= end]
            end = node.end_byte
    return out


def stub(shape: DefShape) -> bool:
    """An overload's signature (`@typing.overload`, a TypeScript signature without a body):
    the implementation follows it under the same name; it says nothing of what runs."""
    return shape.stub


def _overload(raw: _RawDef) -> bool:
    """A constructor's overload signature: decorated `@overload`, or without a body."""
    node = raw.node
    body = node.child_by_field_name("body") or _find(node, ("body",))
    head = _text(raw.node.parent) if raw.node.parent is not None and \
        raw.node.parent.type == "decorated_definition" else ""
    return body is None or bool(OVERLOAD.search(" ".join(head.split()).replace("@", "@ ")))


def _owns(qualname: str, wanted: frozenset[str]) -> bool:
    """A class's constructor is read for the class."""
    owner, _, name = qualname.rpartition(".")
    return bool(owner) and owner in wanted and name in CONSTRUCTORS


def _class_shape(shape: DefShape, raw: _RawDef, kids: list[_RawDef], leaves: list[Leaf],
                 starts: list[int]) -> DefShape:
    body = raw.node.child_by_field_name("body")
    fields = _fields(body, leaves, starts)
    ctors = [k for k in kids if k.name in CONSTRUCTORS]
    # the implementation: after its overloads' signatures (and the one that runs in Python)
    ctor = next((k for k in reversed(ctors) if not _overload(k)), ctors[0] if ctors else None)
    params = _params(_find(ctor.node, PARAM_FIELDS), leaves, starts) if ctor is not None else ()
    named = {p.name for p in params}
    params += tuple(f for f in fields if f.name not in named)
    names = {k.name for k in kids} | {f.name for f in fields} | assigned(body)
    members = tuple(sorted(n for n in names if not n.startswith("_")))
    return shape.model_copy(update={"params": params, "members": members, "raises": (),
                                    "calls": (),
                                    "params_known": ctor is not None or bool(fields)})


def _param_changes(old: Sequence[Param], new: Sequence[Param]) -> Iterator[CodeChange]:
    before = {p.name: p for p in old}
    after = {p.name: p for p in new}
    added = [n for n in after if n not in before]
    removed = [n for n in before if n not in after]
    if added:
        yield CodeChange(kind="parameters", detail=f"added {', '.join(added)}",
                         names=tuple(added))
    if removed:
        yield CodeChange(kind="parameters", detail=f"removed {', '.join(removed)}",
                         names=tuple(removed))
    if not added and not removed and list(before) != list(after):
        yield CodeChange(kind="parameters", detail="reordered: " + ", ".join(after),
                         names=tuple(after))
    for name in (n for n in after if n in before):
        was, now = before[name], after[name]
        if was.default != now.default:
            yield CodeChange(kind="defaults", detail=f"{name}: {_said(was.default)} -> "
                                                     f"{_said(now.default)}",
                             names=(name, *((was.default,) if was.default else ())))
        if was.annotation != now.annotation:
            yield CodeChange(kind="annotations", detail=f"{name}: {_said(was.annotation)} -> "
                                                        f"{_said(now.annotation)}",
                             names=(name,))


def _said(value: str | None) -> str:
    return value if value is not None else "(none)"


def changes(old: DefShape, new: DefShape) -> list[CodeChange]:
    """What changed between two shapes of one definition; [] when only its form did."""
    if old.tokens == new.tokens:
        return []
    out = list(_param_changes(old.params, new.params)) \
        if old.params_known and new.params_known else []
    if old.returns != new.returns:
        out.append(CodeChange(kind="annotations",
                              detail=f"returns {old.returns or '(none)'} -> "
                                     f"{new.returns or '(none)'}", names=("return",)))
    if old.signature != new.signature:  # decorators, modifiers, bases
        was, now = untyped(old.signature), untyped(new.signature)
        gone = sorted(set(_NAME.findall(was)) - set(_NAME.findall(now)))
        out.append(CodeChange(kind="signature" if was != now else "annotations",
                              detail=f"{old.signature} -> {new.signature}",
                              names=tuple(gone) if was != now else ("type parameters",)))
    gone, came = sorted(set(old.raises) - set(new.raises)), sorted(set(new.raises) - set(
        old.raises))
    if gone or came:
        out.append(CodeChange(kind="raises", detail="; ".join(part for part in (
            f"now raises {', '.join(came)}" if came else "",
            f"no longer raises {', '.join(gone)}" if gone else "") if part),
            names=tuple(sorted({*gone, *came}))))
    removed = sorted(set(old.members) - set(new.members))
    if removed:
        out.append(CodeChange(kind="members", detail=f"removed {', '.join(removed)}",
                              names=tuple(removed)))
    if old.body != new.body:
        out.append(CodeChange(kind="body", detail="the body's code changed"))
    return out
