"""Credential scanning: secrets in evidence are redacted before any prompt is built.

Each detector is a named regular expression; `password = "..."`-style assignments are only
redacted when the value looks like a secret (long enough, high Shannon entropy, not a placeholder
or a code expression), so ordinary code such as `password = request.form["password"]` survives.
A redacted span keeps its newlines, so line numbers inside a quoted excerpt stay true.
The report says how many spans of each kind were redacted, never what they were.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable

from helix.core.envelope import Envelope, EvidenceItem
from helix.core.schemas import Frozen

REDACTED = "[REDACTED:{kind}]"
# An assignment value must be at least this long and this random to count as a secret.
MIN_SECRET_LEN = 8
MIN_SECRET_ENTROPY = 3.0  # bits per character
PLACEHOLDER_WORDS = ("changeme", "example", "placeholder", "your", "xxxx", "****", "redacted",
                     "dummy", "secret_here", "<", "${", "{{", "env(", "getenv", "environ")

_KEY_WORDS = (r"password|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|"
              r"auth[_-]?token|access[_-]?token|refresh[_-]?token|token|private[_-]?key|"
              r"client[_-]?secret|credentials?")

# (kind, pattern, group to redact). Order matters: specific token formats before the generic
# assignment rule, so a GitHub token in `token = "ghp_..."` is counted as a GitHub token.
_DETECTORS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)", re.S), 0),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
     0),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
     0),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), 0),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"), 0),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"), 0),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), 0),
    ("slack_webhook", re.compile(
        r"https://hooks\.slack\.com/services/[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), 0),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"), 1),
    ("aws_secret_key", re.compile(
        r"(?i)aws_?secret_?access_?key\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})"), 1),
    ("assignment", re.compile(
        r"(?i)(?:\b[A-Za-z0-9_.\-]*(?:" + _KEY_WORDS + r")[A-Za-z0-9_.\-]*[\"']?)"
        r"\s*(?::=|=>|[:=])\s*([\"'])([^\"'\n]{8,})\1"), 2),
    ("assignment", re.compile(
        r"(?im)^\s*(?:export\s+)?[A-Za-z0-9_.\-]*(?:" + _KEY_WORDS + r")[A-Za-z0-9_.\-]*"
        r"\s*[:=]\s*([^\s\"'#,;]{8,})\s*$"), 1),
)


class RedactionReport(Frozen):
    counts: dict[str, int]  # kind -> spans redacted
    evidence_ids: tuple[str, ...] = ()  # evidence items that had something redacted

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def shannon_entropy(text: str) -> float:
    if not text:
        return 0.0
    counts = Counter(text)
    size = len(text)
    return -sum(c / size * math.log2(c / size) for c in counts.values())


def looks_secret(value: str) -> bool:
    """A value assigned to a password/key-like name that reads like a real credential."""
    lowered = value.lower()
    if len(value) < MIN_SECRET_LEN or any(word in lowered for word in PLACEHOLDER_WORDS):
        return False
    if re.search(r"[()\[\]]|\s", value):  # a call, an index or a phrase: code or prose
        return False
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+", value):
        return False  # attribute access: settings.api_key
    return shannon_entropy(value) >= MIN_SECRET_ENTROPY


def _mask(kind: str, secret: str) -> str:
    return REDACTED.format(kind=kind) + "\n" * secret.count("\n")


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """The text with every detected credential replaced, and counts by kind."""
    counts: Counter[str] = Counter()
    for kind, pattern, group in _DETECTORS:
        text = pattern.sub(_replacer(kind, group, counts), text)
    return text, counts


def _replacer(kind: str, group: int, counts: Counter[str]) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        secret = match.group(group)
        if secret.startswith("[REDACTED:"):
            return match.group(0)
        if kind == "assignment" and not looks_secret(secret):
            return match.group(0)
        counts[kind] += 1
        start, end = match.start(group) - match.start(0), match.end(group) - match.start(0)
        whole = match.group(0)
        return whole[:start] + _mask(kind, secret) + whole[end:]

    return replace


def _redact_item(item: EvidenceItem, counts: Counter[str]) -> EvidenceItem:
    text, found = redact_text(item.text)
    heading, found_heading = redact_text(item.heading) if item.heading else (None, Counter())
    found.update(found_heading)
    if not found:
        return item
    counts.update(found)
    return item.model_copy(update={"text": text, "heading": heading})


def redact_evidence(
    items: Iterable[EvidenceItem],
) -> tuple[tuple[EvidenceItem, ...], RedactionReport]:
    counts: Counter[str] = Counter()
    out: list[EvidenceItem] = []
    touched: list[str] = []
    for item in items:
        before = sum(counts.values())
        clean = _redact_item(item, counts)
        if sum(counts.values()) != before:
            touched.append(item.id)
        out.append(clean)
    return tuple(out), RedactionReport(counts=dict(sorted(counts.items())),
                                       evidence_ids=tuple(touched))


def redact_envelope(envelope: Envelope) -> tuple[Envelope, RedactionReport]:
    """The envelope with its evidence (and question) redacted: what a prompt may be built from."""
    items, report = redact_evidence(envelope.evidence)
    question, found = redact_text(envelope.question)
    if found:
        merged = Counter(report.counts)
        merged.update(found)
        report = report.model_copy(update={"counts": dict(sorted(merged.items()))})
    return envelope.model_copy(update={"evidence": items, "question": question}), report
