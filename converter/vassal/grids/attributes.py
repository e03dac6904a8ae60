"""Reading grid attributes from buildFile XML as VASSAL's ``setAttribute`` does.

An attribute that is absent keeps the class default; one that is present is
parsed with Java's rules (``Integer.valueOf``, ``Double.valueOf``,
``Boolean.valueOf``: anything but ``true`` in any case is false). A value Java
could not parse makes VASSAL fail to load the module, so it is a
:class:`~converter.errors.ModuleError` here, naming the element, its line and
the attribute.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Mapping, TypeVar

from converter.errors import ModuleError

T = TypeVar("T")
_INT = re.compile(r"[+-]?[0-9]+")
_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)")


def where(element: Any) -> str:
    """``Tag (line N)`` for messages about one buildFile element."""
    tag = str(getattr(element, "tag", element)).rsplit(".", 1)[-1]
    line = getattr(element, "sourceline", None)
    return f"{tag} (line {line})" if line else tag


def java_int(value: str, name: str, element: Any, file: str | None = None) -> int:
    if value.isdigit():
        return int(value)
    text = value
    if not _INT.fullmatch(text):
        raise ModuleError(f"{where(element)}: attribute {name}={value!r} is not an integer", file=file)
    return int(text)


def java_double(value: str, name: str, element: Any, file: str | None = None) -> float:
    text = value.strip()
    if not _DOUBLE.fullmatch(text):
        raise ModuleError(f"{where(element)}: attribute {name}={value!r} is not a number", file=file)
    return float(text.rstrip("fFdD"))


def configure(cls: type[T], attributes: Mapping[str, str], names: Mapping[str, str], element: Any,
              file: str | None = None, **extra: Any) -> T:
    """Build dataclass ``cls`` from XML ``attributes``; ``names`` maps XML name -> field name."""
    defaults = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for xml_name, field_name in names.items():
        if xml_name not in attributes:
            continue
        raw = attributes[xml_name]
        field = defaults[field_name]
        default = field.default
        if isinstance(default, bool):
            values[field_name] = raw.lower() == "true"
        elif isinstance(default, int):
            values[field_name] = java_int(raw, xml_name, element, file)
        elif isinstance(default, float):
            values[field_name] = java_double(raw, xml_name, element, file)
        elif field_name in ("first", "h_type", "v_type"):
            if not raw:
                raise ModuleError(f"{where(element)}: attribute {xml_name} is empty", file=file)
            values[field_name] = raw[0]
        else:
            values[field_name] = raw
    values.update(extra)
    return cls(**values)
