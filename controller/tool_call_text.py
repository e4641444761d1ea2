"""A question handed over in a tool's syntax or relayed in quotes (router26d, issue 32).

`syntax_words`: the words of a call's form ('LOOKUP term=cavity', '{"query": ...}'), which the
sense check never takes for the word asked about; `quoted_question`: the one quoted question of
a message that says more than it ('ask(query="what is a cavity")', "writes: 'What is X?'"),
the clause a sense check reads (`controller.route.asked_clause`). Pure.
"""

from __future__ import annotations

import re

from controller.issue_text import reads_as_question

# an argument's name in a tool's syntax ('term=cavity', '"query": ...'), and a command word
# in capitals opening such a call ("LOOKUP term=cavity"): the call's form, never its subject
# (a name runs to its run's end, so each run of `[\w-]` is read once, from its start: `\b` and
# a search from every dash of "a-a-a-..." read the rest of the run again and again)
_ARGUMENT_RUN = re.compile(r"(?<![\w-])[\w-]+=(?![=\s])")
_RUN_NAME = re.compile(r"(?:^|(?<=-))[A-Za-z_][\w-]*=")
_KEY_NAME = re.compile(r"(?<=[{,])\s*\"([A-Za-z_][\w-]*)\"\s*:")
_COMMAND_WORD = re.compile(r"^\W*([A-Z][A-Z_-]+)\s+(?=[A-Za-z_][\w-]*\s*=)")


def syntax_words(body: str) -> set[str]:
    """The words of a tool call's form in `body`: its arguments' names and its command."""
    names = set(_KEY_NAME.findall(body))
    for run in _ARGUMENT_RUN.findall(body):
        name = _RUN_NAME.search(run)
        if name is not None:
            names.add(name.group()[:-1])
    command = _COMMAND_WORD.match(body)
    return {w.lower() for w in names | ({command.group(1)} if command else set())}


# a quoted text of two words or more: a question relayed or handed to a tool in its call
# ('ask(query="what is a cavity")', '{"q": "what is a cavity"}', "writes: 'What is X?'")
_QUOTED_TEXT = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![\w'’])['‘]([^'‘’]+)['’](?![\w'’])")


def quoted_question(text: str) -> str | None:
    """The one quoted text of the message that reads as a question of two words or more,
    when the message says more than it: a question relayed or passed as a tool's argument."""
    found = [next(g for g in m.groups() if g is not None).strip()
             for m in _QUOTED_TEXT.finditer(text)]
    asks = [q for q in found if len(q.split()) >= 2 and reads_as_question(q)]
    if len(asks) != 1 or len(asks[0]) + 2 >= len(text.strip()):
        return None
    return asks[0]
