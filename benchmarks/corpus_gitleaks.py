"""Gitleaks' rule samples as corpus records (benchmark tool; reads a snapshot, runs nothing of it).

Each rule under `cmd/generate/config/rules/*.go` is a Go function that builds a `config.Rule`,
a list of true positives `tps` and of false positives `fps`, and ends in
`utils.Validate(r, tps, fps)`. The samples are evaluated with `go_literals` (random parts drawn
by `regex_sample` from a generator seeded with the rule's file and function, so two
extractions agree), and the secret of each true positive is what gitleaks itself reports: the
rule's regular expression run with RE2 (the same engine family as Go's), its `SecretGroup`, or
else the first non-empty group, or else the whole match.

    records(root) -> (records, stats)
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import re2

from benchmarks.go_literals import (
    Evaluator,
    Func,
    Regex,
    Tok,
    Unsupported,
    common_builtins,
    declare,
    run_function,
    split_file,
    statements,
    tokenize,
)
from benchmarks.regex_sample import sample

RULES = Path("cmd/generate/config/rules")
UTILS = Path("cmd/generate/config/utils")
MAX_STOPWORD_TRIES = 200
DELIMITERS = " \t\r\n\"'`;,<>&"


class _Helpers:
    """The generator helpers gitleaks builds with loops and string builders, written from their
    behaviour; their constants (regex fragments, the sample templates, the stop words) are read
    from the snapshot."""

    def __init__(self, env: dict[str, Any], funcs: dict[str, Func], seed: str) -> None:
        self.env, self.funcs = env, funcs
        self.rng = random.Random(seed)

    def new_secret(self, pattern: Any) -> str:
        return sample(pattern.pattern if isinstance(pattern, Regex) else str(pattern), self.rng)

    def plausible(self, pattern: str) -> str:
        words = [w.lower() for w in self.env.get("DefaultStopWords", []) if isinstance(w, str)]
        for _ in range(MAX_STOPWORD_TRIES):
            value = self.new_secret(pattern)
            lowered = value.lower()
            if any(c in "123456789" for c in value) and not any(w in lowered for w in words):
                return value
        raise Unsupported("no plausible secret drawn")

    def templates(self) -> dict[str, str]:
        func = self.funcs.get("GenerateSampleSecrets")
        if func is None:
            raise Unsupported("GenerateSampleSecrets not in the snapshot")
        for stmt in statements(func.body):
            if stmt[0].text == "samples" and stmt[1].text == ":=":
                value = Evaluator(dict(self.env), self.funcs, common_builtins()).eval(stmt[2:])
                return {k: v for k, v in value.items() if isinstance(v, str)}
        raise Unsupported("no sample templates")

    def samples(self, identifier: str, secret: str) -> list[str]:
        table = {"{i}": identifier, "{I}": identifier.upper(), "{s}": secret}
        out = []
        for name in sorted(self.templates()):  # Go's map order is random: a stable one here
            text, at, parts = self.templates()[name], 0, []
            while at < len(text):  # one left-to-right pass, as strings.NewReplacer does
                hit = next((k for k in table if text.startswith(k, at)), None)
                parts.append(table[hit] if hit else text[at])
                at += len(hit) if hit else 1
            out.append("".join(parts))
        return out

    def semi_generic(self, identifiers: list[str], secret: str, insensitive: bool) -> Regex:
        e = self.env
        ids = e["identifierPrefix"] + "|".join(identifiers) + e["identifierSuffix"]
        head = (e["caseInsensitive"] + ids if insensitive else
                e["identifierCaseInsensitivePrefix"] + ids + e["identifierCaseInsensitiveSuffix"])
        return Regex(head + e["operator"] + e["secretPrefix"] + secret + e["secretSuffix"])

    def unique(self, secret: str, insensitive: bool) -> Regex:
        e = self.env
        return Regex((e["caseInsensitive"] if insensitive else "") + e["secretPrefixUnique"]
                     + secret + e["secretSuffix"])

    def builtins(self) -> dict[str, Any]:
        return {**common_builtins(), "secrets.NewSecret": self.new_secret,
                "newPlausibleSecret": self.plausible,
                "utils.GenerateSampleSecrets": self.samples,
                "utils.GenerateSemiGenericRegex": self.semi_generic,
                "utils.GenerateUniqueTokenRegex": self.unique,
                "utils.MergeRegexps": lambda *rs: Regex("|".join(r.pattern for r in rs))}


def _secrets(rule: dict[str, Any], text: str) -> list[str]:
    regex = rule.get("Regex")
    if not isinstance(regex, Regex):
        return []
    try:
        compiled = re2.compile(regex.pattern)
    except re2.error:
        return []
    group = rule.get("SecretGroup") if isinstance(rule.get("SecretGroup"), int) else 0
    out = []
    for match in compiled.finditer(text):
        groups = match.groups()
        if group:
            value = match.group(group) or ""
        else:
            value = next((g for g in groups if g), match.group(0))
        value = value.strip(DELIMITERS)  # a rule's match may hold the quote after the value
        if value and value not in out:
            out.append(value)
    return out


def _samples(value: Any) -> list[Any]:
    if isinstance(value, dict):  # ValidateWithPaths: {path: content}
        return [v for v in value.values() if not isinstance(v, str) or v]
    return list(value) if isinstance(value, list) else [value]


def records(root: Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    stats: Counter[str] = Counter()
    env: dict[str, Any] = {}
    funcs: dict[str, Func] = {}
    decls: list[list[Tok]] = []
    for folder in (UTILS, RULES):
        for path in sorted((root / folder).glob("*.go")):
            if path.name.endswith("_test.go"):
                continue
            file_decls, file_funcs = split_file(tokenize(path.read_text(encoding="utf-8")))
            decls += file_decls
            funcs.update({f.name: f for f in file_funcs})
    base = Evaluator(env, funcs, {})
    helpers = _Helpers(env, funcs, "gitleaks:package")
    base.builtins = helpers.builtins()
    declare(base, decls)
    out: list[dict[str, Any]] = []
    for path in sorted((root / RULES).glob("*.go")):
        _, file_funcs = split_file(tokenize(path.read_text(encoding="utf-8")))
        for func in file_funcs:
            if not any(t.text == "Validate" for t in func.body):
                continue
            helpers = _Helpers(env, funcs, f"gitleaks:{path.name}:{func.name}")
            local = run_function(func, Evaluator(dict(env), funcs, helpers.builtins()))
            rule = local.get("r")
            if not isinstance(rule, dict) or not isinstance(rule.get("RuleID"), str):
                stats["rules_unreadable"] += 1
                continue
            if not isinstance(rule.get("Regex"), Regex):
                stats["rules_path_only_or_unreadable_regex"] += 1
                continue
            stats["rules"] += 1
            for label, name in (("tp", "tps"), ("fp", "fps")):
                items = local.get(name)
                if isinstance(items, Unsupported):
                    stats[f"{label}_lists_unreadable"] += 1
                    continue
                for index, text in enumerate(_samples(items or [])):
                    if not isinstance(text, str):
                        stats[f"{label}_unreadable"] += 1
                        continue
                    record = {"id": f"gitleaks:{path.stem}:{func.name}:{label}:{index}",
                              "source": "gitleaks", "rule": rule["RuleID"], "label": label,
                              "text": text}
                    if label == "tp":
                        found = _secrets(rule, text)
                        if not found:
                            stats["tp_secret_not_located"] += 1
                            continue
                        record["secrets"] = found
                    stats[label] += 1
                    out.append(record)
    return out, dict(sorted(stats.items()))
