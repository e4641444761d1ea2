"""A small evaluator of the Go expressions that build a scanner's rule samples (benchmark tool).

Gitleaks writes the true and false positives of each rule as Go code: string literals joined by
`+`, `[]string{...}` and `map[string]string{...}` literals, `append`, `fmt.Sprintf`, calls of
its own helpers (`utils.GenerateSampleSecrets`, `utils.AlphaNumeric("36")`) and
`secrets.NewSecret(regex)`, which draws a random string matching a regular expression. This
module reads such source text (never runs it): it tokenizes Go, splits function bodies into
statements, and evaluates the expressions it understands. Whatever it does not understand
raises `Unsupported`, so the extractor can count the samples it had to skip.

Helpers it calls are either evaluated from their own source when their body is one `return`
statement (the snapshot's `utils.AlphaNumeric`), or given here by name in `Builtins` (the ones
with loops or builders).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


class Unsupported(Exception):
    """An expression or statement this evaluator does not understand."""


@dataclass(frozen=True)
class Tok:
    kind: str  # "id", "str", "num", "op", ";"
    text: str
    value: Any = None


_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+) | (?P<nl>\n) | (?P<lc>//[^\n]*) | (?P<bc>/\*.*?\*/)
  | (?P<raw>`[^`]*`) | (?P<str>"(?:[^"\\\n]|\\.)*") | (?P<rune>'(?:[^'\\\n]|\\.)+')
  | (?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?) | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|:=|==|!=|<=|>=|&&|\|\||\+\+|--|\+=|<-|[-+*/%&|^<>=!(){}\[\],.;:])
""", re.X | re.S)
_ENDS_STATEMENT = {"str", "num", "id"}


def _unquote(text: str) -> str:
    body = text[1:-1]
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape") if "\\" in body \
        else body


def tokenize(source: str) -> list[Tok]:
    """Go tokens with the language's automatic semicolons (a newline after an identifier, a
    literal, `)`, `]`, `}`, `++` or `--` ends a statement)."""
    out: list[Tok] = []
    at = 0
    while at < len(source):
        match = _TOKEN.match(source, at)
        if match is None:
            raise Unsupported(f"cannot tokenize at {source[at:at + 20]!r}")
        at = match.end()
        kind, text = match.lastgroup, match.group()
        newline = kind == "nl" or (kind == "bc" and "\n" in text)
        if newline and out and (out[-1].kind in _ENDS_STATEMENT or out[-1].text in (
                ")", "]", "}", "++", "--", "return", "break", "continue")):
            out.append(Tok(";", ";"))
        if kind in ("ws", "nl", "lc", "bc"):
            continue
        if kind == "raw":
            out.append(Tok("str", text, text[1:-1].replace("\r", "")))
        elif kind == "str":
            out.append(Tok("str", text, _unquote(text)))
        elif kind == "rune":
            out.append(Tok("num", text, ord(_unquote(text))))
        elif kind == "num":
            out.append(Tok("num", text, float(text) if "." in text or "e" in text.lower()
                           else int(text)))
        elif kind == "id":
            out.append(Tok("id", text))
        else:
            out.append(Tok(";" if text == ";" else "op", text))
    return out


@dataclass
class Func:
    name: str
    params: list[str]
    body: list[Tok]


