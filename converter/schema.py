"""Loading and validating the YAML/JSON files users write: scenarios, unit tables, terrain, profiles, actions.

Every document goes through its JSON Schema in ``schemas/`` before any code reads it,
so code after this point can trust the shape. A failure is a
:class:`~converter.errors.SchemaError` naming the file and the place inside the
document in the notation users read (``units[3].hex``). Files are read through the
bounded reader (:mod:`converter.files`) and parsed by the hardened loader
(:mod:`converter.documents`: no aliases, no tags, bounded depth, size and integers).
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import jsonschema

from converter.documents import TOO_DEEP, parse_json, parse_yaml
from converter.errors import SchemaError
from converter.files import read_bounded

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
#: Largest document read (bytes); real profiles and scenarios are far below it.
MAX_DOCUMENT_SIZE = 32 * 1024 * 1024
#: Document kinds and their schema files.
KINDS = {
    "scenario": "scenario.schema.json",
    "unit_table": "unit-table.schema.json",
    "terrain": "terrain.schema.json",
    "tec": "tec.schema.json",
    "palette": "palette.schema.json",
    "profile": "profile.schema.json",
    "actions": "actions.schema.json",
}


def document_path(parts: Iterable[Any]) -> str:
    """``['units', 3, 'hex']`` -> ``units[3].hex``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


@lru_cache(maxsize=None)
def _validator(kind: str) -> jsonschema.protocols.Validator:
    try:
        name = KINDS[kind]
    except KeyError:
        raise SchemaError(f"unknown document kind {kind!r}; expected one of {sorted(KINDS)}") from None
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def validate(data: Any, kind: str, *, file: str | None = None, prefix: Iterable[Any] = ()) -> Any:
    """Check ``data`` against the schema of ``kind``; return it unchanged or raise SchemaError.

    The error reported is the deepest one jsonschema ranks best, with its path inside
    the document (``prefix`` is put in front, for documents nested in others).
    """
    validator = _validator(kind)
    errors = list(validator.iter_errors(data))
    if not errors:
        return data
    error = jsonschema.exceptions.best_match(errors)
    while error.context:           # oneOf/anyOf: report the closest branch's own error
        error = jsonschema.exceptions.best_match(error.context)
    path = document_path([*prefix, *error.absolute_path])
    raise SchemaError(f"{error.message} ({kind.replace('_', ' ')} schema)", path=path or "(document)", file=file)


def parse_text(text: str, *, file: str | None = None, fmt: str | None = None) -> Any:
    """Parse YAML (JSON is YAML too, but is read as JSON when the name says so) with the
    hardened loader of :mod:`converter.documents`: plain data only, within its caps."""
    if fmt == "json" or (fmt is None and file is not None and file.lower().endswith(".json")):
        return parse_json(text, file=file)
    return parse_yaml(text, file=file)


#: The first bytes of a zip archive: a save or a module given where a text document belongs.
ZIP_MAGIC = b"PK\x03\x04"


def read_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of a user file, read through the bounded reader (a regular file, within
    the size cap), as a typed error when unreadable."""
    file = str(path)
    data = read_bounded(path, MAX_DOCUMENT_SIZE, error=SchemaError, too_large=SchemaError).data
    if data.startswith(ZIP_MAGIC):
        raise SchemaError("is a zip archive (a VASSAL save or module), not a YAML or JSON file; "
                          "'wawkit import' turns a save into a scenario file", file=file)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SchemaError(f"not UTF-8 text ({error.reason})", file=file, position=error.start) from None


def load_document(path: str | os.PathLike[str], kind: str) -> Any:
    """Read a YAML/JSON file and validate it as ``kind``."""
    file = str(path)
    return validate(parse_text(read_text(path), file=file), kind, file=file)


__all__ = ["KINDS", "MAX_DOCUMENT_SIZE", "TOO_DEEP", "document_path", "load_document", "parse_text", "read_text", "validate"]
