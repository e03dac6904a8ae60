"""``wawkit validate``: is a save (or log) sound, and is its position legal?

Three independent passes, each returning :class:`~converter.report.Finding` lists:

* :func:`soundness` reads only the file and the module: stack members missing or
  doubled, duplicate ids, pieces off every board or on maps the module lacks,
  unknown traits, a module name or version that differs, and pieces whose
  definition no longer matches the module's PieceSlot.
* :func:`legality` asks the referee about a position (a :class:`referee.model.Game`):
  stacking and HQs (§1.4, §1.3.3), terrain a unit may not be in (TEC), and markers or
  sides that contradict the unit (Ammo Depleted on a unit without missiles, §6.1.4; a
  reduced side on a one-step counter). A rule the referee does not implement, or a fact
  the files do not state, is a finding of its own ("not supported"), never silently legal.
* :func:`log_findings` replays a log's steps and checks each unit move against the
  referee (cost of the route against the Movement Factor, Ops Complete, Disrupted,
  stacking on arrival), naming the step.

:func:`validate_path` puts them together for one file and :func:`validate_folder`
runs a folder on all cores with stable output order.
"""
from __future__ import annotations

import heapq
import os
import re
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from converter.errors import GeometryError, WawkitError
from converter.profile import read_profile
from converter.report import Finding, Report, unreadable
from converter.resolve import position_reader
from converter.vassal.commands import AddPiece, ChangePiece, Check, EndSave, MovePiece, RemovePiece
from converter.vassal.container import Container, Entry
from converter.vassal.grids.placement import MapGeometry, parse_board_picker
from converter.vassal.log import Replay
from converter.vassal.module import MapDef, Module, PieceSlot
from converter.vassal.save import SavedGame
from converter.vassal.sequence import ESC, join
from referee.actions import make_action
from referee.errors import RefereeError
from referee.model import Game, Unit
from referee.ruleset import Ruleset

SAVE_SUFFIXES = (".vsav", ".sav", ".vlog", ".log")
_SAVED_WITH = re.compile(r"Game saved using (.+) version (.*?)\.?$")


# -- soundness ---------------------------------------------------------------------------

def soundness(save: SavedGame, module: Module | None,
              board_aliases: Mapping[str, tuple[str, int, int]] | None = None) -> list[Finding]:
    """Every format-level problem of a save, with the module when one is given.

    ``board_aliases`` (from a profile) names boards of older module versions and where
    they lie on a board of this one; a save laying them out is noted, not an error.
    """
    found = list(_ids_and_stacks(save))
    for piece_id, entry in save.pieces.items():
        if entry.is_stack or entry.is_deck:
            continue
        unknown = [t.id_prefix for t in entry.piece.unknown_traits()]
        if unknown:
            found.append(Finding("info", "unknown-trait",
                                 f"trait(s) {', '.join(sorted(set(unknown)))} not known to wawkit (kept as is)",
                                 piece=piece_id, name=entry.piece.name))
    if module is not None:
        found.extend(_module_identity(save, module))
        found.extend(_placement(save, module, board_aliases or {}))
        found.extend(_definitions(save, module))
    return found


def _ids_and_stacks(save: SavedGame) -> Iterator[Finding]:
    ids = Counter(c.id for c in save._state_commands() if isinstance(c, AddPiece) and c.id not in ("", "null"))
    for piece_id, times in sorted(ids.items()):
        if times > 1:
            yield Finding("error", "duplicate-id", f"{times} pieces share the id {piece_id}", piece=piece_id)
    holder_of: dict[str, str] = {}
    for holder_id, entry in save.pieces.items():
        if not (entry.is_stack or entry.is_deck):
            continue
        kind = "deck" if entry.is_deck else "stack"
        for member in entry.piece.inner.members:
            if member not in save.pieces:
                yield Finding("error", "member-missing", f"{kind} {holder_id} lists {member}, which is not in the save",
                              piece=member)
            elif member in holder_of:
                where = "twice in the same" if holder_of[member] == holder_id else f"also in {holder_of[member]} and"
                yield Finding("error", "member-doubled", f"listed {where} {kind} {holder_id}", piece=member,
                              name=_name(save, member))
            else:
                holder_of[member] = holder_id


def _name(save: SavedGame, piece_id: str) -> str | None:
    try:
        return save.piece(piece_id).name
    except WawkitError:
        return None