def _matching(tokens: list[Tok], at: int) -> int:
    """The index of the bracket closing the one at `at`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opening = tokens[at].text
    depth = 0
    for index in range(at, len(tokens)):
        text = tokens[index].text if tokens[index].kind == "op" else ""
        if text == opening:
            depth += 1
        elif text == pairs[opening]:
            depth -= 1
            if depth == 0:
                return index
    raise Unsupported("unbalanced brackets")


def statements(tokens: list[Tok]) -> Iterator[list[Tok]]:
    """Top-level statements of a token list (split at `;` outside brackets)."""
    current: list[Tok] = []
    depth = 0
    for tok in tokens:
        if tok.kind == "op" and tok.text in "([{":
            depth += 1
        elif tok.kind == "op" and tok.text in ")]}":
            depth -= 1
        if tok.kind == ";" and depth == 0:
            if current:
                yield current
            current = []
        else:
            current.append(tok)
    if current:
        yield current


def split_file(tokens: list[Tok]) -> tuple[list[list[Tok]], list[Func]]:
    """(package-level var/const declarations, functions) of one Go file."""
    decls: list[list[Tok]] = []
    funcs: list[Func] = []
    for stmt in statements(tokens):
        head = stmt[0].text
        if head == "func" and len(stmt) > 2 and stmt[1].kind == "id":
            open_params = 2
            close_params = _matching(stmt, open_params)
            params = [t.text for t in _param_names(stmt[open_params + 1:close_params])]
            brace = next((i for i in range(close_params, len(stmt)) if stmt[i].text == "{"
                          and stmt[i].kind == "op"), None)
            if brace is not None:
                funcs.append(Func(stmt[1].text, params, stmt[brace + 1:_matching(stmt, brace)]))
        elif head in ("var", "const"):
            if len(stmt) > 1 and stmt[1].text == "(":
                decls += list(statements(stmt[2:_matching(stmt, 1)]))
            else:
                decls.append(stmt[1:])
    return decls, funcs


def _param_names(tokens: list[Tok]) -> Iterator[Tok]:
    for group in _split_commas(tokens):
        if group and group[0].kind == "id":
            yield group[0]


def _split_commas(tokens: list[Tok]) -> list[list[Tok]]:
    parts: list[list[Tok]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.kind == "op" and tok.text in "([{":
            depth += 1
        elif tok.kind == "op" and tok.text in ")]}":
            depth -= 1
        if tok.kind == "op" and tok.text == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return [p for p in parts if p]


@dataclass
class Spread:
    """`xs...` as the last argument of a call."""
    value: Any


@dataclass
class Regex:
    pattern: str


Builtin = Callable[..., Any]


@dataclass
class Evaluator:
    """Evaluates expressions against an environment of names, Go functions with a single
    `return` and Python builtins keyed by their Go name (`utils.AlphaNumeric`)."""
    env: dict[str, Any] = field(default_factory=dict)
    funcs: dict[str, Func] = field(default_factory=dict)
    builtins: dict[str, Builtin] = field(default_factory=dict)
    depth: int = 0

    def eval(self, tokens: list[Tok]) -> Any:
        value, rest = self._binary(tokens)
        if rest:
            raise Unsupported(f"trailing tokens: {' '.join(t.text for t in rest[:5])}")
        return value

    def _binary(self, tokens: list[Tok]) -> tuple[Any, list[Tok]]:
        value, rest = self._postfix(tokens)
        while rest and rest[0].kind == "op" and rest[0].text == "+":
            right, rest = self._postfix(rest[1:])
            if isinstance(value, Regex) or isinstance(right, Regex):
                raise Unsupported("adding regular expressions")
            value = value + right
        return value, rest

    def _postfix(self, tokens: list[Tok]) -> tuple[Any, list[Tok]]:
        if not tokens:
            raise Unsupported("empty expression")
        first = tokens[0]
        if first.kind in ("str", "num"):
            return first.value, tokens[1:]
        if first.kind == "op" and first.text == "(":
            close = _matching(tokens, 0)
            return self.eval(tokens[1:close]), tokens[close + 1:]
        if (first.text == "[" and len(tokens) > 3 and tokens[1].text == "]"
                and tokens[2].text == "byte" and tokens[3].text == "("):
            close = _matching(tokens, 3)  # []byte(x): the same text
            return self.eval(tokens[4:close]), tokens[close + 1:]
        if (first.kind == "op" and first.text in ("[", "&", "*")) or first.text == "map":
            return self._composite(tokens)
        if first.kind == "op" and first.text == "-" and len(tokens) > 1 and tokens[1].kind == "num":
            return -tokens[1].value, tokens[2:]
        if first.kind != "id":
            raise Unsupported(f"unexpected {first.text!r}")
        at = 1
        while at + 1 < len(tokens) and tokens[at].text == "." and tokens[at + 1].kind == "id":
            at += 2
        name = "".join(t.text for t in tokens[:at])
        rest = tokens[at:]
        if rest and rest[0].text == "(" and rest[0].kind == "op":
            close = _matching(rest, 0)
            args = ([self._element(part) for part in _split_commas(rest[1:close])]
                    if name == "append" else self._args(rest[1:close]))
            value, rest = self.call(name, args), rest[close + 1:]
            if rest and rest[0].kind == "op" and rest[0].text == "...":
                return Spread(value), rest[1:]
            return value, rest
        if rest and rest[0].text == "{" and rest[0].kind == "op":
            return self._composite(tokens)
        if name in ("true", "false"):
            return name == "true", rest
        if name == "nil":
            return None, rest
        if name not in self.env:
            raise Unsupported(f"unknown name {name}")
        value = self.env[name]
        if isinstance(value, Unsupported):
            raise value
        if rest and rest[0].text == "..." and rest[0].kind == "op":
            return Spread(value), rest[1:]
        return value, rest

    def _args(self, tokens: list[Tok]) -> list[Any]:
        return [self.eval(part) for part in _split_commas(tokens)]

    def call(self, name: str, args: list[Any]) -> Any:
        if name == "append":  # a sample that failed stays in the list as its Unsupported
            if isinstance(args[0], Unsupported):
                raise args[0]
            out = list(args[0] or [])
            for arg in args[1:]:
                out += list(arg.value) if isinstance(arg, Spread) else [arg]
            return out
        if name in ("string", "[]byte"):
            return args[0]
        plain = [a.value if isinstance(a, Spread) else a for a in args]
        if name in self.builtins:
            return self.builtins[name](*plain)
        short = name.split(".")[-1]
        func = self.funcs.get(name) or self.funcs.get(short)
        if func is None or self.depth > 8:
            raise Unsupported(f"unknown function {name}")
        body = list(statements(func.body))
        if len(body) != 1 or body[0][0].text != "return":
            raise Unsupported(f"function {name} is more than one return")
        inner = Evaluator({**self.env, **dict(zip(func.params, plain, strict=False))},
                          self.funcs, self.builtins, self.depth + 1)
        return inner.eval(body[0][1:])

    def _composite(self, tokens: list[Tok]) -> tuple[Any, list[Tok]]:
        """`[]string{...}`, `map[K]V{...}`, `config.Rule{...}`, `&config.Allowlist{...}`:
        the type's tokens up to the brace, then elements (keyed or not)."""
        brace = next((i for i, t in enumerate(tokens) if t.kind == "op" and t.text == "{"), None)
        if brace is None:
            raise Unsupported("not a composite literal")
        if tokens[brace - 1].text == "struct":  # []struct{ fields }{ elements }
            brace = _matching(tokens, brace) + 1
            if brace >= len(tokens) or tokens[brace].text != "{":
                raise Unsupported("struct type without a literal")
        type_name = "".join(t.text for t in tokens[:brace]).lstrip("&*")
        close = _matching(tokens, brace)
        elements = _split_commas(tokens[brace + 1:close])
        rest = tokens[close + 1:]
        keyed_elements = all(any(t.kind == "op" and t.text == ":" for t in e) for e in elements)
        if type_name.startswith("[]") or (type_name == "elem" and not keyed_elements):
            return [self._element(e) for e in elements], rest
        keyed: dict[Any, Any] = {"__type__": type_name} if not type_name.startswith("map") else {}
        for element in elements:
            colon = next((i for i, t in enumerate(element) if t.kind == "op" and t.text == ":"),
                         None)
            if colon is None:
                raise Unsupported("unkeyed element in a keyed literal")
            key = element[0].text if colon == 1 and element[0].kind == "id" and \
                not type_name.startswith("map") else self.eval(element[:colon])
            keyed[key] = self._element(element[colon + 1:])
        return keyed, rest

    def _element(self, tokens: list[Tok]) -> Any:
        """An element's value, or the Unsupported it raised (so one bad sample does not lose
        its neighbours; a field like `Allowlists` may fail while `Regex` holds)."""
        try:
            if tokens and tokens[0].kind == "op" and tokens[0].text == "{":
                return self._composite([Tok("id", "elem"), *tokens])[0]
            return self.eval(tokens)
        except (Unsupported, ValueError, TypeError, KeyError, IndexError, re.error) as exc:
            return exc if isinstance(exc, Unsupported) else Unsupported(str(exc))


