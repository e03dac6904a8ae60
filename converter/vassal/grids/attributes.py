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


#: The range of Java's ``int``: ``Integer.valueOf`` refuses anything outside it, and so VASSAL
#: fails to load the module.
JAVA_INT_MIN, JAVA_INT_MAX = -(2**31), 2**31 - 1


def _shown(value: str) -> str:
    """An attribute value as a message quotes it: in full when short, else its start and length
    (a hostile buildFile may give a number of thousands of digits)."""
    return repr(value) if len(value) <= 40 else f"{value[:20]!r}... ({len(value)} characters)"


def java_int(value: str, name: str, element: Any, file: str | None = None) -> int:
    """``Integer.valueOf``: decimal digits with an optional sign, within Java's ``int``."""
    if len(value) < 10 and value.isascii() and value.isdigit():  # the common case: at most 9 ASCII digits
        return int(value)
    if not _INT.fullmatch(value):
        raise ModuleError(f"{where(element)}: attribute {name}={_shown(value)} is not an integer", file=file)
    # The length first: int() itself refuses a literal of thousands of digits (with a ValueError).
    if len(value.lstrip("+-").lstrip("0")) > 10 or not JAVA_INT_MIN <= int(value) <= JAVA_INT_MAX:
        raise ModuleError(f"{where(element)}: attribute {name}={_shown(value)} is outside Java's int range "
                          f"({JAVA_INT_MIN}..{JAVA_INT_MAX})", file=file)
    return int(value)


def java_double(value: str, name: str, element: Any, file: str | None = None) -> float:
    text = value.strip()
    if not _DOUBLE.fullmatch(text):
        raise ModuleError(f"{where(element)}: attribute {name}={_shown(value)} is not a number", file=file)
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