def _module_identity(save: SavedGame, module: Module) -> Iterator[Finding]:
    """Module name and version as the save states them (metadata, or the 2.x CHECK header)."""
    meta = save.container.metadata.get("moduledata")
    saved = save.container.metadata.get("savedata")
    name = (meta.name if meta is not None else None) or (saved.name if saved is not None else None)
    version = (saved.version if saved is not None else None) or (meta.version if meta is not None else None)
    for command in save._state_commands():
        if isinstance(command, Check):
            match = _SAVED_WITH.search(command.text)
            if match and not match.group(1).startswith("VASSAL"):
                name, version = match.group(1), match.group(2)
    if name is not None and name != module.name:
        yield Finding("warning", "module-name", f"saved with module {name!r}, checking against {module.name!r}")
    if version is not None and version != module.version:
        yield Finding("warning", "module-version", f"saved with module version {version!r}, "
                                                   f"checking against {module.version!r}")


def map_def(module: Module, map_id: str) -> MapDef | None:
    """The module's map whose id (as pieces and BoardPickers name it) or name is ``map_id``."""
    return next((m for m in module.maps if map_id in (m.id, m.name)), None)


def top_positions(save: SavedGame) -> dict[str, tuple[str | None, int, int]]:
    """Where each stack, deck and unstacked piece lies (a stacked piece is where its stack is)."""
    return {pid: save.position(pid) for pid in save.pieces if save.stack_of(pid) is None}


def geometries(save: SavedGame, module: Module, board_aliases: Mapping[str, tuple[str, int, int]] | None = None,
               positions: Mapping[str, tuple[str | None, int, int]] | None = None
               ) -> tuple[dict[str, MapGeometry], list[Finding]]:
    """Each map's board layout as the save's BoardPickers give it (else the module's default)."""
    positions = top_positions(save) if positions is None else positions
    found: list[Finding] = []
    result: dict[str, MapGeometry] = {}
    layouts = {}
    for picker in save.board_pickers:
        try:
            map_id, layout = parse_board_picker(picker.encode())
        except GeometryError as error:
            found.append(Finding("error", "board-picker", error.message))
            continue
        layouts[map_id] = layout
    used = {map_id for map_id, _x, _y in positions.values() if map_id}
    for map_id in sorted(set(layouts) | used):
        definition = map_def(module, map_id)
        if definition is None:
            continue
        known = {board.name for board in definition.boards}
        strange = sorted({placed.name for placed in layouts.get(map_id, ()) if placed.name not in known})
        aliased = [name for name in strange if name in (board_aliases or {})]
        for name in aliased:
            board, x, y = (board_aliases or {})[name]
            found.append(Finding("info", "board-alias", f"map {map_id!r} lays out board {name!r}, which the profile "
                                 f"places on board {board!r} at ({x}, {y}); placement not checked"))
        strange = [name for name in strange if name not in aliased]
        if aliased and not strange:
            continue
        if strange:
            found.append(Finding("error", "unknown-board", f"map {map_id!r} lays out board(s) "
                                 f"{', '.join(strange)}; the module has {', '.join(sorted(known)) or 'none'}"))
            continue
        try:
            result[map_id] = definition.geometry(layouts.get(map_id) or None)
        except GeometryError as error:
            found.append(Finding("info", "placement-unchecked", f"map {map_id!r}: {error.message}"))
    return result, found


def _placement(save: SavedGame, module: Module, board_aliases: Mapping[str, tuple[str, int, int]]
               ) -> Iterator[Finding]:
    """Pieces on maps the module lacks, or on a known map but off every board."""
    positions = top_positions(save)
    maps, problems = geometries(save, module, board_aliases, positions)
    yield from problems
    missing_maps: Counter[str] = Counter()
    for piece_id, (map_id, x, y) in positions.items():
        entry = save.pieces[piece_id]
        if map_id is None:
            continue
        if map_def(module, map_id) is None:
            missing_maps[map_id] += 1
            continue
        geometry = maps.get(map_id)
        if geometry is not None and geometry.board_at(x, y) is None:
            members = entry.piece.inner.members if entry.is_stack else [piece_id]
            for member in members:
                yield Finding("warning", "off-board", f"at ({x}, {y}) on map {map_id!r}, off every board",
                              piece=member, name=_name(save, member))
    for map_id, count in sorted(missing_maps.items()):
        yield Finding("error", "unknown-map", f"{count} piece(s) or stack(s) on map {map_id!r}, "
                                              f"which the module does not have")


