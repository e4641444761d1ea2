"""The secret scan's linear prefilter: one RE2 set pass says which detectors can find anything
in a text, one RE2 pass finds the lines that can hold a finding, and the detailed detectors run
only on those lines and the context their rules read (a few lines around, a YAML block, lines
continued with `\\`, a private key's body).

    plan(text) -> Plan(detectors, windows) | None   (None: nothing can be found)
    compact(text, windows) -> (joined window text, map back to `text`'s offsets)

Contract, checked by a property test over the corpora (find_secrets with and without the
prefilter agree): every finding of a detector lies on a line matching one of its triggers, or
within its rules' reach of one (`context_before`/`context_after` lines, a block under a line
ending in `:`/`|`/`>` up to `block_lines`, a key block up to `key_block_lines`, continued
lines). A trigger is an RE2 pattern: linear in the text whatever it holds.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

import re2

from helix.core.secret_commands import programs
from helix.core.secret_rules import rules
from helix.core.secret_tokens import prefixes

KEYWORDS = (r"(?i)pass|pwd|pw\b|secret|token|key|auth|credential|cred|salt|bearer|sig|contras|"
            r"login|identified|\bpins?\b")
NAMED = ("structure", "blocks", "shapes", "lines", "regex", "format:aws_access_key",
         "format:npm_token", "format:azure_storage_key", "format:cloudant_key",
         "format:ibm_cloud_iam_key", "format:ibm_cos_hmac_key", "format:softlayer_key")
# (trigger, the detectors it can wake): see each detector's module for what it reads
_STATIC: tuple[tuple[str, tuple[str, ...]], ...] = (
    (KEYWORDS, NAMED),
    (r"://", ("regex", "format:url_password", "structure", "shapes", "format:slack_token",
              "format:cloudant_key", "format:softlayer_key")),
    (r"-----BEGIN|PuTTY-User-Key-File", ("keys",)),
    (r"(?m)^[ \t]*[A-Za-z0-9+/]{40,}={0,2}[ \t]*$", ("keys",)),
    (r"[\"'][A-Za-z0-9+/\\_=-]{20,}", ("lines",)),
    (r"[A-Za-z0-9+/_-]{32,}", ("lines",)),
    (r"AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|A3T[A-Z0-9]",
     ("regex", "format:aws_access_key")),
    (r"(?i)aws", ("format:aws_access_key",)),
    (r"gh[pousr]_|github_pat_", ("regex", "format:github_token")),
    (r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|GR1348941",
     ("regex", "format:gitlab_token")),
    (r"sk-", ("regex", "format:openai_key")),
    (r"[sr]k_(?:live|test)_", ("regex", "format:stripe_key")),
    (r"xox", ("regex", "format:slack_token")),
    (r"hooks\.", ("regex", "format:slack_token", "structure")),
    (r"AIza", ("regex",)),
    (r"eyJ", ("regex", "format:jwt")),
    (r"(?i)mysql|mariadb|sshpass|mongo|redis-cli|htpasswd", ("regex", "structure")),
    (r"(?:^|\s)(?:-u|--user|--proxy-user|-U|-p)(?:\S|\s)", ("structure",)),
    (r"(?i)[?&;]code=|webhook|chat\.googleapis\.com|api\.telegram\.org/bot|discord",
     ("structure",)),
    (r"AKC[a-zA-Z0-9]{10}|AP[0-9A-F][a-zA-Z0-9]{8}", ("format:artifactory_token",)),
    (r"AccountKey=", ("format:azure_storage_key",)),
    (r"[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27}",
     ("format:discord_token",)),
    (r"[0-9a-z]{32}-us[0-9]", ("format:mailchimp_key",)),
    (r"_authToken=", ("format:npm_token",)),
    (r"pypi-AgE", ("format:pypi_token",)),
    (r"SG\.", ("format:sendgrid_key",)),
    (r"sq0csp-", ("format:square_oauth",)),
    (r"[0-9]{8,10}:[0-9A-Za-z_-]{35}", ("format:telegram_token",)),
    (r"(?:AC|SK)[a-z0-9]{32}", ("format:twilio_key",)),
    (r"(?m)^[ \t]*[\w.*\-\[\]]+:(?:\d{1,5}|\*):[\w.*\-]+:[\w.*\-@]+:\S", ("shapes",)),
    (r"(?i)jdbc:oracle:|@(?:tcp|unix|udp)\(", ("shapes",)),
)
_BLOCK_OPENER = re.compile(r"[:=][ \t]*(?:[&!]\S*[ \t]+)*(?:[|>][-+0-9]{0,3})?[ \t]*"
                           r"(?:#[^\n]*)?\r?$")
_KEY_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY|PuTTY-User-Key-File")
_KEY_LINE = re.compile(r"[ \t]*(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z][A-Za-z\-]*: [^\n]*|-----END[^\n]*)?"
                       r"[ \t]*\r?")
DENSE_FRACTION = 0.5  # windows holding more of a text than this: the detectors read it whole


@dataclass(frozen=True)
class Plan:
    detectors: frozenset[str]
    windows: tuple[tuple[int, int], ...]  # (start, end) of line-aligned pieces, sorted
    whole: bool  # the windows hold most of the text: read it whole


@dataclass(frozen=True)
class _Triggers:
    patterns: tuple[str, ...]
    owners: tuple[tuple[str, ...], ...]
    search_set: object


@cache
def _triggers() -> _Triggers:
    entries = list(_STATIC)
    entries.append(("|".join(re.escape(p) for p in sorted(prefixes(), key=len, reverse=True)),
                    ("tokens",)))
    names = "|".join(re.escape(p) for p in sorted(programs(), key=len, reverse=True))
    entries.append((rf"(?:^|[\s/(`'\"|;&])(?:{names})(?:\.exe)?[ \t]", ("commands",)))
    search_set = re2.Set.SearchSet()
    for pattern, _ in entries:
        search_set.Add(pattern)
    search_set.Compile()
    return _Triggers(tuple(p for p, _ in entries), tuple(o for _, o in entries), search_set)


def all_detectors() -> frozenset[str]:
    return frozenset(name for owners in _triggers().owners for name in owners)


@lru_cache(maxsize=256)
def _line_pattern(ids: tuple[int, ...]) -> object:
    """One RE2 pattern matching a trigger line from the trigger and to the line's end (so a
    line is matched once)."""
    patterns = _triggers().patterns
    return re2.compile("(?:" + "|".join(f"(?:{patterns[i]})" for i in ids) + r")[^\n]*")


def _back(text: str, start: int, count: int) -> int:
    for _ in range(count):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _next_end(text: str, end: int) -> int | None:
    """The end of the line after the one ending at `end`, None at the text's end."""
    if end >= len(text):
        return None
    following = text.find("\n", end + 1)
    return len(text) if following == -1 else following


