"""Private keys: PEM and PuTTY blocks (BEGIN .. END, or BEGIN and the key-body lines after it),
and a bare run of base64 key-body lines (a key whose BEGIN line fell in another chunk).

    key_findings(text) -> [Finding(start, end, "private_key")]

A block reaches at most KEY_BLOCK_LINES lines (`secret_gates`), as far as the
prefilter's windows reach.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator

from helix.core.secret_gates import (
    KEY_BLOCK_LINES,
    MIN_BODY_ENTROPY,
    MIN_KEY_BODY_LINE,
    MIN_KEY_LINE,
    Finding,
    shannon_entropy,
)
from helix.core.secret_lookalikes import encoded_text

# (an OpenVPN static key, `tls-auth`'s shared secret, is a private key block too)
_PEM_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]*(?:PRIVATE KEY(?: BLOCK)?|SEED)-----|"
                        r"PuTTY-User-Key-File-\d|-----BEGIN OpenVPN Static key V1-----")
_PEM_END = re.compile(r"-----END[A-Z0-9 ]*(?:PRIVATE KEY(?: BLOCK)?|SEED)-----|"
                      r"-----END OpenVPN Static key V1-----")
# a PEM block in base64 on one line (kubeconfig's `client-key-data`, a k8s Secret's `tls.key`)
_ENCODED_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}")
ENCODED_HEAD = 64  # characters of it decoded to read the block's kind
_KEY_HEADER = re.compile(r"[A-Za-z][A-Za-z\-]*: [^\n]*")
_B64_LINE = re.compile(r"[A-Za-z0-9+/]+={0,2}|=[A-Za-z0-9+/]{4}")  # a body line, a PGP checksum
_BODY_LINE = re.compile(rf"[ \t]*[A-Za-z0-9+/]{{{MIN_KEY_BODY_LINE},}}={{0,2}}[ \t]*")


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for line in text.split("\n"):
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def _after_begin(line: str, next_line: str | None) -> bool:
    """A line that continues a key block after its BEGIN line: a base64 line (a short one only
    as the block's last, before END or ending in padding), a header (`Proc-Type: ...`) or a
    blank line."""
    stripped = line.strip()
    if not stripped or _KEY_HEADER.fullmatch(stripped):
        return True
    if not _B64_LINE.fullmatch(stripped):
        return False
    return (len(stripped) >= MIN_KEY_LINE or stripped.endswith("=") or next_line is None
            or not next_line.strip() or bool(_PEM_END.search(next_line)))


def encoded_pem(value: str) -> bytes:
    """The head of a base64 PEM block, decoded (b"" when it does not decode)."""
    head = value[:ENCODED_HEAD]
    try:
        return base64.b64decode(head[: len(head) // 4 * 4])
    except ValueError:
        return b""


def _encoded_keys(text: str) -> Iterator[Finding]:
    for match in _ENCODED_PEM.finditer(text):
        head = encoded_pem(match.group())
        if b"PRIVATE KEY" in head or b"SEED" in head:
            yield Finding(match.start(), match.end(), "private_key")


def key_findings(text: str) -> Iterator[Finding]:
    """Private key blocks, as PEM or in base64 on one line, and runs of key-body lines."""
    if "LS0tLS1CRUdJTi" in text:
        yield from _encoded_keys(text)
    yield from _blocks(text)


def _blocks(text: str) -> Iterator[Finding]:
    """Private key blocks: BEGIN .. END, or BEGIN and the key-body lines after it; and runs
    of two or more base64 key-body lines (a block whose BEGIN line is elsewhere)."""
    cap = KEY_BLOCK_LINES
    spans = _line_spans(text)
    lines = [text[s:e] for s, e in spans]
    index, total = 0, len(lines)
    marked = "-----BEGIN" in text or "PuTTY-User-Key-File-" in text  # (`in`: a fast scan)
    while index < total:
        line = lines[index]
        begin = _PEM_BEGIN.search(line) if marked else None
        if begin is not None:
            last = index
            while last + 1 < total and last - index < cap:
                following = lines[last + 2] if last + 2 < total else None
                if _PEM_END.search(lines[last + 1]):
                    last += 1
                    break
                if not _after_begin(lines[last + 1], following):
                    break
                last += 1
            end_match = _PEM_END.search(lines[last])
            stop = spans[last][0] + end_match.end() if end_match else spans[last][1]
            yield Finding(spans[index][0] + begin.start(), stop, "private_key")
            index = last + 1
            continue
        if len(line) >= MIN_KEY_BODY_LINE and _BODY_LINE.fullmatch(line):
            last = index
            while (last + 1 < total and last - index < cap
                   and _BODY_LINE.fullmatch(lines[last + 1])):
                last += 1
            body = "".join(lines[index: last + 1]).replace(" ", "").replace("\t", "")
            if (last > index and shannon_entropy(body) > MIN_BODY_ENTROPY
                    and not body.islower()  # age1... recipients: bech32, lower case
                    and not all(encoded_text(lines[at].strip())  # encoded events, no key
                                for at in range(index, last + 1))):
                tail = last + 1  # the block's short last line and its END line
                while tail < total and tail <= last + 2 and (
                        _PEM_END.search(lines[tail]) or _B64_LINE.fullmatch(lines[tail].strip())):
                    tail += 1
                end_match = _PEM_END.search(lines[tail - 1])
                stop = spans[tail - 1][0] + end_match.end() if end_match else spans[tail - 1][1]
                yield Finding(spans[index][0], stop, "private_key")
                index = tail
                continue
        index += 1

