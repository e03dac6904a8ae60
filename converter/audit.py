"""Audit records: everything needed to replay a resolution and get the identical result.

``wawkit resolve`` writes one JSON record beside its output, in the same step as the
output itself (both or neither): every input file with the sha256 of the bytes the
command read (a save resolved ``--in-place`` also names its backup, where those bytes
still are), the actions as given, the ruleset, the dice (the seed, or the values
given), every roll with its label, the events, the report, the sha256 of the written
file and of the corrected save's plaintext (the obfuscation key of a save is random,
its plaintext is not). ``wawkit verify`` reads the record, finds each input by its
hash, resolves again and compares roll for roll, event for event, the report line for
line, and the output file: its sha256, its plaintext, and every other zip entry.

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

from converter.documents import parse_json
from converter.errors import SchemaError, WawkitError
from converter.files import digest_of_read, read_bounded, sha256_of
from converter.schema import MAX_DOCUMENT_SIZE, ZIP_MAGIC
from converter.vassal.container import read_container, write_atomic

FORMAT = "wawkit-audit/1"


class AuditError(WawkitError):
    """An audit record that cannot be read, or whose inputs are missing or changed."""


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The sha256 of a regular file (devices and pipes refused), read in blocks."""
    return sha256_of(path, error=AuditError)


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
        """Read a record through the bounded reader and the hardened JSON loader (it is untrusted)."""
        name = str(path)
        raw = read_bounded(path, MAX_DOCUMENT_SIZE, error=AuditError, too_large=AuditError).data
        if raw.startswith(ZIP_MAGIC):
            raise AuditError("is a zip archive (a VASSAL save or module), not an audit record (.audit.json)",
                             file=name)
        try:
            data = parse_json(raw.decode("utf-8"), file=name)
        except SchemaError as error:
            raise AuditError(error.message, file=name, position=error.position) from None
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
                and isinstance(entry.get("sha256"), str) and isinstance(entry.get("backup", ""), str)):
            raise SchemaError("must be {path: string, sha256: string}", path=f"/inputs/{role}", file=file)
    output = data.get("output")
    if isinstance(output, dict) and not all(isinstance(output.get(k, ""), str)
                                            for k in ("path", "sha256", "plaintext_sha256")):
        raise SchemaError("must be {path: string, sha256: string, plaintext_sha256: string}", path="/output",
                          file=file)
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


def describe_input(path: str | os.PathLike[str], base: str | os.PathLike[str],
                   sha256: str | None = None) -> dict[str, str]:
    """A file as an audit input: its path relative to ``base`` (the record's folder) and the sha256
    of the bytes the command read (given, or those the bounded reader last read, or the file's)."""
    digest = sha256 or digest_of_read(path) or sha256_file(path)
    return {"path": relative_to(path, base), "sha256": digest}


