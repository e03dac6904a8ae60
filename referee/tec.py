"""The Terrain Effects Chart as data (``referee/data/*_tec.yaml``), with typed lookups.

The chart is data so that a module's terrain file or a second ruleset can supply its
own rows; the code only asks questions of it (DB for a target class, does it conceal,
how does it affect LOS, what does it cost to enter).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import yaml

from referee.errors import NotStated, RefereeError

DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class TerrainEffects:
    """One TEC row."""

    name: str
    db: Mapping[str, int] | None
    conceals: str
    los: str
    los_hill: str
    mp: Mapping[str, Any] | None
    source: str
    db_from_ground: int | None = None


@dataclass(frozen=True)
class Tec:
    rows: Mapping[str, TerrainEffects]
    markers: Mapping[str, TerrainEffects]

    def terrain(self, name: str | None) -> TerrainEffects:
        if name is None:
            raise NotStated("terrain")
        try:
            return self.rows[name]
        except KeyError:
            raise RefereeError(f"terrain {name!r} is not on the Terrain Effects Chart") from None

    def marker(self, name: str) -> TerrainEffects | None:
        return self.markers.get(name)


def _row(name: str, raw: Mapping[str, Any]) -> TerrainEffects:
    return TerrainEffects(name=name, db=raw.get("db"), conceals=raw.get("conceals", "none"),
                          los=raw.get("los", "none"), los_hill=raw.get("los_hill", "none"),
                          mp=raw.get("mp"), source=str(raw.get("source", "")),
                          db_from_ground=raw.get("db_from_ground"))


@lru_cache(maxsize=None)
def load_tec(name: str) -> Tec:
    """Load ``referee/data/<name>_tec.yaml``."""
    path = DATA / f"{name}_tec.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return Tec(rows={k: _row(k, v) for k, v in raw["rows"].items()},
               markers={k: _row(k, v) for k, v in raw.get("markers", {}).items()})
