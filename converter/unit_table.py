"""Unit tables: what each counter prints, by the key a module profile derives from its piece.

A table is YAML (``schemas/unit-table.schema.json``) with a citation for every value, or
a module's own CSV counter list read as the profile's ``unit_table`` section says (The
Longest Day's ``faces.csv``: key column ``fid``, factors ``o,d,m,s,r``). Both become
:class:`TableEntry` values holding a :class:`~referee.model.UnitType` plus what the
model has no field for (the printed factors of other games, the sources).
"""
from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from converter.errors import SchemaError
from converter.schema import load_document, read_text, validate
from referee.model import AssaultValue, UnitType, Weapon

#: Largest CSV table read (rows).
MAX_CSV_ROWS = 100_000


@dataclass(frozen=True)
class TableEntry:
    """One counter of the table: the model's UnitType and the rest of what the row says."""

    key: str
    type: UnitType
    side: str | None = None
    nation: str | None = None
    formation: str | None = None
    factors: Mapping[str, Any] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    #: What an HQ (or leader) counter prints about its Formation: the Formation's morale
    #: ("as shown on the Formation's HQ", TUS §4.2, §1.6), its leadership (§1.3.3.4) and its
    #: command range on each side (full, reduced; §1.3.3). Units carry them into the model.
    command: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class UnitTable:
    name: str
    entries: dict[str, TableEntry]
    file: str | None = None

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def get(self, key: str) -> TableEntry | None:
        return self.entries.get(key)


def _weapon(raw: Mapping[str, Any] | None) -> Weapon | None:
    if raw is None:
        return None
    return Weapon(raw.get("fp"), raw.get("to_hit"), raw.get("range"), raw.get("underlined"), raw.get("colour"))