def declare(evaluator: Evaluator, decls: list[list[Tok]]) -> None:
    """Package-level `var`/`const` declarations, each left as its Unsupported when it fails."""
    for decl in decls:
        eq = next((i for i, t in enumerate(decl) if t.text == "=" and t.kind == "op"), None)
        if eq is None or decl[0].kind != "id":
            continue
        try:
            evaluator.env[decl[0].text] = evaluator.eval(decl[eq + 1:])
        except (Unsupported, ValueError, TypeError, KeyError, IndexError) as exc:
            evaluator.env[decl[0].text] = Unsupported(str(exc))


def run_function(func: Func, evaluator: Evaluator) -> dict[str, Any]:
    """The function's local names after its assignments (`x := e`, `x = e`, `var x T = e`)."""
    local = Evaluator(dict(evaluator.env), evaluator.funcs, evaluator.builtins)
    for whole in statements(func.body):
        if whole[0].text == "var" and len(whole) > 1 and whole[1].text == "(":
            declare(local, list(statements(whole[2:-1])))
            continue
        stmt = whole[1:] if whole[0].text == "var" else whole
        eq = next((i for i, t in enumerate(stmt) if t.kind == "op" and t.text in (":=", "=")),
                  None)
        if eq is None or stmt[0].kind != "id" or (eq != 1 and stmt[eq].text == ":="):
            continue
        name = stmt[0].text
        try:
            local.env[name] = local.eval(stmt[eq + 1:])
        except (Unsupported, ValueError, TypeError, KeyError, IndexError) as exc:
            local.env[name] = Unsupported(str(exc))
    return local.env