def slot_index(module: Module) -> tuple[dict[str, PieceSlot], dict[str, list[PieceSlot]]]:
    """The module's PieceSlots and CardSlots by gpid and by piece name (several may share a name)."""
    by_gpid: dict[str, PieceSlot] = {}
    by_name: dict[str, list[PieceSlot]] = {}
    for slot in [*module.piece_slots, *module.card_slots]:
        if slot.gpid:
            by_gpid.setdefault(slot.gpid, slot)
        try:
            name = slot.piece().basic_name
        except WawkitError:
            continue
        by_name.setdefault(name, []).append(slot)
    return by_gpid, by_name


def match_slot(piece: Any, by_gpid: dict[str, PieceSlot], by_name: dict[str, list[PieceSlot]]) -> \
        tuple[PieceSlot | None, str]:
    """The PieceSlot a piece came from: by gpid, else by its (unique) name; and how it matched."""
    gpid = getattr(piece.inner, "gpid", "") or ""
    if gpid and gpid in by_gpid:
        return by_gpid[gpid], "gpid"
    same_name = by_name.get(piece.basic_name, [])
    if len(same_name) == 1:
        return same_name[0], "name"
    if same_name:
        same_type = [s for s in same_name if s.type_text == piece.type_text()]
        if same_type:
            return same_type[0], "name"
        return None, "ambiguous"
    return None, "none"


def same_definition(piece: Any, slot: PieceSlot, module: Module, expanded: dict[int, str | None] | None = None
                    ) -> bool:
    """Whether a piece's type is its slot's, as written or with prototypes expanded (3.x saves).

    ``expanded`` caches each slot's expanded type across the pieces of one save.
    """
    type_text = piece.type_text()
    if slot.type_text == type_text:
        return True
    cache = {} if expanded is None else expanded
    if id(slot) not in cache:
        try:
            cache[id(slot)] = module.expand(slot.piece()).type_text()
        except WawkitError:
            cache[id(slot)] = None
    return cache[id(slot)] == type_text


def _definitions(save: SavedGame, module: Module) -> Iterator[Finding]:
    """Pieces whose type differs from the PieceSlot they came from (the module changed since)."""
    by_gpid, by_name = slot_index(module)
    expanded: dict[int, str | None] = {}
    for piece_id, entry in save.pieces.items():
        if entry.is_stack or entry.is_deck:
            continue
        piece = entry.piece
        slot, how = match_slot(piece, by_gpid, by_name)
        if slot is None:
            if how == "none":
                yield Finding("warning", "no-piece-slot", "no PieceSlot of the module has this gpid or name",
                              piece=piece_id, name=piece.name)
            continue
        if not same_definition(piece, slot, module, expanded):
            yield Finding("warning", "definition-changed",
                          f"differs from PieceSlot {slot.name!r} (matched by {how})", piece=piece_id, name=piece.name)


# -- legality (the referee) --------------------------------------------------------------------

def legality(game: Game, ruleset: Ruleset, piece_of: dict[str, str] | None = None) -> list[Finding]:
    """Position legality as the referee answers it, one finding per broken or unanswerable rule."""
    piece_of = piece_of or {}
    found: list[Finding] = []
    occupied = sorted({u.hex for u in game.units.values() if u.on_map and u.hex and _is_hex(game, u.hex)})
    for hex_id in occupied:
        answer = ruleset.check(game, make_action("stacking", target=hex_id))
        stack = game.stack(hex_id)
        who = {"piece": ", ".join(piece_of[u.key] for u in stack if u.key in piece_of) or None,
               "name": ", ".join(u.name for u in stack)}
        found.extend(replace(f, **who) for f in _answer_findings(answer, hex_id=hex_id, code="stacking"))
    for unit in sorted(game.units.values(), key=lambda u: u.key):
        if not unit.on_map:
            continue
        found.extend(_unit_findings(game, ruleset, unit, piece_of.get(unit.key)))
    return found


def _is_hex(game: Game, location: str) -> bool:
    """Whether a unit's location is a hex of the board (not a zone or display box): when the
    import placed hexes on the grid (``at``), a location without a place is not a hex."""
    placed = any(h.at is not None for h in game.hexes.values())
    return not placed or (location in game.hexes and game.hexes[location].at is not None)