def _forward(text: str, end: int, count: int) -> int:
    for _ in range(count):
        following = _next_end(text, end)
        if following is None:
            break
        end = following
    return end


def _indent(line: str) -> int | None:
    stripped = line.lstrip(" \t")
    return None if not stripped.strip() else len(line) - len(stripped)


def _extend(text: str, line_start: int, line_end: int, end: int) -> int:
    """A window's end grown over what the trigger line's rules read past `context_after`."""
    limits = rules().limits
    line = text[line_start:line_end]
    if _KEY_BEGIN.search(line):
        return _grow(text, end, limits.key_block_lines, lambda ln: bool(_KEY_LINE.fullmatch(ln)))
    if _BLOCK_OPENER.search(line):
        indent = _indent(line) or 0

        def deeper(ln: str) -> bool:
            depth = _indent(ln)
            return depth is None or depth > indent or (
                depth == indent and ln.lstrip().startswith("- "))
        end = max(end, _grow(text, line_end, limits.block_lines, deeper))
    return _continued(text, end)


def _grow(text: str, end: int, cap: int, keep: object) -> int:
    for _ in range(cap):
        following = _next_end(text, end)
        if following is None or not keep(text[end + 1:following]):  # type: ignore[operator]
            break
        end = following
    return end


def _continued(text: str, end: int) -> int:
    """Past lines that end in a backslash (the next line continues them)."""
    for _ in range(rules().limits.block_lines):
        if not text[:end].rstrip("\r").endswith("\\"):
            break
        following = _next_end(text, end)
        if following is None:
            break
        end = following
    return end


def _windows(text: str, starts: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    limits = rules().limits
    windows: list[tuple[int, int]] = []
    for line_start, line_end in starts:
        start = _back(text, line_start, limits.context_before)
        end = _extend(text, line_start, line_end,
                      _continued(text, _forward(text, line_end, limits.context_after)))
        if windows and start <= windows[-1][1] + 1:
            windows[-1] = (windows[-1][0], max(windows[-1][1], end))
        else:
            windows.append((start, end))
    return windows


def plan(text: str) -> Plan | None:
    """Which detectors can find anything in `text`, and on which pieces of it."""
    triggers = _triggers()
    ids = triggers.search_set.Match(text)  # type: ignore[attr-defined]
    if not ids:
        return None
    ids = tuple(sorted(ids))
    detectors = frozenset(name for i in ids for name in triggers.owners[i])
    lines = []
    for match in _line_pattern(ids).finditer(text):  # type: ignore[attr-defined]
        line_start = text.rfind("\n", 0, match.start()) + 1
        lines.append((line_start, match.end()))
    windows = tuple(_windows(text, lines))
    covered = sum(end - start for start, end in windows)
    return Plan(detectors, windows, covered > DENSE_FRACTION * len(text))


def compact(text: str, windows: tuple[tuple[int, int], ...]) -> tuple[str, list[int], list[int]]:
    """The windows' text joined by `separator`, the start of each window in it, and in
    `text` (a span found in the joined text maps back window by window)."""
    separator = rules().limits.separator
    pieces, compact_starts, starts = [], [], []
    at = 0
    for start, end in windows:
        compact_starts.append(at)
        starts.append(start)
        pieces.append(text[start:end])
        at += end - start + len(separator)
    return separator.join(pieces), compact_starts, starts


def map_back(span_start: int, span_end: int, compact_starts: list[int], starts: list[int],
             windows: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """A span of the joined text in the original's offsets (clipped to its window)."""
    index = bisect.bisect_right(compact_starts, span_start) - 1
    offset = starts[index] - compact_starts[index]
    start = span_start + offset
    end = min(span_end + offset, windows[index][1])
    return start, end
