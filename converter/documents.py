"""Parsing the YAML and JSON documents users give wawkit, as hostile input.

Profiles, scenarios, terrain maps, unit tables, palettes, actions files and audit
records are small documents of plain data: mappings, lists, strings, numbers, booleans.
A YAML parser offers much more -- anchors and aliases (the "billion laughs": 444 bytes
that expand to gigabytes), explicit tags (``!!python/object``, ``!!binary``),
timestamps (``2001-02-30`` is a date that does not exist, and a traceback), integers of
any length (a 5,000-digit one is a traceback too), ``.inf`` and ``.nan`` -- and costs
about a kilobyte of memory per node when it builds its node tree first.

So the documents are read here, from the parser's event stream (libyaml's, when
PyYAML has it), into plain values directly, and nothing beyond plain data gets through:

* no aliases and no anchors, no explicit tags, no merge keys (``<<``);
* dates and times stay the strings they were written as (YAML 1.2 has no timestamps;
  the schema says whether a string belongs there);
* integers of at most :data:`MAX_INT_DIGITS` characters and within 64 bits, floats
  finite, mapping keys scalars and never repeated;
* at most :data:`MAX_DEPTH` levels of nesting and :data:`MAX_NODES` values, so time
  and memory grow with the document and stop at the caps.

JSON gets the same rules (no ``NaN``/``Infinity``, no repeated keys, the same caps).
Every refusal is a :class:`~converter.errors.SchemaError` naming the file and the line
and column (YAML) or offset (JSON).
"""
from __future__ import annotations

import json
import math
from typing import Any, Callable

import yaml

from converter.errors import SchemaError

#: Deepest nesting of lists and mappings (real documents: under ten levels).
MAX_DEPTH = 64
#: Most values (scalars, lists and mappings, keys included) in one document; the
#: largest real documents (a scenario of a whole module) hold a few tens of thousands.
MAX_NODES = 1_000_000
#: Longest integer literal, in characters (a 64-bit integer has at most 20 digits;
#: underscores and a ``0x`` prefix leave room to spare).
MAX_INT_DIGITS = 40
INT_RANGE = (-(2**63), 2**63 - 1)

#: Said of a document nested deeper than :data:`MAX_DEPTH`.
TOO_DEEP = "nested too deeply to read"

_EventLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TAG = "tag:yaml.org,2002:"


class _Resolver(yaml.resolver.Resolver):
    """YAML 1.1's implicit types less the timestamp: a date is left as the string written."""

    yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag != _TAG + "timestamp"]
        for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()}


_RESOLVER = _Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


class _Refused(Exception):
    """A document refused at an event; carries the message and the event's mark."""

    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark


def _scalar(event: yaml.ScalarEvent) -> Any:
    """The plain value of one scalar: None, bool, int, float or str."""
    if event.tag is not None and event.tag != "!":
        raise _Refused(f"explicit tags ({event.tag}) are not allowed", event.start_mark)
    if event.tag == "!" or not event.implicit[0]:  # quoted, or marked non-specific: a string
        return event.value
    tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark)
    if tag == _TAG + "null":
        return None
    if tag == _TAG + "bool":
        return _CONSTRUCTOR.construct_yaml_bool(node)
    if tag == _TAG + "int":
        if len(event.value) > MAX_INT_DIGITS:
            raise _Refused(f"an integer of {len(event.value)} characters, over the {MAX_INT_DIGITS}-character cap",
                           event.start_mark)
        return _bounded(_CONSTRUCTOR.construct_yaml_int(node), event.start_mark)
    if tag == _TAG + "float":
        value = _CONSTRUCTOR.construct_yaml_float(node)
        if not math.isfinite(value):
            raise _Refused(f"{event.value!r} is not a finite number", event.start_mark)
        return value
    if tag == _TAG + "merge":
        raise _Refused("merge keys (<<) are not allowed", event.start_mark)
    return event.value


def _bounded(value: int, mark: Any) -> int:
    if not INT_RANGE[0] <= value <= INT_RANGE[1]:
        raise _Refused(f"the integer {value} is outside the 64-bit range", mark)
    return value