def _answer_findings(answer: Any, *, code: str, hex_id: str | None = None, unit: Unit | None = None,
                     piece: str | None = None, step: int | None = None) -> list[Finding]:
    """An Answer as findings: each reason of an illegal answer; each gap as not supported."""
    name = unit.name if unit else None
    where = {"piece": piece, "name": name, "hex": hex_id or (unit.hex if unit else None), "step": step}
    found = []
    if answer.legal is False:
        for reason in answer.reasons:
            found.append(Finding("error", code, reason.text, section=reason.section, **where))
    for field_name, why in sorted(answer.gaps.items()):
        found.append(Finding("unsupported", code, f"{field_name}: {why}", **where))
    return found


def _unit_findings(game: Game, ruleset: Ruleset, unit: Unit, piece: str | None) -> list[Finding]:
    """Markers or sides that contradict the unit, and terrain the unit may not be in."""
    where = {"piece": piece, "name": unit.name, "hex": unit.hex}
    found = []
    if unit.strength == "reduced" and unit.type.steps == 1:
        found.append(Finding("error", "markers", "shows a reduced side, but the counter has one step", **where))
    if unit.status.ammo != "none":
        found.extend(_ammo_findings(unit, where))
    if unit.hex is not None:
        hex_state = game.hex(unit.hex)
        if hex_state.terrain is not None:
            try:
                row = ruleset.tec.terrain(hex_state.terrain)
            except (KeyError, ValueError) as error:
                found.append(Finding("unsupported", "terrain", f"terrain {hex_state.terrain!r}: {error}", **where))
            else:
                mover = "vehicle" if unit.type.is_vehicle else "infantry"
                if (row.mp or {}).get(mover) == "none" and "amphibious" not in unit.type.abilities \
                        and unit.type.target_type != "helicopter":
                    found.append(Finding("error", "terrain", f"{mover} units may not be in {row.name}",
                                         section="TEC", **where))
    return found


def _ammo_findings(unit: Unit, where: Mapping[str, Any]) -> list[Finding]:
    """§6.1.4: Ammo Depleted markers go only on missile-firing units (a missile ability, or a
    weapon whose range is underlined)."""
    weapons = [w for w in (unit.type.ap, unit.type.he, unit.type.aa) if w is not None]
    if "missile" in unit.type.abilities or any(w.underlined for w in weapons):
        return []
    if any(w.underlined is None for w in weapons):
        return [Finding("unsupported", "markers", "Ammo Depleted marker: whether the unit fires missiles is "
                        "not stated (underlined range)", section="§6.1.4", **where)]
    return [Finding("error", "markers", "Ammo Depleted marker on a unit that fires no missiles", section="§6.1.4",
                    **where)]


# -- logs -----------------------------------------------------------------------------

def snapshot(replay: Replay, template: SavedGame, only: set[str] | None = None) -> SavedGame:
    """The replay's current position (or only the pieces ``only`` names) as a save of its own,
    with the template's boards, global properties and metadata."""
    texts = [c.text for c in template._state_commands() if not isinstance(c, (AddPiece, EndSave))]
    chosen = [pid for pid in replay.pieces if only is None or pid in only]
    holders = {pid for pid in chosen if _is_holder(replay.pieces[pid][0])}
    order = [pid for pid in chosen if pid not in holders] + [pid for pid in chosen if pid in holders]
    texts += [AddPiece.of(pid, *replay.pieces[pid], template.quoting).text for pid in order]
    texts.append("end_save")
    plaintext = (join(texts, ESC, template.quoting) or "").encode("utf-8", "surrogateescape")
    container = Container([Entry("savedGame", b"")], plaintext, template.container.obfuscation,
                          template.container.metadata, template.path)
    return SavedGame(container)


def _is_holder(type_text: str) -> bool:
    return type_text == "stack" or type_text.startswith("deck;")


class RouteUnknown(Exception):
    """The map does not say enough to price a route (hex positions or terrain costs missing)."""


