"""Secret values that stand on more than one line, found by where they stand: the line naming
the secret, then the value below it.

- YAML: a block scalar (`password: |` and the indented lines under it), a value on the next
  line (`api_token:` then `  abc123`), a list under a secret name (`passwords:` then `- a`);
  JSON's `"password":` with its string on the next line reads the same way;
- TOML and Python triple-quoted strings holding one word (`password = \"\"\"\\nabc\\n\"\"\"`);
- XML elements whose text or CDATA stands on its own lines (`<password>\\n  abc\\n</password>`);
- name/value pairs: a marker naming the secret and, a few lines on (or one or two before), the
  value marker: a k8s `- name: DB_PASSWORD` / `value: ...`, JSON `{"name": ..., "value": ...}`,
  Hadoop's `<name>...</name>` / `<value>...</value>`, a Terraform `variable "db_password"`
  block's `default`.

    block_findings(text) -> [(start, end, kind)]

Every rule reads at most CONTEXT_AFTER lines below the line naming the secret (a YAML block,
at most BLOCK_LINES) and PAIR_REACH lines around a name marker: the prefilter's windows
hold that much context (`secret_prefilter`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_gates import (
    BLOCK_LINES,
    CONTEXT_AFTER,
    MAX_VALUE,
    MIN_VALUE,
    PAIR_REACH,
    hinted,
)
from helix.core.secret_structure import (
    Found,
    credential_like,
    name_strength,
    placeholder,
    quoted_ok,
    random_token,
    unquoted_ok,
)

YAML_KEY = re.compile(r"^([ \t]*)(?:-[ \t]+)?([\"']?)([A-Za-z_$][\w.\-$]{0,79})\2[ \t]*([:=])"
                       r"(?:[ \t]+(?:[&!][^\s]*[ \t]+)*([|>][-+0-9]{0,3}))?[ \t]*(?:#[^\n]*)?$",
                       re.M)
_MAPPING = re.compile(r"[\"']?[\w.\-$]{1,80}[\"']?[ \t]*:(?:[ \t]|$)")
_TRIPLE = re.compile(r"(?<![\w.\-$])([A-Za-z_$][\w.\-$]{0,79})[\"']?[ \t]*(?::=|=|:)[ \t]*"
                     r"(\"\"\"|''')")
_ARRAY = re.compile(r"(?<![\w.\-$\"'])([\"']?)([A-Za-z_$][\w.\-$]{0,79})\1[ \t]*(?::=|=|:)[ \t]*\[")
# what every match of _TRIPLE or _ARRAY holds on its one line: found first (a class of two
# characters the search skips to), each rule then reads only the lines holding it
_TRIPLE_HINT = re.compile(r"[:=][ \t]*(?:\"\"\"|''')")
_ARRAY_HINT = re.compile(r"[:=][ \t]*\[")
_STRING_LIST = re.compile(r"[\s,]*(?:(?:\"[^\"\\\n]*\"|'[^'\\\n]*')[\s,]*)*")
_QUOTED = re.compile(r"\"([^\"\\\n]{1,4096})\"|'([^'\\\n]{1,4096})'")
_OPEN_TAG = re.compile(r"<([A-Za-z_][\w:.\-]{0,79})(?:[ \t][^<>\n]{0,400})?>")
_NAME_MARKER = re.compile(
    r"(?:[\"']?\b(?:name|key|Name|Key|variable|env|id)[\"']?[ \t]*[:=][ \t]*([\"']?)"
    r"([A-Za-z_][\w.\-]{0,79})\1(?=[ \t]*(?:[,}#\n]|$)))"
    r"|(?:<(?:name|key)>[ \t]*([A-Za-z_][\w.\-]{0,79})[ \t]*</(?:name|key)>)"
    r"|(?:\bvariable[ \t]+\"([A-Za-z_][\w.\-]{0,79})\"[ \t]*\{)", re.M)
_VALUE_MARKER = re.compile(
    r"(?:[\"']?\b(?:value|Value|default)[\"']?[ \t]*[:=][ \t]*)(?=[^\s:=])"
    r"|(?:<value>[ \t]*)")


# The key of a mapping under a secret name that holds the secret itself (Travis CI's
# `password:` / `secure: <encrypted>`, a schema's `value:` or `default:`)
_VALUE_HOLDERS = frozenset({"secure", "value", "plain", "plaintext", "default", "content"})


def _child_key(mapping: str) -> str:
    return mapping.rstrip(" \t:").strip("\"'").lower()


def _lines(text: str, at: int, count: int) -> list[tuple[int, int]]:
    """(start, end) of the `count` lines after the line holding `at`."""
    out: list[tuple[int, int]] = []
    end = text.find("\n", at)
    while end != -1 and len(out) < count:
        start = end + 1
        end = text.find("\n", start)
        out.append((start, len(text) if end == -1 else end))
    return out


def _indent(text: str, start: int, end: int) -> int | None:
    """The indentation of a line, None when it is blank."""
    at = start
    while at < end and text[at] in " \t":
        at += 1
    return None if at == end else at - start


def _value_span(text: str, start: int, end: int) -> tuple[int, int, bool]:
    """A scalar's span on one line (quotes and a trailing comma dropped), and whether it
    was quoted."""
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t,":
        end -= 1
    if end - start >= 2 and text[start] in "\"'" and text[end - 1] == text[start]:
        return start + 1, end - 1, True
    return start, end, False


def _scalar(text: str, start: int, end: int, strength: str) -> Found | None:
    start, end, quoted = _value_span(text, start, end)
    value = text[start:end]
    if not value or "\n" in value:
        return None
    ok = quoted_ok(value, strength) if quoted else unquoted_ok(value, strength, True)
    return Found(start, end, "assignment") if ok else None


def _block(text: str, lines: list[tuple[int, int]], indent: int, strength: str
           ) -> Found | None:
    """A block scalar: the lines indented deeper than its key, as one value."""
    body: list[tuple[int, int]] = []
    for start, end in lines:
        depth = _indent(text, start, end)
        if depth is not None and depth <= indent:
            break
        body.append((start, end))
    while body and _indent(text, *body[-1]) is None:
        body.pop()
    if not body:
        return None
    first = body[0][0] + (_indent(text, *body[0]) or 0)
    value = text[first:body[-1][1]]
    if placeholder(text[first:body[0][1]].strip()):
        return None  # `$ANSIBLE_VAULT;1.1;AES256` and its lines: encrypted
    joined = "".join(value.split())
    if strength == "phrase":
        return None  # a recovery phrase stands on its name's line (the prefilter's trigger)
    if (strength in ("weak", "paired") and not credential_like(joined)) or (
            strength == "keyed" and not random_token(joined)) or (
            strength == "pin" and not (joined.isalnum() and random_token(joined))):
        return None
    if len(value.strip()) < MIN_VALUE:
        return None
    return Found(first, body[-1][1], "assignment")


def _yaml(text: str) -> Iterator[Found]:
    for match in YAML_KEY.finditer(text):
        strength = name_strength(match.group(3))
        if strength is None:
            continue
        indent = len(match.group(1))
        # a block scalar, or an INI value continued on indented lines (`name =` then lines)
        if match.group(5) or match.group(4) == "=":
            found = _block(text, _lines(text, match.end(), BLOCK_LINES), indent, strength)
            if found is not None:
                yield found
            continue
        following = [ln for ln in _lines(text, match.end(), CONTEXT_AFTER)
                     if _indent(text, *ln) is not None]
        if not following:
            continue
        start, end = following[0]
        at = start + (_indent(text, start, end) or 0)
        if at - start <= indent and not text.startswith("- ", at):
            continue  # the next key, not this one's value
        if text.startswith("- ", at):  # a list under a secret name: each item
            item_indent = at - start
            for line_start, line_end in _lines(text, match.end(), BLOCK_LINES):
                depth = _indent(text, line_start, line_end)
                if depth is None:
                    continue
                if depth != item_indent or not text.startswith("- ", line_start + depth):
                    break
                found = _scalar(text, line_start + depth + 2, line_end, strength)
                if found is not None:
                    yield found
            continue
        child = _MAPPING.match(text, at, end)
        if child is not None:  # a nested mapping: its own keys are named, unless the key
            if _child_key(child.group()) not in _VALUE_HOLDERS:  # only holds the value
                continue
            at = child.end()
        found = _scalar(text, at, end, strength)
        if found is not None:
            yield found


def _triple_quoted(text: str) -> Iterator[Found]:
    for match in hinted(_TRIPLE, _TRIPLE_HINT, text):
        strength = name_strength(match.group(1))
        if strength is None:
            continue
        close = text.find(match.group(2), match.end(), match.end() + MAX_VALUE)
        if close == -1 or text.count("\n", match.end(), close) > CONTEXT_AFTER:
            continue
        inner = text[match.end():close]
        value = inner.strip()
        if not value or any(c.isspace() for c in value) or not quoted_ok(value, strength):
            continue
        start = match.end() + inner.index(value)
        yield Found(start, start + len(value), "assignment")


def _arrays(text: str) -> Iterator[Found]:
    """The string items of a list under a secret name (`api_keys = ["...", "..."]`, over at
    most CONTEXT_AFTER lines)."""
    for match in hinted(_ARRAY, _ARRAY_HINT, text):
        strength = name_strength(match.group(2))
        if strength is None:
            continue
        close = text.find("]", match.end(), match.end() + MAX_VALUE)
        if close == -1 or text.count("\n", match.end(), close) > CONTEXT_AFTER:
            continue
        if not _STRING_LIST.fullmatch(text, match.end(), close):
            continue  # a list of tuples, calls or names: not a list of secrets
        for item in _QUOTED.finditer(text, match.end(), close):
            group = 1 if item.group(1) is not None else 2
            if quoted_ok(item.group(group), strength):
                yield Found(item.start(group), item.end(group), "assignment")


def _xml(text: str) -> Iterator[Found]:
    for match in _OPEN_TAG.finditer(text):
        name = match.group(1)
        strength = name_strength(name.split(":")[-1])
        if strength is None:
            continue
        at = match.end()
        limit = min(len(text), at + MAX_VALUE)
        if text.startswith("<![CDATA[", at):
            end = text.find("]]>", at, limit)
            if end == -1:
                continue
            start, after = at + 9, end + 3
        else:
            end = text.find("<", at, limit)
            if end == -1:
                continue
            start, after = at, end
            if not text[at:end].strip() and text[end:end + 7].lower() == "<value>":
                found = _child_value(text, end + 7, limit, strength)
                if found is not None:  # <Password><Value>X</Value> (Windows' unattend.xml)
                    yield found
                continue
        if text.count("\n", at, after) > CONTEXT_AFTER:
            continue
        rest = after
        while rest < len(text) and text[rest] in " \t\r\n":
            rest += 1
        if not text.startswith(f"</{name}", rest):
            continue
        inner = text[start:end]
        value = inner.strip()
        # Jenkins keeps an encrypted secret as `{AQAAABAAAA...}`: braces around, no template
        braced = value[1:-1] if value[:1] == "{" and value[-1:] == "}" else value
        if value and not any(c in value for c in "\n\r") and quoted_ok(braced, strength):
            begin = start + inner.index(value)
            yield Found(begin, begin + len(value), "xml_secret")


def _child_value(text: str, at: int, limit: int, strength: str) -> Found | None:
    """The text of a `<Value>` element opening right before `at`, when it reads as a secret
    under its parent's name."""
    close = text.find("</", at, limit)
    if close == -1 or text[close:close + 8].lower() != "</value>" or "\n" in text[at:close]:
        return None
    value = text[at:close].strip()
    if not value or not quoted_ok(value, strength):
        return None
    begin = at + text[at:close].index(value)
    return Found(begin, begin + len(value), "xml_secret")


