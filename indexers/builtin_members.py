"""Method names the languages' own types provide (lists, maps, strings, files, promises...).

A call on a receiver Helix cannot name (`x.append(1)`, `items.get(k)`) resolves to a method of
that name in a repository class only when exactly one visible class has one
(`indexers.calls.FileScope.any_method`). For the names below the receiver is far more often a
list, dict, string, file or array than a repository object, so such a call resolves to nothing.
Language keys are `indexers.languages` names; a language not listed has no such names.
"""

from __future__ import annotations

# Public methods and attributes of dict, list, set, frozenset, str, bytes, tuple, int, float
# and text files (CPython 3.11's `dir`, names without a leading underscore).
PYTHON = frozenset({
    "add", "append", "as_integer_ratio", "bit_count", "bit_length", "buffer", "capitalize",
    "casefold", "center", "clear", "close", "closed", "conjugate", "copy", "count", "decode",
    "denominator", "detach", "difference", "difference_update", "discard", "encode",
    "encoding", "endswith", "errors", "expandtabs", "extend", "fileno", "find", "flush",
    "format", "format_map", "from_bytes", "fromhex", "fromkeys", "get", "hex", "imag",
    "index", "insert", "intersection", "intersection_update", "is_integer", "isalnum",
    "isalpha", "isascii", "isatty", "isdecimal", "isdigit", "isdisjoint", "isidentifier",
    "islower", "isnumeric", "isprintable", "isspace", "issubset", "issuperset", "istitle",
    "isupper", "items", "join", "keys", "line_buffering", "ljust", "lower", "lstrip",
    "maketrans", "name", "newlines", "numerator", "partition", "pop", "popitem", "read",
    "readable", "readline", "readlines", "real", "reconfigure", "remove", "removeprefix",
    "removesuffix", "replace", "reverse", "rfind", "rindex", "rjust", "rpartition", "rsplit",
    "rstrip", "seek", "seekable", "setdefault", "sort", "split", "splitlines", "startswith",
    "strip", "swapcase", "symmetric_difference", "symmetric_difference_update", "tell",
    "title", "to_bytes", "translate", "truncate", "union", "update", "upper", "values",
    "writable", "write", "write_through", "writelines", "zfill",
})

# Array, Object, String, Map, Set, Promise and Function methods.
JAVASCRIPT = frozenset({
    "add", "apply", "at", "bind", "call", "catch", "charAt", "charCodeAt", "clear",
    "codePointAt", "concat", "copyWithin", "delete", "endsWith", "entries", "every", "fill",
    "filter", "finally", "find", "findIndex", "findLast", "findLastIndex", "flat", "flatMap",
    "forEach", "get", "has", "hasOwnProperty", "includes", "indexOf", "isPrototypeOf", "join",
    "keys", "lastIndexOf", "length", "localeCompare", "map", "match", "matchAll", "normalize",
    "padEnd", "padStart", "pop", "propertyIsEnumerable", "push", "reduce", "reduceRight",
    "repeat", "replace", "replaceAll", "reverse", "search", "set", "shift", "size", "slice",
    "some", "sort", "splice", "split", "startsWith", "substr", "substring", "then",
    "toLocaleString", "toLowerCase", "toString", "toUpperCase", "trim", "trimEnd",
    "trimStart", "unshift", "valueOf", "values",
})

# java.lang.Object, String and the collection interfaces (Kotlin and C# spellings too).
JVM_CLR = frozenset({
    "Add", "Clear", "Contains", "ContainsKey", "Count", "Equals", "GetHashCode", "GetType",
    "Remove", "ToString", "add", "addAll", "append", "charAt", "clear", "contains",
    "containsKey", "equals", "forEach", "get", "getClass", "hashCode", "isEmpty", "iterator",
    "length", "put", "remove", "size", "stream", "substring", "toString", "trim",
})

BUILTIN_MEMBERS: dict[str, frozenset[str]] = {
    "python": PYTHON,
    "javascript": JAVASCRIPT,
    "typescript": JAVASCRIPT,
    "tsx": JAVASCRIPT,
    "java": JVM_CLR,
    "kotlin": JVM_CLR,
    "csharp": JVM_CLR,
}