def cheapest_path(game: Game, ruleset: Ruleset, unit_key: str, goal: str, limit: int) -> tuple[int, list[str]] | None:
    """The cheapest route (MP, hexes entered) from the unit's hex to ``goal``, each step priced
    by the referee's own Move check; None when no route within ``limit`` MP reaches it.

    Raises :class:`RouteUnknown` when the hexes have no map positions, or when no route was
    found but some step could not be priced (the referee named a missing fact).
    """
    unit = game.unit(unit_key)
    here_state, goal_state = game.hexes.get(unit.hex or ""), game.hexes.get(goal)
    if here_state is None or goal_state is None or here_state.at is None or goal_state.at is None:
        raise RouteUnknown(f"the positions of {unit.hex} and {goal} on the map are not known")
    name_at = {h.at: name for name, h in game.hexes.items() if h.at is not None}
    start = unit.hex
    best = {start: 0}
    queue: list[tuple[int, str, list[str]]] = [(0, start, [])]
    free = unit.with_status(ops_complete=False, out_of_command=False, mp_spent=0)
    unpriced: str | None = None
    while queue:
        cost, here, path = heapq.heappop(queue)
        if here == goal:
            return cost, path
        if cost > best.get(here, limit + 1):
            continue
        mover = game.with_unit(replace(free, hex=here))
        for neighbour in game.hexes[here].at.neighbors():
            there = name_at.get(neighbour)
            if there is None:
                continue
            answer = ruleset.check(mover, make_action("move", unit=unit_key, path=(there,)))
            step = answer.values.get("cost")
            if not isinstance(step, int):
                if answer.gaps and unpriced is None:
                    unpriced = f"{here} -> {there}: {next(iter(answer.gaps.values()))}"
                continue
            total = cost + step
            if total <= limit + 1 and total < best.get(there, limit + 2):
                best[there] = total
                heapq.heappush(queue, (total, there, path + [there]))
    if unpriced is not None:
        raise RouteUnknown(f"a step could not be priced ({unpriced})")
    return None


@dataclass
class LogBinding:
    """How a log's position becomes referee units at each step: module, profile, ruleset."""

    read: Callable[[SavedGame], tuple[Game, dict[str, str], Ruleset, list[Finding]]]


def _touched(step: Any) -> set[str]:
    """Ids of the pieces a logged step adds, changes, moves or removes."""
    return {c.id for c in step.commands if isinstance(c, (AddPiece, ChangePiece, MovePiece, RemovePiece))}


def log_findings(save: SavedGame, binding: LogBinding) -> list[Finding]:
    """Replay every step; each unit that changes hex is checked as a Move by the referee: the
    cheapest route against its Movement Factor, Ops Complete, Out of Command; then stacking
    where it arrives; a Disrupted unit's route is judged hex by hex (§6.1.7).

    After each step only the stacks it touched are read again through the profile (their
    markers decide the units' status), so a long log costs little more than its steps.
    """
    replay = Replay(save)
    found: list[Finding] = []
    game, piece_of, ruleset, _ = binding.read(save)
    unit_of = {pid: key for key, pid in piece_of.items()}
    for step in list(replay.steps):
        touched = _touched(step)
        if not touched:
            continue
        holders = {replay.stack_of(pid) for pid in touched}
        replay.apply(step)
        holders |= {replay.stack_of(pid) for pid in touched}
        holders |= {pid for pid in touched if pid in replay.pieces and _is_holder(replay.pieces[pid][0])}
        scope = set(touched) | {h for h in holders if h is not None}
        scope |= {m for h in list(scope) for m in replay.members(h)}
        scope &= set(replay.pieces)
        part, part_pieces, _r, _u = binding.read(snapshot(replay, save, scope))
        after = game
        for part_key, pid in part_pieces.items():
            key = unit_of.get(pid)
            if key is not None and key in game.units:
                old = game.units[key]
                after = after.with_unit(replace(part.units[part_key], key=key, attached_to=old.attached_to,
                                                carried_by=old.carried_by))
        moved = {m.id for m in step.moves} | {member for m in step.moves for member in replay.members(m.id)}
        for key in sorted(unit_of[pid] for pid in moved if pid in unit_of):
            before, now = game.units.get(key), after.units.get(key)
            if before is None or now is None or not (before.on_map and now.on_map) or before.hex == now.hex \
                    or now.hex is None:
                continue
            moving = _move_findings(game, ruleset, before, now.hex, piece_of.get(key), step.index)
            found.extend(moving)
            if any("§1.4" in (f.section or "") for f in moving):
                continue                 # the Move check already judged stacking where it arrived
            landed = ruleset.check(after, make_action("stacking", target=now.hex))
            found.extend(f for f in _answer_findings(landed, code="stacking", hex_id=now.hex, step=step.index)
                         if f.severity == "error")
        game = after
    return found