def _pair_value(text: str, start: int, end: int, strength: str) -> Found | None:
    marker = _VALUE_MARKER.search(text, start, end)
    if marker is None:
        return None
    at = marker.end()
    if text.startswith("<value>", marker.start()) or marker.group().endswith(">"):
        close = text.find("</value>", at, end)
        if close == -1:
            return None
        return _scalar(text, at, close, strength)
    stop = at
    quote = text[at] if text[at] in "\"'" else ""
    if quote:
        close = text.find(quote, at + 1, end)
        if close == -1:
            return None
        stop = close + 1
    else:
        while stop < end and text[stop] not in ",}#\n":
            stop += 1
    return _scalar(text, at, stop, strength)


def _pairs(text: str) -> Iterator[Found]:
    reach = PAIR_REACH
    for match in _NAME_MARKER.finditer(text):
        name = match.group(2) or match.group(3) or match.group(4)
        strength = name_strength(name)
        if strength is None:
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end == -1 else line_end
        found = _pair_value(text, match.end(), line_end, strength)
        for start, end in _lines(text, match.end(), reach) if found is None else ():
            if _NAME_MARKER.search(text, start, end):
                break  # the next item's name: this one has no value
            found = _pair_value(text, start, end, strength)
            if found is not None:
                break
        if found is None and not text.startswith("-", line_start + (
                _indent(text, line_start, line_end) or 0)):
            found = _pair_before(text, line_start, strength)
        if found is not None:
            yield found