def base64_builtins() -> dict[str, Builtin]:
    def encoder(urlsafe: bool, pad: bool) -> Builtin:
        def encode(value: str) -> str:
            raw = value.encode("latin-1", "replace")
            text = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()
            return text if pad else text.rstrip("=")
        return encode
    out: dict[str, Builtin] = {}
    for prefix in ("b64", "base64"):
        out[f"{prefix}.StdEncoding.EncodeToString"] = encoder(False, True)
        out[f"{prefix}.RawStdEncoding.EncodeToString"] = encoder(False, False)
        out[f"{prefix}.URLEncoding.EncodeToString"] = encoder(True, True)
        out[f"{prefix}.RawURLEncoding.EncodeToString"] = encoder(True, False)
    return out


def sprintf(fmt: str, *args: Any) -> str:
    values = iter(args)

    def one(match: re.Match[str]) -> str:
        verb = match.group(1)
        if verb == "%":
            return "%"
        value = next(values)
        if verb == "q":
            return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
        return str(value)
    return re.sub(r"%[-+# 0-9.]*([svdqx%])", one, fmt)


def common_builtins() -> dict[str, Builtin]:
    return {"fmt.Sprintf": sprintf, "strings.Repeat": lambda s, n: s * n,
            "strings.ToUpper": str.upper, "strings.ToLower": str.lower,
            "strings.Join": lambda xs, sep: sep.join(xs),
            "regexp.MustCompile": Regex, **base64_builtins()}
