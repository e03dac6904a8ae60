"""Audit records: everything needed to replay a resolution and get the identical result.

``wawkit resolve`` writes one JSON record beside its output: every input file with
its sha256, the actions as given, the ruleset, the dice (the seed, or the values
given), every roll with its label, the events, and the sha256 of the corrected
save's plaintext (the obfuscation key of a save is random, its plaintext is not).
``wawkit verify`` reads the record, checks the inputs are the same files, resolves
again and compares roll for roll, event for event, byte for byte.

Paths are stored relative to the record's own folder, so a record and its inputs
can move together (a fresh clone, another machine).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from converter.errors import SchemaError, WawkitError
from converter.schema import ZIP_MAGIC
from converter.vassal.container import read_container, write_atomic

FORMAT = "wawkit-audit/1"


class AuditError(WawkitError):
    """An audit record that cannot be read, or whose inputs are missing or changed."""


def sha256_file(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def event_record(event: Any) -> dict[str, Any]:
    """An event as plain data: its type name and its fields (stable key order)."""
    data = asdict(event) if is_dataclass(event) else {"value": repr(event)}
    return {"type": type(event).__name__, **{k: plain(v) for k, v in data.items()}}


def plain(value: Any) -> Any:
    if isinstance(value, (tuple, list, frozenset, set)):
        items = [plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    return value


@dataclass
class AuditRecord:
    """One resolution as data. ``inputs`` maps a role (save, module, profile...) to path + sha256."""

    inputs: dict[str, dict[str, str]]
    actions: list[Any]
    ruleset: str
    book: str | None
    dice: dict[str, Any]
    rolls: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    output: dict[str, str] | None = None
    refused: dict[str, Any] | None = None
    report: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, file: str | None = None) -> "AuditRecord":
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise AuditError(f"not a wawkit audit record (expected format {FORMAT!r})", file=file)
        known = {f.name for f in fields(cls)}
        missing = [name for name in ("inputs", "actions", "ruleset", "book", "dice") if name not in data]
        if missing:
            raise SchemaError(f"missing {', '.join(missing)}", path="/", file=file)
        _check_shape(data, file)
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> "AuditRecord":
        name = str(path)
        raw = Path(path).read_bytes()
        if raw.startswith(ZIP_MAGIC):
            raise AuditError("is a zip archive (a VASSAL save or module), not an audit record (.audit.json)",
                             file=name)
        try:
            data = json.loads(raw.decode("utf-8"))
        except json.JSONDecodeError as error:
            raise AuditError(f"not JSON: {error.msg}", file=name, position=error.pos) from None
        except UnicodeDecodeError as error:
            raise AuditError("not UTF-8 text", file=name, position=error.start) from None
        return cls.from_dict(data, file=name)

    def write(self, path: str | os.PathLike[str]) -> None:
        write_atomic(path, self.to_json().encode("utf-8"), overwrite=True)


#: The JSON type each field of a record must have.
SHAPES: dict[str, type | tuple[type, ...]] = {
    "inputs": dict, "actions": list, "ruleset": str, "book": (str, type(None)), "dice": dict, "rolls": list,
    "events": list, "results": list, "output": (dict, type(None)), "refused": (dict, type(None)), "report": str}


def _check_shape(data: Mapping[str, Any], file: str | None) -> None:
    """Refuse a record whose fields have the wrong JSON types (it is read from disk, untrusted)."""
    for name, kind in SHAPES.items():
        if name in data and not isinstance(data[name], kind):
            raise SchemaError(f"must be {_kind_name(kind)}", path=f"/{name}", file=file)
    for role, entry in data["inputs"].items():
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
                and isinstance(entry.get("sha256"), str)):
            raise SchemaError("must be {path: string, sha256: string}", path=f"/inputs/{role}", file=file)
    for index, action in enumerate(data["actions"]):
        if not (isinstance(action, dict) and isinstance(action.get("kind"), str)
                and isinstance(action.get("refs"), list) and all(isinstance(r, str) for r in action["refs"])):
            raise SchemaError("must be {kind: string, refs: [string], ...}", path=f"/actions/{index}", file=file)
    seed, given = data["dice"].get("seed"), data["dice"].get("given")
    if seed is not None and not isinstance(seed, int) or given is not None and not (
            isinstance(given, list) and all(isinstance(v, int) for v in given)):
        raise SchemaError("seed must be an integer and given a list of integers", path="/dice", file=file)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a string", type(None): "null"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names[k] for k in kinds)


def describe_input(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> dict[str, str]:
    """A file as an audit input: its path relative to ``base`` (the record's folder) and sha256."""
    return {"path": os.path.relpath(os.path.abspath(path), os.path.abspath(base)), "sha256": sha256_file(path)}


def input_path(record_path: str | os.PathLike[str], entry: Mapping[str, str]) -> Path:
    """Where an input of a record is, relative to the record's folder."""
    return Path(os.path.abspath(record_path)).parent / entry["path"]


def check_inputs(record: AuditRecord, record_path: str | os.PathLike[str]) -> dict[str, Path]:
    """Every input's path, after checking it exists and its sha256 is the recorded one."""
    paths = {}
    for role, entry in sorted(record.inputs.items()):
        path = input_path(record_path, entry)
        if not path.is_file():
            raise AuditError(f"input {role} {entry['path']!r} is missing", file=str(record_path))
        actual = sha256_file(path)
        if actual != entry["sha256"]:
            raise AuditError(f"input {role} {entry['path']!r} changed: sha256 {actual[:12]}..., "
                             f"recorded {entry['sha256'][:12]}...", file=str(record_path))
        paths[role] = path
    return paths


@dataclass
class Verification:
    """The outcome of replaying a record: identical or not, and each difference found."""

    record: str
    differences: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences

    def to_text(self) -> str:
        if self.identical:
            return f"{self.record}: verified, identical rolls, events and output"
        return "\n".join([f"{self.record}: NOT identical"] + [f"  {d}" for d in self.differences])


def compare(record: AuditRecord, again: AuditRecord) -> list[str]:
    """What differs between a recorded resolution and its replay, field by field."""
    differences = []
    for name in ("rolls", "events", "results", "refused"):
        if getattr(record, name) != getattr(again, name):
            differences.append(f"{name} differ: recorded {json.dumps(getattr(record, name))[:200]}, "
                               f"replayed {json.dumps(getattr(again, name))[:200]}")
    recorded = (record.output or {}).get("plaintext_sha256")
    replayed = (again.output or {}).get("plaintext_sha256")
    if recorded != replayed:
        differences.append(f"output plaintext sha256 differs: recorded {recorded}, replayed {replayed}")
    return differences


def verify(record_path: str | os.PathLike[str]) -> Verification:
    """Replay a record (inputs checked first) and compare the replay with what was recorded."""
    from converter.resolve import replay_record   # resolve imports this module: imported here
    record = AuditRecord.read(record_path)
    paths = check_inputs(record, record_path)
    again = replay_record(record, paths)
    result = Verification(str(record_path), compare(record, again))
    output = record.output or {}
    if output.get("path") and output.get("plaintext_sha256"):
        written = input_path(record_path, output)
        if not written.is_file():
            result.differences.append(f"output {output['path']!r} is missing")
        else:
            plaintext = read_container(written).plaintext
            if sha256_bytes(plaintext) != output["plaintext_sha256"]:
                result.differences.append(f"output {output['path']!r} was changed after it was written")
    return result


def rolls_of(answers: Iterable[Any]) -> list[dict[str, Any]]:
    """Every roll of a sequence of answers, in order, with the index of its action."""
    return [{"action": index, "label": label, "values": list(values)}
            for index, answer in enumerate(answers) for label, values in answer.rolls]


__all__ = ["AuditRecord", "AuditError", "Verification", "verify", "check_inputs", "compare", "describe_input",
           "event_record", "rolls_of", "sha256_file", "sha256_bytes", "FORMAT"]