def _pair_before(text: str, line_start: int, strength: str) -> Found | None:
    """`- value: X` / `  name: SECRET`: the value on a line above, in the same list item."""
    end = line_start - 1
    for _ in range(2):
        if end <= 0:
            return None
        start = text.rfind("\n", 0, end) + 1
        found = _pair_value(text, start, end, strength)
        if found is not None:
            return found
        depth = _indent(text, start, end) or 0
        if text.startswith("-", start + depth):
            return None  # the item starts here
        end = start - 1
    return None


# a block of settings opened under a name that says its entries are secrets (HCL's `tokens {`,
# `credentials = {`), and its entries `name = "X"` on the lines below
_SECRET_BLOCK = re.compile(r"^[ \t]*([A-Za-z_][\w\-]{0,79})[ \t]*=?[ \t]*\{[ \t]*\r?$", re.M)
_BLOCK_ENTRY = re.compile(r"[ \t]*[A-Za-z_][\w\-]{0,79}[ \t]*=[ \t]*\"([^\"\n]{1,4096})\"[ \t]*\r?")
_SECRET_PLURALS = frozenset({"tokens", "secrets", "credentials", "passwords"})


def _names_secrets(name: str) -> bool:
    parts = name.replace("-", "_").lower().split("_")
    return parts[-1] in _SECRET_PLURALS or name_strength(name) in ("strong", "weak")


