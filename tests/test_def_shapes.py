"""Definition shapes: a change of meaning is told from a change of form (issue 34)."""

from __future__ import annotations

from indexers.def_shapes import changes, code_tokens, defined, shapes

BEFORE = '''
@dataclass
class Settings(Base):
    """Connection settings."""

    retries: int = 3

    def __init__(self, host, port: int = 80, *args, verify=True, **extra) -> None:
        self.host = host

    def close(self):
        return None


def fetch(url, timeout=5.0):
    """Fetch a URL."""
    if not url:
        raise ValueError('no url')
    return get(url, timeout)
'''


def _changed(after: str) -> dict[str, list[tuple[str, str]]]:
    old, new = shapes("python", BEFORE.encode()), shapes("python", after.encode())
    return {q: [(c.kind, c.detail) for c in changes(old[q], new[q])] for q in old if q in new}


def test_shapes_read_parameters_defaults_raises_and_members() -> None:
    found = shapes("python", BEFORE.encode())
    fetch = found["fetch"]
    assert [(p.name, p.default) for p in fetch.params] == [("url", None), ("timeout", "5.0")]
    assert fetch.raises == ("ValueError",)
    ctor = found["Settings.__init__"]
    assert [p.name for p in ctor.params] == ["host", "port", "*args", "verify", "**extra"]
    assert ctor.params[1].annotation == "int" and ctor.returns == "None"
    cls = found["Settings"]
    assert [p.name for p in cls.params] == ["host", "port", "*args", "verify", "**extra",
                                            "retries"]
    assert cls.members == ("close", "retries")


def test_reformatting_comments_docstrings_and_quotes_change_nothing() -> None:
    after = BEFORE.replace('"""Fetch a URL."""', '# fetch it\n    """Fetch any URL."""') \
        .replace("raise ValueError('no url')", 'raise ValueError(\n            "no url",\n'
                                                '        )') \
        .replace("return get(url, timeout)", "return get(url,\n               timeout)")
    assert after != BEFORE
    assert _changed(after)["fetch"] == []


def test_a_changed_default_is_named() -> None:
    assert _changed(BEFORE.replace("timeout=5.0", "timeout=10.0"))["fetch"] == [
        ("defaults", "timeout: 5.0 -> 10.0")]


def test_parameters_raises_and_members_are_named() -> None:
    after = BEFORE.replace("def fetch(url, timeout=5.0)", "def fetch(url, timeout=5.0, *, "
                                                          "proxy=None)") \
        .replace("raise ValueError('no url')", "raise TypeError('no url')") \
        .replace("    def close(self):\n        return None\n", "")
    found = _changed(after)
    assert found["fetch"] == [("parameters", "added proxy"),
                              ("raises", "now raises TypeError; no longer raises ValueError"),
                              ("body", "the body's code changed")]
    assert ("members", "removed close") in found["Settings"]


def test_a_body_change_alone_is_a_body_change() -> None:
    found = _changed(BEFORE.replace("return get(url, timeout)", "return get(url, timeout * 2)"))
    assert found["fetch"] == [("body", "the body's code changed")]


def test_typescript_parameters_and_throws() -> None:
    source = b"export function load(path: string, retries = 2): Data { throw new LoadError(path) }"
    shape = shapes("typescript", source)["load"]
    assert [(p.name, p.default) for p in shape.params] == [("path", None), ("retries", "2")]
    assert shape.raises == ("LoadError",) and shape.returns == "Data"


def test_annotations_spelled_two_ways_are_one() -> None:
    old = shapes("python", b"import typing\ndef f(x: typing.Optional[typing.List[int]] = None,"
                           b" y: typing.Union[int, str] = 1) -> typing.Dict[str, int]: pass\n")
    new = shapes("python", b"def f(x: list[int] | None = None, y: int | str = 1)"
                           b" -> dict[str, int]: pass\n")
    assert old["f"].params == new["f"].params and old["f"].returns == new["f"].returns
    assert changes(old["f"], new["f"]) == []
    typed = shapes("python", b"def g(func: typing.Callable[..., int], *args: int) -> None: pass")
    assert [p.name for p in typed["g"].params] == ["func", "*args"]


def test_code_tokens_of_a_snippet_leave_out_comments_and_layout() -> None:
    one = code_tokens("python", "    def f(x):  # note\n        return 'a'\n")
    two = code_tokens("python", "def f(\n    x,\n):\n    return \"a\"")
    assert one == two == ("def", "f", "(", "x", ")", ":", "return", '"', "a", '"')
    assert code_tokens(None, "two  words") == ("two", "words")


def test_a_constructor_taken_from_a_base_is_not_a_removal_of_parameters() -> None:
    old = shapes("python", b"class R(Base):\n    def __init__(self, stop, wait):\n        pass\n"
                           b"    def run(self):\n        pass\n")
    new = shapes("python", b"class R(Base):\n    def run(self):\n        pass\n")
    assert not new["R"].params_known
    assert changes(old["R"], new["R"]) == []  # no parameters "removed"


def test_a_function_bound_to_a_name_keeps_its_body_out_of_its_signature() -> None:
    before = b"export const mark = (value, flag = 1) => {\n  const copy = {...value};\n" \
             b"  copy.on = false;\n  return copy;\n};\n"
    after = b"export const mark = (value, flag = 1) => {\n  return {marked: true, value};\n};\n"
    old, new = shapes("typescript", before)["mark"], shapes("typescript", after)["mark"]
    assert [(p.name, p.default) for p in old.params] == [("value", None), ("flag", "1")]
    assert [c.kind for c in changes(old, new)] == ["body"]


WIDE = '''import os


class Store:
    """A store."""

    def __init__(self, path, mode="r"):
        self.path = path

    def read(self, key):
        if key is None:
            raise KeyError(key)
        return os.path.join(self.path, key)

    alias = read


def helper(x, *args, **kwargs):
    return check(x) if args else x


def check(x):
    raise ValueError(x) if x else TypeError
'''


def test_reading_some_definitions_gives_the_shapes_of_the_whole_file() -> None:
    whole = shapes("python", WIDE.encode())
    for name in whole:
        assert shapes("python", WIDE.encode(), frozenset({name}))[name] == whole[name], name
    assert shapes("python", WIDE.encode(), frozenset({"Store", "check"})) == {
        "Store": whole["Store"], "check": whole["check"]}


def test_shapes_know_the_calls_conditional_raises_and_aliased_members() -> None:
    found = shapes("python", WIDE.encode())
    assert found["check"].raises == ("TypeError", "ValueError")
    assert found["helper"].calls == ("check",)
    assert found["Store"].members == ("alias", "read")
    assert defined("python", WIDE.encode()) == {q: s.kind for q, s in found.items()}
