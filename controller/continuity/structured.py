"""A follow-up an agent or a tool sends as structured data, read as the words it carries.

    plain_words(text) -> str

Agents and editor plugins wrap a follow-up in a markup element (`<followup>And the tokenizer?
</followup>`, an empty `<interrupt/>`), send it as one JSON object (`{"action": "callers",
"target": "focused"}`) or as key=value pairs (`op=show target=selected`). The router reads
sentences, so such a message is read as the words it holds: the element's text (an empty
element: its name and its attributes' values), the object's or the pairs' values in order, but
for the exchange's plumbing (`PLUMBING_KEYS`: which repository, session, sender). A
value under a key that names what to do (`ACTION_KEYS`) is an operation name, its underscores
the spaces of its words (`who_imports`: "who imports"); every other value stays as written (a
name, a number, the message itself), a path or a flag (yes, no, true, false) after its key,
which says what it is for ("exclude tests/", "keep scope yes"); a list's items each in turn.
Anything else is returned unchanged. Pure.
"""

from __future__ import annotations

import json
import re

# keys whose value names the operation asked for (an operation name, not a name from the code)
ACTION_KEYS = frozenset({"action", "op", "operation", "task", "intent", "command", "cmd",
                         "verb", "kind", "type", "relation", "request"})
FLAG_VALUES = frozenset({"yes", "no", "true", "false", "on", "off"})
# keys of the exchange's plumbing (which repository, session or sender): no words of the message
PLUMBING_KEYS = frozenset({"repo", "repository", "session", "session_id", "id", "user",
                           "user_id", "sender", "from", "turn", "turn_id", "ts", "timestamp",
                           "time", "version", "v", "lang", "locale"})

_ELEMENT = re.compile(r"^\s*<(?P<name>[A-Za-z][\w.-]*)(?P<attrs>(?:\s+[^<>]*)?)>"
                      r"(?P<inner>.*)</(?P=name)\s*>\s*$", re.DOTALL)
_EMPTY = re.compile(r"^\s*<(?P<name>[A-Za-z][\w.-]*)(?P<attrs>(?:\s+[^<>]*?)?)\s*/>\s*$")
_ATTR = re.compile(r"(?P<key>[\w.-]+)\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)')")
_PAIR = re.compile(r"(?P<key>[A-Za-z_][\w.-]*)=(?P<value>\"[^\"]*\"|'[^']*'|[^\s;,]+)")
_PAIRS = re.compile(r"^\s*(?:[A-Za-z_][\w.-]*=(?:\"[^\"]*\"|'[^']*'|[^\s;,]+)[\s;,]*)+$")


def _value(key: str, value: str) -> str:
    value = value.strip().strip("\"'")
    if not value or key.lower() in PLUMBING_KEYS:
        return ""
    if key.lower() in ACTION_KEYS:
        return value.replace("_", " ")
    # a path or a flag is said after its key: the key says what it is for ("exclude tests/",
    # "keep scope yes": a bare "yes" would answer a question nobody asked)
    said = "/" in value or value.lower() in FLAG_VALUES
    return f"{key.lower().replace('_', ' ')} {value}" if said else value


def _joined(pairs: list[tuple[str, str]]) -> str:
    return " ".join(v for v in (_value(k, v) for k, v in pairs) if v)


def _attributes(attrs: str) -> list[tuple[str, str]]:
    return [(m["key"], m["dq"] if m["dq"] is not None else m["sq"])
            for m in _ATTR.finditer(attrs or "")]


def _json_words(text: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    pairs = [(str(k), str(item)) for k, v in data.items()
             for item in (v if isinstance(v, list) else [v])
             if isinstance(item, (str, int, float)) and not isinstance(item, bool)]
    return _joined(pairs) or None


def plain_words(text: str) -> str:
    """The words a structured message carries (see the module), else `text` itself."""
    stripped = text.strip()
    element = _ELEMENT.match(stripped)
    if element and element["inner"].strip():
        return plain_words(element["inner"])
    empty = _EMPTY.match(stripped) or (element if element else None)
    if empty:
        name = empty["name"].replace("_", " ").replace("-", " ")
        return " ".join([name, _joined(_attributes(empty["attrs"]))]).strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        return _json_words(stripped) or text
    if _PAIRS.match(stripped):
        return _joined([(m["key"], m["value"]) for m in _PAIR.finditer(stripped)]) or text
    return text