def secret_block_opener(line: str) -> bool:
    """The line opens a block of secrets (`tokens {`): its entries below are read."""
    match = _SECRET_BLOCK.fullmatch(line.rstrip("\n"))
    return match is not None and _names_secrets(match.group(1))


_BRACE_ENDS = re.compile(r"\{[ \t]*\r?$", re.M)  # a line ending in `{`: where a block opens


def _secret_blocks(text: str) -> Iterator[Found]:
    for brace in _BRACE_ENDS.finditer(text):
        match = _SECRET_BLOCK.fullmatch(text, text.rfind("\n", 0, brace.start()) + 1,
                                        brace.end())
        if match is None or not _names_secrets(match.group(1)):
            continue
        for start, end in _lines(text, match.end(), CONTEXT_AFTER):
            entry = _BLOCK_ENTRY.fullmatch(text, start, end)
            if entry is None:
                break  # the block's end, or what is not an entry
            value = entry.group(1)
            if random_token(value) and not placeholder(value, quoted=True):
                yield Found(entry.start(1), entry.end(1), "assignment")


def block_findings(text: str) -> list[Found]:
    found: list[Found] = []
    if "{" in text:
        found += _secret_blocks(text)
    if ":" in text or "=" in text:
        found += _yaml(text)
    if "[" in text:
        found += _arrays(text)
    if '"""' in text or "'''" in text:
        found += _triple_quoted(text)
    if "</" in text:
        found += _xml(text)
    if "value" in text or "default" in text or "Value" in text:
        found += _pairs(text)
    return found