class _Builder:
    """Plain values from a stream of nodes: one open list or mapping per level."""

    def __init__(self, max_nodes: int, max_depth: int) -> None:
        self.stack: list[tuple[Any, Any]] = []   # (list or dict, pending key or _NO_KEY)
        self.nodes = 0
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.result: Any = None
        self.done = False

    def count(self, mark: Any) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _Refused(f"more than {self.max_nodes} values in one document", mark)

    def open(self, container: Any, mark: Any) -> None:
        self.count(mark)
        if len(self.stack) >= self.max_depth:
            raise _Refused(TOO_DEEP, mark)
        self.stack.append((container, _NO_KEY))

    def close(self, mark: Any) -> None:
        container, _ = self.stack.pop()
        self.add(container, mark, counted=True)

    def add(self, value: Any, mark: Any, *, counted: bool = False) -> None:
        if not counted:
            self.count(mark)
        if not self.stack:
            self.result, self.done = value, True
            return
        parent, key = self.stack[-1]
        if isinstance(parent, list):
            parent.append(value)
        elif key is _NO_KEY:
            if isinstance(value, (list, dict)):
                raise _Refused("a mapping key must be a scalar (a string or a number)", mark)
            if value in parent:
                raise _Refused(f"duplicate key {value!r}", mark)
            self.stack[-1] = (parent, value)
        else:
            parent[key] = value
            self.stack[-1] = (parent, _NO_KEY)


_NO_KEY = object()


def parse_yaml(text: str, *, file: str | None = None) -> Any:
    """One YAML document as plain data, under the rules above; a typed error otherwise."""
    loader = _EventLoader(text)
    builder = _Builder(MAX_NODES, MAX_DEPTH)
    documents = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent)):
                continue
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _Refused("holds more than one YAML document (a second '---')", event.start_mark)
                continue
            if isinstance(event, yaml.AliasEvent):
                raise _Refused("anchors and aliases are not allowed", event.start_mark)
            if getattr(event, "anchor", None) is not None:
                raise _Refused("anchors and aliases are not allowed", event.start_mark)
            if isinstance(event, yaml.ScalarEvent):
                builder.add(_scalar(event), event.start_mark)
            elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if event.tag is not None and event.tag != "!":
                    raise _Refused(f"explicit tags ({event.tag}) are not allowed", event.start_mark)
                builder.open([] if isinstance(event, yaml.SequenceStartEvent) else {}, event.start_mark)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                builder.close(event.start_mark)
    except _Refused as refused:
        if refused.message == TOO_DEEP:
            raise SchemaError(TOO_DEEP, file=file) from None
        raise _error(f"not valid YAML: {refused.message}", refused.mark, file) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        if "maximum nesting depth" in problem:  # libyaml's own ceiling (1,000 levels), met while scanning ahead
            raise SchemaError(TOO_DEEP, file=file) from None
        raise _error(f"not valid YAML: {problem}", mark, file) from None
    except (ValueError, OverflowError, TypeError) as error:  # a scalar the constructor cannot convert
        raise SchemaError(f"not valid YAML: {error}", file=file) from None
    finally:
        loader.dispose()
    return builder.result


def _error(message: str, mark: Any, file: str | None) -> SchemaError:
    if mark is None:
        return SchemaError(message, file=file)
    return SchemaError(f"{message} (line {mark.line + 1}, column {mark.column + 1})", file=file,
                       position=getattr(mark, "index", None))


class _JsonRefused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _json_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise _JsonRefused(f"an integer of {len(text)} characters, over the {MAX_INT_DIGITS}-character cap")
    value = int(text)
    if not INT_RANGE[0] <= value <= INT_RANGE[1]:
        raise _JsonRefused(f"the integer {value} is outside the 64-bit range")
    return value


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _JsonRefused(f"{text} is not a finite number")
    return value


def _json_constant(name: str) -> Any:
    raise _JsonRefused(f"{name} is not a number JSON allows")


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _JsonRefused(f"duplicate key {key!r}")
        result[key] = value
    return result


def _walk_limits(value: Any) -> str | None:
    """Why a parsed JSON value is over the depth or node caps (walked without recursion), or None."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    nodes = 0
    while pending:
        item, depth = pending.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"more than {MAX_NODES} values in one document"
        if isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                return TOO_DEEP
            children: Any = item.values() if isinstance(item, dict) else item
            nodes += len(item) if isinstance(item, dict) else 0   # the keys
            pending.extend((child, depth + 1) for child in children)
    return None


def parse_json(text: str, *, file: str | None = None) -> Any:
    """One JSON document as plain data, under the same rules as YAML; a typed error otherwise."""
    hooks: dict[str, Callable[..., Any]] = {"parse_int": _json_int, "parse_float": _json_float,
                                            "parse_constant": _json_constant, "object_pairs_hook": _json_object}
    try:
        value = json.loads(text, **hooks)
    except json.JSONDecodeError as error:
        raise SchemaError(f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})",
                          file=file, position=error.pos) from None
    except _JsonRefused as refused:
        raise SchemaError(f"not valid JSON: {refused.message}", file=file) from None
    except RecursionError:
        raise SchemaError(TOO_DEEP, file=file) from None
    problem = _walk_limits(value)
    if problem is not None:
        raise SchemaError(problem if problem == TOO_DEEP else f"not valid JSON: {problem}", file=file)
    return value


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "MAX_NODES", "TOO_DEEP", "parse_json", "parse_yaml"]