def relative_to(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> str:
    """``path`` relative to the record's folder ``base`` (records and inputs move together)."""
    return os.path.relpath(os.path.abspath(path), os.path.abspath(base))


def input_path(record_path: str | os.PathLike[str], entry: Mapping[str, str], key: str = "path") -> Path:
    """Where an input of a record is, relative to the record's folder."""
    return Path(os.path.abspath(record_path)).parent / entry[key]


def check_inputs(record: AuditRecord, record_path: str | os.PathLike[str]) -> dict[str, Path]:
    """Every input's path, after checking it holds the bytes recorded (by sha256).

    A save resolved ``--in-place`` now holds the output; the bytes read are in its backup,
    which the record names, and are found there.
    """
    paths = {}
    for role, entry in sorted(record.inputs.items()):
        candidates = [input_path(record_path, entry)]
        if entry.get("backup"):
            candidates.append(input_path(record_path, entry, "backup"))
        found = None
        seen = []
        for path, label in zip(candidates, ("", "its backup ")):
            if path.is_file():
                actual = sha256_file(path)
                if actual == entry["sha256"]:
                    found = path
                    break
                seen.append(f"{label}sha256 {actual[:12]}...")
        if found is None:
            where = f"{entry['path']!r}" + (f" (or its backup {entry['backup']!r})" if entry.get("backup") else "")
            if not seen:
                raise AuditError(f"input {role} {where} is missing", file=str(record_path))
            raise AuditError(f"input {role} {where} changed: {', '.join(seen)}, recorded "
                             f"{entry['sha256'][:12]}...", file=str(record_path))
        paths[role] = found
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
    """What differs between a recorded resolution and its replay: rolls, events, results,
    refusal, the report text and the output plaintext."""
    differences = []
    for name in ("rolls", "events", "results", "refused"):
        if getattr(record, name) != getattr(again, name):
            differences.append(f"{name} differ: recorded {json.dumps(getattr(record, name))[:200]}, "
                               f"replayed {json.dumps(getattr(again, name))[:200]}")
    if record.report != again.report:
        differences.append(f"report differs: {_first_difference(record.report, again.report)}")
    recorded = (record.output or {}).get("plaintext_sha256")
    replayed = (again.output or {}).get("plaintext_sha256")
    if recorded != replayed:
        differences.append(f"output plaintext sha256 differs: recorded {recorded}, replayed {replayed}")
    return differences


def _first_difference(recorded: str, replayed: str) -> str:
    """The first line where two reports part, as ``line N: recorded '...', replayed '...'``."""
    ours, theirs = recorded.splitlines(), replayed.splitlines()
    for number, (a, b) in enumerate(zip(ours, theirs), start=1):
        if a != b:
            return f"line {number}: recorded {a[:120]!r}, replayed {b[:120]!r}"
    number = min(len(ours), len(theirs)) + 1
    extra = (ours if len(ours) > len(theirs) else theirs)[number - 1]
    side = "recorded" if len(ours) > len(theirs) else "replayed"
    return f"line {number}: only the {side} report has {extra[:120]!r}"


def check_output(record: AuditRecord, record_path: str | os.PathLike[str], replayed: Any) -> list[str]:
    """What differs between the output file and what the record and the replay vouch for:
    the file's sha256, its plaintext, and every other entry of its container (names,
    order and bytes must be those of the replayed save: nothing added, removed or changed)."""
    output = record.output or {}
    if record.refused is not None:
        return []
    if not output.get("path"):
        return ["the record names no output file"]
    written = input_path(record_path, output)
    if not written.is_file():
        return [f"output {output['path']!r} is missing"]
    problems = []
    actual = sha256_file(written)
    if actual != output.get("sha256"):
        problems.append(f"output {output['path']!r} was changed after it was written (sha256 {actual[:12]}..., "
                        f"recorded {str(output.get('sha256'))[:12]}...)")
    try:
        container = read_container(written)
    except WawkitError as error:
        return problems + [f"output {output['path']!r} cannot be read: {error.message}"]
    if not problems and sha256_bytes(container.plaintext) != output.get("plaintext_sha256"):
        problems.append(f"output {output['path']!r} does not hold the plaintext the record vouches for")
    if replayed is not None:
        ours = [(e.name, e.data) for e in container.entries if e.name != "savedGame"]
        theirs = [(e.name, e.data) for e in replayed.container.entries if e.name != "savedGame"]
        names = [e.name for e in container.entries]
        if names != [e.name for e in replayed.container.entries] or ours != theirs:
            problems.append(f"output {output['path']!r} holds entries {names}, not those of the replayed save "
                            f"{[e.name for e in replayed.container.entries]} with their bytes")
    return problems


def verify(record_path: str | os.PathLike[str]) -> Verification:
    """Replay a record (inputs found by their sha256 first) and compare the replay and the output
    file with what was recorded."""
    from converter.resolve import replay   # resolve imports this module: imported here
    record = AuditRecord.read(record_path)
    paths = check_inputs(record, record_path)
    again = replay(record, paths)
    result = Verification(str(record_path), compare(record, again.record))
    result.differences.extend(check_output(record, record_path, again.save))
    return result


def rolls_of(answers: Iterable[Any]) -> list[dict[str, Any]]:
    """Every roll of a sequence of answers, in order, with the index of its action."""
    return [{"action": index, "label": label, "values": list(values)}
            for index, answer in enumerate(answers) for label, values in answer.rolls]


__all__ = ["AuditRecord", "AuditError", "Verification", "verify", "check_inputs", "check_output", "compare",
           "describe_input", "relative_to",
           "event_record", "rolls_of", "sha256_file", "sha256_bytes", "FORMAT"]