def _printed(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The values one side of a counter prints (:data:`~referee.model.SIDE_VALUES`)."""
    assault = raw.get("assault")
    return dict(ap=_weapon(raw.get("ap")), he=_weapon(raw.get("he")), aa=_weapon(raw.get("aa")),
                assault=None if assault is None else AssaultValue(assault.get("fp"), assault.get("to_hit"),
                                                                  bool(assault.get("augmented", False))),
                armor=raw.get("armor"), save=raw.get("save"), mp=raw.get("mp"))


def unit_type(raw: Mapping[str, Any]) -> UnitType:
    """A UnitType from a table entry: the full-strength side, and the ``reduced`` side's values.

    A counter of two or more steps whose reduced side the table does not give has a
    reduced side with no values stated, so a Reduced unit never fights with the values
    of its full-strength side."""
    front = UnitType(
        name=raw.get("name"), target_type=raw.get("target_type"), steps=raw.get("steps"),
        movement_type=raw.get("movement_type"), abilities=frozenset(raw.get("abilities") or ()),
        arty_type=raw.get("arty_type"), caliber_mm=raw.get("caliber_mm"), cost=raw.get("cost"),
        printed=True, **_printed(raw))
    if "reduced" in raw:
        return replace(front, reduced=front.reduced_side(**_printed(raw["reduced"])))
    if (front.steps or 1) >= 2:
        return replace(front, reduced=front.reduced_side())
    return front


#: The HQ and leader values a table row may give (see :attr:`TableEntry.command`).
COMMAND_VALUES = ("morale", "leadership", "command_range")


def table_from_document(data: Mapping[str, Any], *, file: str | None = None) -> UnitTable:
    validate(data, "unit_table", file=file)
    entries = {}
    for key, raw in data["units"].items():
        entries[key] = TableEntry(key, unit_type(raw), raw.get("side"), raw.get("nation"), raw.get("formation"),
                                  dict(raw.get("factors") or {}), dict(raw["sources"]),
                                  {name: raw[name] for name in COMMAND_VALUES if name in raw})
    return UnitTable(data["table"], entries, file)


def _csv_headers(header: list[str]) -> list[str]:
    """Column names, with '#2', '#3'... appended to repeated ones (faces.csv repeats o,d,m,s,r)."""
    seen: dict[str, int] = {}
    names = []
    for name in header:
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return names


def _number(value: str) -> int | str | None:
    value = value.strip()
    if value == "":
        return None
    try:
        return int(value)
    except ValueError:
        return value


def _csv_mp(row: Mapping[str, str], column: str | None) -> int | None:
    mp = _number(row[column]) if column is not None else None
    return mp if isinstance(mp, int) else None


def _csv_type(row: Mapping[str, str], spec: Mapping[str, Any], name: str) -> UnitType:
    """The row's UnitType; its reduced side when the spec's ``reduced.when`` column is filled
    (The Longest Day: a back-face image ``bid``, whose factors are ``o#2,d#2,m#2,s#2,r#2``)."""
    front = UnitType(name=name, mp=_csv_mp(row, spec.get("mp")))
    reduced = spec.get("reduced")
    if reduced is None or not row[reduced["when"]].strip():
        return front
    return replace(front, reduced=front.reduced_side(mp=_csv_mp(row, reduced.get("mp"))))


def table_from_csv(text: str, spec: Mapping[str, Any], *, file: str | None = None) -> UnitTable:
    """A table from CSV rows, read through the profile's ``unit_table`` spec."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = _csv_headers(next(reader))
    except StopIteration:
        raise SchemaError("the CSV unit table is empty", file=file) from None
    except csv.Error as error:
        raise SchemaError(f"not valid CSV: {error}", file=file, position=0) from None
    needed = [spec["key"], *spec["name"], *spec.get("factors", ())]
    needed += [spec[k] for k in ("nation", "formation", "mp") if k in spec]
    if "side" in spec:
        needed.append(spec["side"]["column"])
    if "reduced" in spec:
        needed += [spec["reduced"][k] for k in ("when", "mp") if k in spec["reduced"]]
    missing = [c for c in needed if c not in header]
    if missing:
        raise SchemaError(f"the CSV has no column(s) {missing} (columns: {header})",
                          path="unit_table", file=file)
    entries: dict[str, TableEntry] = {}
    source = spec.get("source", os.path.basename(file or "table"))
    try:
        for line, values in enumerate(reader, start=2):
            if line > MAX_CSV_ROWS:
                raise SchemaError(f"more than {MAX_CSV_ROWS} rows", file=file)
            row = dict(zip(header, values + [""] * (len(header) - len(values))))
            key = row[spec["key"]].strip()
            if not key:
                continue
            if key in entries:
                raise SchemaError(f"key {key!r} appears twice (row {line})", path=f"rows[{line}]", file=file)
            name = " ".join(row[c].strip() for c in spec["name"] if row[c].strip())
            side = None
            if "side" in spec:
                raw_side = row[spec["side"]["column"]].strip()
                side = spec["side"].get("map", {}).get(raw_side, raw_side) or None
            factors = {c: _number(row[c]) for c in spec.get("factors", ())}
            entries[key] = TableEntry(
                key, _csv_type(row, spec, name or key), side,
                (row[spec["nation"]].strip() or None) if "nation" in spec else None,
                (row[spec["formation"]].strip() or None) if "formation" in spec else None,
                factors, {"other": f"{source} row {line}"})
    except csv.Error as error:
        raise SchemaError(f"not valid CSV: {error}", file=file) from None
    return UnitTable(os.path.basename(file or "table"), entries, file)


def read_unit_table(path: str | os.PathLike[str], csv_spec: Mapping[str, Any] | None = None) -> UnitTable:
    """Read a YAML/JSON unit table, or a CSV one when the profile says how (``csv_spec``)."""
    file = str(path)
    if file.lower().endswith(".csv"):
        if csv_spec is None:
            raise SchemaError("a CSV unit table needs a profile with a unit_table section", file=file)
        return table_from_csv(read_text(path), csv_spec, file=file)
    return table_from_document(load_document(path, "unit_table"), file=file)


__all__ = ["TableEntry", "UnitTable", "read_unit_table", "table_from_csv", "table_from_document", "unit_type"]
