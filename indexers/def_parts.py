"""Parts of a definition `indexers.def_shapes` reads besides its tokens: the errors its body
raises and the names it calls, the names a class body binds by assignment, a signature
without its type parameters.
"""

from __future__ import annotations

import re

from tree_sitter import Node

THROWS = frozenset({"raise_statement", "throw_statement", "throw_expression"})
CALLS = frozenset({"call", "call_expression", "method_invocation", "invocation_expression",
                   "function_call_expression", "member_call_expression"})
CONDITIONALS = frozenset({"conditional_expression", "ternary_expression"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _thrown(node: Node) -> list[str]:
    named = [c for c in node.named_children if "comment" not in c.type]
    if not named:
        return []  # a bare `raise`: the error being handled, raised again
    return _errors(named[0])


def _errors(target: Node) -> list[str]:
    """The errors a raised expression names: each branch of a conditional one
    (`raise E(why) if why else E`), the callee of a call (`E(why)`, `new E(why)`)."""
    if target.type in CONDITIONALS:
        branches = [c for c in target.named_children if "comment" not in c.type][:3]
        # Python: `a if test else b`; C-like: `test ? a : b`
        picked = (branches[0], branches[2]) if target.type == "conditional_expression" \
            and len(branches) == 3 else tuple(branches[1:])
        return [name for branch in picked for name in _errors(branch)]
    if target.type in ("call", "call_expression"):
        target = target.child_by_field_name("function") or target
    elif target.type in ("new_expression", "object_creation_expression"):
        target = target.child_by_field_name("constructor") or target.child_by_field_name(
            "type") or target
    name = " ".join(_text(target).split())
    return [name] if name else []


def raises_and_calls(body: Node | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The errors the body raises itself, and the names of what it calls (the last name of
    each callee: `self._check(x)` -> `_check`), both sorted."""
    if body is None:
        return (), ()
    names: set[str] = set()
    called: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in THROWS:
            names.update(_thrown(node))
        elif node.type in CALLS:
            callee = node.child_by_field_name("function") or node.child_by_field_name("name")
            found = _NAME.findall(_text(callee)) if callee is not None else []
            if found:
                called.add(found[-1])
        stack.extend(node.named_children)
    return tuple(sorted(names)), tuple(sorted(called))


def assigned(body: Node | None) -> set[str]:
    """The names a class body binds by plain assignment (`get = partialmethod(add, GET)`,
    `aliased = original`): attributes of the class as much as its methods."""
    out: set[str] = set()
    for child in body.named_children if body is not None else ():
        target = child.named_children[0] if child.type == "expression_statement" and \
            child.named_children else child
        if target.type == "assignment" and \
                target.child_by_field_name("type") is None:
            left = target.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                out.add(_text(left))
    return out


def untyped(signature: str) -> str:
    """A signature without its type parameters (`function f < T extends Object >` ->
    `function f`): what they constrain is an annotation, not a base or a decorator."""
    out: list[str] = []
    depth = 0
    for token in signature.split(" "):
        if token == "<" and (depth or (out and _NAME.fullmatch(out[-1]))):
            depth += 1
        elif token == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(token)
    return " ".join(out) if not depth else signature  # `a < b` in a decorator: no brackets
