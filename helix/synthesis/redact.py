"""Redaction: secrets are masked before anything reaches a model.

What is a secret is decided in `helix.core.secrets` (detect-secrets' plugins plus the
formats they lack). Here the spans are masked: `[REDACTED:<kind>]`, keeping the span's newlines
so line numbers inside a quoted excerpt stay true. Three entry points:
- `redact_envelope`: the evidence (text and heading), paths, symbols and the question, with a
  per-evidence report, before the synthesis prompt is built;
- `redact_messages`: every message of any LLM call, whole (system and user, JSON payloads of the
  session lanes walked value by value): the choke point `LiteLLMClient.complete` runs it right
  before each request, so no call site can forget;
- `redact_text`: one string.
And what comes back (`ReplyGuard`): the model's reply, streamed or whole, and a provider's error
body, masked before anything stores or prints them; both are also masked for the literal values
of the keys this process holds (`known_secrets`: a provider that answers 401 may echo the key
it was sent).
The report says how many spans of each kind were redacted, never what they were.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from helix.core.envelope import Envelope, EvidenceItem
from helix.core.hashing import canonical_json
from helix.core.ports import Completion
from helix.core.schemas import Frozen
from helix.core.secret_gates import STREAM_LOOKAHEAD
from helix.core.secret_structure import name_strength
from helix.core.secrets import (
    REDACTED,
    find_secrets_and_values,
    looks_secret,
    mask_values,
    masked,
    redact_text,
    shannon_entropy,
)

_WORD_START = re.compile(r"(?<!\S)\S")
__all__ = ["REDACTED", "RedactionReport", "ReplyGuard", "known_secrets", "looks_secret",
           "mask_values", "redact_envelope", "redact_evidence", "redact_messages",
           "redact_text", "shannon_entropy"]


class RedactionReport(Frozen):
    counts: dict[str, int]  # kind -> spans redacted
    evidence_ids: tuple[str, ...] = ()  # evidence items that had something redacted

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _redact_item(item: EvidenceItem, counts: Counter[str]) -> EvidenceItem:
    found: Counter[str] = Counter()
    update: dict[str, str] = {}
    for field in ("text", "heading", "symbol", "path"):
        value = getattr(item, field)
        if value:
            clean, seen = redact_text(value)
            if seen:
                found.update(seen)
                update[field] = clean
    if not found:
        return item
    counts.update(found)
    return item.model_copy(update=update)


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


# what names a hash or a revision in an envelope: no secret, and masked it would no longer
# name its content
_HASH_KEYS = ("hash", "hashes", "rev")


def _redact_json(value: Any, counts: Counter[str], keep: tuple[str, ...] = ()) -> Any:
    """Every string in a JSON value masked, the values of keys ending in `keep` left as they
    are; what was found counted into `counts`."""
    if isinstance(value, str):
        clean, found = redact_text(value)
        counts.update(found)
        return clean
    if isinstance(value, list):
        return [_redact_json(v, counts, keep) for v in value]
    if isinstance(value, dict):
        return {k: v if keep and k.endswith(keep) else _redact_json(v, counts, keep)
                for k, v in value.items()}
    return value


def redact_stored(envelope: Envelope) -> Envelope:
    """The envelope with every text in it masked (the evidence, the answer built from it, the
    references, a clarifier's options, the question), its hashes kept: a run over an index
    that holds its texts in clear (`index.mask_secrets = false`) as the run log, a session and
    a model may see it."""
    counts: Counter[str] = Counter()
    clean = _redact_json(envelope.model_dump(mode="json"), counts, _HASH_KEYS)
    return Envelope.model_validate(clean) if counts else envelope


def redact_content(content: str) -> tuple[str, Counter[str]]:
    """One message's content: a JSON payload (the session lanes send canonical JSON) value by
    value, so escaped newlines and quotes hide nothing; any other text whole."""
    stripped = content.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            payload = json.loads(content)
        except ValueError:
            payload = None
        if isinstance(payload, (dict, list)):
            counts: Counter[str] = Counter()
            clean = _redact_json(payload, counts)
            if not counts:
                return content, counts
            return canonical_json(clean), counts
    return redact_text(content)


def redact_messages(messages: Sequence[dict[str, str]]
                    ) -> tuple[tuple[dict[str, str], ...], Counter[str]]:
    """Every message's content redacted (roles and other keys kept), and counts by kind."""
    counts: Counter[str] = Counter()
    out: list[dict[str, str]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str) and content:
            clean, found = redact_content(content)
            if found:
                counts.update(found)
                message = {**message, "content": clean}
        out.append(dict(message))
    return tuple(out), counts


def known_secrets(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The values of the environment's variables that name a secret (`OPENAI_API_KEY`,
    `ANTHROPIC_API_KEY`, `GITHUB_TOKEN`, ...): what a provider may echo back."""
    return tuple(sorted({value for name, value in environ.items()
                         if value and name_strength(name) is not None}))


class ReplyGuard:
    """What comes back from a model, masked before it is kept or shown: the whole reply, a
    provider's error message, and the streamed pieces. A piece is shown once the line it
    belongs to reads STREAM_LOOKAHEAD more words (a rule may need the words after a value:
    a literal compared with a password after it), masked as the whole line so far reads; a
    finding is never shown in part."""

    def __init__(self, known: Sequence[str], on_text: Callable[[str], None] | None = None
                 ) -> None:
        self.known = tuple(known)
        self.on_text = on_text
        self._line = ""  # the current line, from its start
        self._sent = 0  # characters of it already handed on
        self.counts: Counter[str] = Counter()

    def text(self, text: str) -> str:
        clean, found = mask_values(text, self.known)
        self.counts.update(found)
        return clean

    def piece(self, piece: str) -> None:
        """A streamed piece: what is now settled is masked and handed on, the rest waits."""
        if self.on_text is None:
            return
        self._line += piece
        cut = self._line.find("\n")
        while cut != -1:
            self._emit(self._line[:cut + 1], final=True)
            self._line, self._sent = self._line[cut + 1:], 0
            cut = self._line.find("\n")
        self._emit(self._line, final=False)

    def close(self) -> None:
        """The end of a stream: the rest of the last line."""
        if self.on_text is not None and self._line:
            self._emit(self._line, final=True)
            self._line, self._sent = "", 0

    def _emit(self, line: str, *, final: bool) -> None:
        findings = find_secrets_and_values(line, self.known)
        cut = len(line)
        if not final:
            starts = [m.start() for m in _WORD_START.finditer(line)]
            cut = starts[-STREAM_LOOKAHEAD] if len(starts) > STREAM_LOOKAHEAD else 0
            for start, end, _ in findings:
                if start < cut < end:
                    cut = start  # never a finding in part
        if cut > self._sent and self.on_text is not None:
            self.on_text(masked(line, findings, self._sent, cut))
            self._sent = cut

    def completion(self, completion: Completion) -> Completion:
        return completion.model_copy(update={"text": self.text(completion.text)})
