"""detect-secrets' plugin test cases and fixture files as corpus records (benchmark tool; the
snapshot's tests are parsed with `ast` and evaluated by a small expression evaluator, never
imported or run).

- `tests/plugins/*_test.py`: every `@pytest.mark.parametrize('payload|line, should_flag', ...)`
  case; the secret of a flagged payload is what the plugin the test exercises reports for it
  (the installed detect-secrets' `analyze_string`, a pure function);
- `tests/plugins/keyword_test.py`'s `*_TEST_CASES`: (line, expected secret or None). A line
  flagged for one file type and not for another (quotes required in C) is a positive here:
  the detector under test reads text without a file type;
- `test_data/` fixture files (config.ini, config.yaml, config.env, ...): the secrets
  detect-secrets' own scan reports in them, line by line.

    records(root) -> (records, stats)
"""

from __future__ import annotations

import ast
import importlib
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

PLUGIN_TESTS = Path("tests/plugins")
TEXT_NAMES = ("payload", "line", "token")
FLAG_NAMES = ("should_flag",)
DELIMITERS = " \t\r\n\"'=:"
SKIPPED_PLUGINS = ("ip_public",)  # an IP address is not a credential
FIXTURES = ("config.ini", "config.yaml", "config2.yaml", "config.env", "config.md",
            "each_secret.py", "files/file_with_secrets.py", "files/private_key",
            "short_files/first_line.php", "short_files/last_line.ini",
            "short_files/middle_line.yml")


class Unsupported(Exception):
    pass


def _eval(node: ast.AST, env: dict[str, Any]) -> Any:
    """Literals, module names, `+ % *`, slices, `str.format/upper/lower`, f-strings,
    `textwrap.dedent`: what the test modules build their payloads with."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise Unsupported(node.id)
        return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_eval(e, env) for e in node.elts]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env), _eval(node.right, env)
        ops = {ast.Add: lambda a, b: a + b, ast.Mod: lambda a, b: a % b,
               ast.Mult: lambda a, b: a * b}
        op = ops.get(type(node.op))
        if op is None:
            raise Unsupported("operator")
        return op(left, right)
    if isinstance(node, ast.Subscript):
        value = _eval(node.value, env)
        if isinstance(node.slice, ast.Slice):
            parts = [None if p is None else _eval(p, env)
                     for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            return value[slice(*parts)]
        return value[_eval(node.slice, env)]
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_eval(v.value, env)) if isinstance(v, ast.FormattedValue)
                       else str(_eval(v, env)) for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name = node.func.attr
        if isinstance(node.func.value, ast.Name) and node.func.value.id == "textwrap" \
                and name == "dedent":
            return textwrap.dedent(_eval(node.args[0], env))
        target = _eval(node.func.value, env)
        args = [_eval(a, env) for a in node.args]
        kwargs = {k.arg: _eval(k.value, env) for k in node.keywords if k.arg}
        if isinstance(target, str) and name in ("format", "upper", "lower", "strip"):
            return getattr(target, name)(*args, **kwargs)
    raise Unsupported(type(node).__name__)


def _try(node: ast.AST, env: dict[str, Any]) -> Any:
    try:
        return _eval(node, env)
    except (Unsupported, TypeError, ValueError, KeyError, IndexError):
        return None


def _module_env(tree: ast.Module) -> dict[str, Any]:
    env: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            if isinstance(stmt.value, ast.List):  # a list of cases: each one that evaluates
                env[stmt.targets[0].id] = [v for v in (_try(e, env) for e in stmt.value.elts)
                                           if v is not None]
                continue
            value = _try(stmt.value, env)
            if value is not None:
                env[stmt.targets[0].id] = value
    return env


def _plugin(tree: ast.Module) -> Any:
    """The detector class the test module imports from `detect_secrets.plugins`."""
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith(
                "detect_secrets.plugins.") and stmt.names[0].name.endswith(("Detector", "Key")):
            module = importlib.import_module(stmt.module or "")
            return getattr(module, stmt.names[0].name)()
    return None


def _parametrized(tree: ast.Module, env: dict[str, Any], stats: Counter[str]
                  ) -> list[tuple[str, bool]]:
    cases: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "parametrize" and len(node.args) == 2):
            continue
        names = [n.strip() for n in str(getattr(node.args[0], "value", "")).split(",")]
        text_at = next((i for i, n in enumerate(names) if n in TEXT_NAMES), None)
        flag_at = next((i for i, n in enumerate(names) if n in FLAG_NAMES), None)
        if text_at is None or flag_at is None or not isinstance(node.args[1],
                                                                (ast.List, ast.Tuple)):
            continue
        for element in node.args[1].elts:
            try:
                values = _eval(element, env)
                cases.append((str(values[text_at]), bool(values[flag_at])))
            except (Unsupported, TypeError, ValueError, KeyError, IndexError):
                stats["case_unreadable"] += 1
    return cases


def _keyword_cases(env: dict[str, Any]) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for name, value in sorted(env.items()):
        if name.endswith("_TEST_CASES") and isinstance(value, list):
            out += [(str(line), expected) for line, expected in value]
    return out


def _plugin_records(root: Path, stats: Counter[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted((root / PLUGIN_TESTS).glob("*_test.py")):
        if path.stem.removesuffix("_test") in SKIPPED_PLUGINS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        env = _module_env(tree)
        rule = path.stem.removesuffix("_test")
        if rule == "keyword":
            cases = _keyword_cases(env)
            positive = {line for line, expected in cases if expected}
            for index, (line, expected) in enumerate(cases):
                if expected is None and line in positive:
                    stats["keyword_negative_positive_elsewhere"] += 1
                    continue
                record: dict[str, Any] = {"id": f"detect-secrets:{rule}:{index}",
                                          "source": "detect-secrets", "rule": rule,
                                          "label": "tp" if expected else "fp", "text": line}
                if expected:
                    record["secrets"] = [expected]
                out.append(record)
            continue
        plugin = _plugin(tree)
        for index, (text, flagged) in enumerate(_parametrized(tree, env, stats)):
            record = {"id": f"detect-secrets:{rule}:{index}", "source": "detect-secrets",
                      "rule": rule, "label": "tp" if flagged else "fp", "text": text}
            if flagged:
                raw = plugin.analyze_string(text) if plugin is not None else []
                # the plugins' matches may hold the delimiter before the value (`=AKC...`)
                found = sorted({v.strip(DELIMITERS) for v in raw} - {""})
                if not found:
                    stats["tp_secret_not_located"] += 1
                    continue
                record["secrets"] = found
            out.append(record)
    return out


def _fixture_records(root: Path, stats: Counter[str]) -> list[dict[str, Any]]:
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    out: list[dict[str, Any]] = []
    with default_settings():
        for name in FIXTURES:
            path = root / "test_data" / name
            if not path.is_file():
                stats["fixture_missing"] += 1
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            found = sorted({s.secret_value for s in scan_file(str(path)) if s.secret_value})
            if not found:
                stats["fixture_without_secret"] += 1
                continue
            out.append({"id": f"detect-secrets:test_data/{name}", "source": "detect-secrets",
                        "rule": "fixture", "label": "tp", "text": text, "secrets": found})
    return out


def records(root: Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    stats: Counter[str] = Counter()
    out = _plugin_records(root, stats) + _fixture_records(root, stats)
    stats.update(r["label"] for r in out)
    return out, dict(sorted(stats.items()))