def _move_findings(game: Game, ruleset: Ruleset, unit: Unit, goal: str, piece: str | None, step: int
                   ) -> list[Finding]:
    """One logged move judged by the referee along the cheapest route to where the unit went."""
    where = {"piece": piece, "name": unit.name, "hex": unit.hex, "step": step}
    limit = unit.current.mp if unit.current.mp is not None else 0
    try:
        route = cheapest_path(game, ruleset, unit.key, goal, limit + 12)
    except RouteUnknown as unknown:
        return [Finding("unsupported", "move", f"{unit.hex} -> {goal}: movement cost not checked: {unknown}",
                        section="§5.0", **where)]
    if route is None:
        return [Finding("error", "move", f"no route from {unit.hex} to {goal} that the unit may take",
                        section="§5.0", **where)]
    cost, path = route
    answer = ruleset.check(game, make_action("move", unit=unit.key, path=tuple(path)))
    route_text = f"{unit.hex} -> {goal} (cheapest route {' '.join(path)}, {cost} MP)"
    found = [replace(f, message=f"{route_text}: {f.message}")
             for f in _answer_findings(answer, code="move", unit=unit, piece=piece, step=step)]
    return found


# -- one file, a folder -----------------------------------------------------------------------

@dataclass(frozen=True)
class Options:
    """What a validation run needs besides the file: module, profile, terrain, ruleset."""

    module: str | None = None
    profile: str | None = None
    ruleset: str = "classic"
    units: str | None = None
    replay_log: bool = True


def validate_save(save: SavedGame, module: Module | None, *, file: str,
                  board_aliases: Mapping[str, tuple[str, int, int]] | None = None,
                  position: Callable[[SavedGame], tuple[Game, dict[str, str], Ruleset, list[Finding]]] | None = None,
                  replay_log: bool = True) -> Report:
    """All passes over one read save: soundness, then legality when a position reader is given."""
    report = Report(file, kind="log" if save.is_log else "save")
    report.facts["pieces"] = sum(1 for e in save.pieces.values() if not (e.is_stack or e.is_deck))
    report.facts["stacks"] = sum(1 for e in save.pieces.values() if e.is_stack)
    if save.is_log:
        report.facts["steps"] = len(save.log_steps)
    report.extend(soundness(save, module, board_aliases))
    if position is not None:
        game, piece_of, ruleset, unrecognised = position(save)
        report.facts["units"] = sum(1 for u in game.units.values() if u.on_map)
        report.extend(unrecognised)
        report.extend(legality(game, ruleset, piece_of))
        if save.is_log and replay_log:
            report.extend(log_findings(save, LogBinding(position)))
    return report


_MODULES: dict[str, Module] = {}


def _module(path: str | None) -> Module | None:
    if path is None:
        return None
    if path not in _MODULES:
        _MODULES[path] = Module.read(path)
    return _MODULES[path]


def validate_path(path: str | os.PathLike[str], options: Options) -> Report:
    """Validate one file; a file that cannot be read becomes an ``unreadable`` report."""
    name = str(path)
    try:
        save = SavedGame.read(path)
        module = _module(options.module)
        position = None
        aliases: Mapping[str, tuple[str, int, int]] = {}
        if options.profile is not None and module is not None:
            aliases = read_profile(options.profile).board_aliases
            position = position_reader(module, options.profile, options.ruleset, options.units)
        return validate_save(save, module, file=name, board_aliases=aliases, position=position,
                             replay_log=options.replay_log)
    except WawkitError as error:
        return unreadable(name, error.located(file=name))
    except RefereeError as error:       # the position could not be judged at all
        return unreadable(name, error)
    except OSError as error:
        return unreadable(name, error)


def saves_in(folder: str | os.PathLike[str]) -> list[Path]:
    """The saves and logs in a folder (not recursive), sorted by name for a stable order."""
    return sorted(p for p in Path(folder).iterdir() if p.is_file() and p.suffix.lower() in SAVE_SUFFIXES)


def validate_folder(folder: str | os.PathLike[str], options: Options, *, workers: int | None = None,
                    progress: Callable[[Report], None] | None = None) -> list[Report]:
    """Validate every save of a folder on all cores; reports come back in file-name order."""
    paths = saves_in(folder)
    if not paths:
        return []
    workers = workers or min(len(paths), os.cpu_count() or 1)
    if workers <= 1:
        reports = []
        for path in paths:
            reports.append(validate_path(path, options))
            if progress:
                progress(reports[-1])
        return reports
    with ProcessPoolExecutor(max_workers=workers) as pool:
        reports = []
        for report in pool.map(validate_path, paths, [options] * len(paths)):
            reports.append(report)
            if progress:
                progress(report)
    return reports


__all__ = ["soundness", "legality", "log_findings", "LogBinding", "Options", "validate_save", "validate_path",
           "validate_folder", "saves_in", "slot_index", "match_slot", "map_def", "geometries"]
