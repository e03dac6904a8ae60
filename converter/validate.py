"""``wawkit validate``: is a save (or log) sound, and is its position legal?

Three passes, each returning :class:`~converter.report.Finding` lists:

* :func:`soundness` reads only the file and the module: stack members missing or
  doubled, duplicate ids, pieces off every board or on maps the module lacks,
  unknown traits, a module name or version that differs, and pieces whose
  definition no longer matches the module's PieceSlot.
* :func:`legality` asks the referee about a position (:mod:`referee.position`):
  stacking and HQs (§1.4, §1.3.3), terrain a unit may not be in (TEC), and markers or
  sides that contradict the unit (§6.1.4). A rule the referee does not implement, or a
  fact the files do not state, is a finding of its own ("not supported"), never
  silently legal.
* :func:`replay_findings` replays a log in one pass: one position is kept and each
  step's commands are applied to it; each step is checked for soundness (pieces it
  names that are not there, moves onto maps the module lacks or off every board) and,
  under a ruleset, the referee is asked only about what the step changed: each unit
  that changed hex is judged as a Move along its cheapest route (:mod:`referee.routes`),
  then the hexes and units it touched. A problem is reported at the step it appears,
  once, not again while it stands.

The profile names the rules a module is judged by; a module of another game
(``rules: none``) gets soundness checks only, never World at War legality.
:func:`validate_path` puts the passes together for one file and :func:`validate_folder`
runs a folder (recognising saves and logs by their content) on all cores with stable
output order.
"""
from __future__ import annotations

import os
import re
import zipfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from converter.errors import GeometryError, WawkitError
from converter.importer import Imported, LogPosition, PositionReader, StepChange, read_inputs
from converter.profile import Profile
from converter.report import Finding, Report, unreadable
from converter.resolve import ruleset_named
from converter.vassal.commands import AddPiece, ChangePiece, Check, MovePiece, RemovePiece
from converter.vassal.grids.assigned import NOTE as ASSIGNED_NOTE
from converter.vassal.grids.assigned import unnumbered
from converter.vassal.grids.placement import MapGeometry, parse_board_picker
from converter.vassal.log import Replay, Step
from converter.vassal.module import MapDef, Module, PieceSlot
from converter.vassal.save import SavedGame
from referee.errors import RefereeError
from referee.model import Game, Unit
from referee.position import Problem, position_problems
from referee.routes import judge_move
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
            named = "" if slot.name == piece.basic_name else f" {slot.name!r}"
            yield Finding("warning", "definition-changed", f"differs from its PieceSlot{named} (matched by {how}): "
                          "the module changed since the save was made", piece=piece_id, name=piece.name)


# -- legality (the referee) --------------------------------------------------------------------

def problem_finding(problem: Problem, game: Game, piece_of: Mapping[str, str], step: int | None = None) -> Finding:
    """A referee Problem as a Finding: its units named by piece id and counter name."""
    units = [game.units[key] for key in problem.units if key in game.units]
    return Finding("error" if problem.legal is False else "unsupported", problem.rule, problem.text,
                   piece=", ".join(piece_of[u.key] for u in units if u.key in piece_of) or None,
                   name=", ".join(u.name for u in units) or None, hex=problem.hex, section=problem.section,
                   step=step, unit=", ".join(u.key for u in units) or None)


def with_units(findings: list[Finding], piece_of: Mapping[str, str]) -> list[Finding]:
    """Findings about pieces, each naming the unit key its piece was read as (``piece_of``:
    unit key -> piece id); a piece that is no unit (a stack, a marker) is left as it is."""
    key_of = {pid: key for key, pid in piece_of.items()}
    out = []
    for finding in findings:
        if finding.unit is None and finding.piece is not None:
            keys = [key_of[pid] for pid in finding.piece.split(", ") if pid in key_of]
            if keys:
                finding = replace(finding, unit=", ".join(keys))
        out.append(finding)
    return out


def legality(game: Game, ruleset: Ruleset, piece_of: Mapping[str, str] | None = None) -> list[Finding]:
    """Position legality as the referee answers it (:mod:`referee.position`), one finding per
    broken or unanswerable rule."""
    return [problem_finding(p, game, piece_of or {}) for p in position_problems(game, ruleset)]


# -- logs -----------------------------------------------------------------------------



@dataclass
class Judge:
    """How positions of a module are read and judged: the profile's reader, and the ruleset
    (None: a module of another game, judged for soundness only)."""

    reader: PositionReader
    ruleset: Ruleset | None
    rules: str = "none"


class _Standing:
    """The referee's problems standing in the position, so a problem is reported once, at the
    step it appears, and not again while it stands."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = set(problems)

    def update(self, found: list[Problem], hexes: set[str], units: set[str]) -> list[Problem]:
        """Replace the standing problems of ``hexes`` and ``units`` by ``found``; the new ones."""
        judged = {p for p in self.problems if (p.rule == "stacking" and p.hex in hexes)
                  or (p.rule != "stacking" and set(p.units) & units)}
        self.problems -= judged
        fresh = [p for p in found if p not in judged and p not in self.problems]
        self.problems.update(found)
        return fresh


class _StepSoundness:
    """Soundness of a log's steps: pieces a step names that are not there, moves onto maps the
    module lacks (one finding per map, naming its first step) or off every board."""

    def __init__(self, save: SavedGame, module: Module | None, maps: Mapping[str, MapGeometry]) -> None:
        self.module, self.maps = module, maps
        self.unknown_maps: dict[str, list[int]] = {}

    def before(self, replay: Replay, step: Step) -> Iterator[Finding]:
        for command in step.commands:
            if isinstance(command, (ChangePiece, MovePiece, RemovePiece)) and command.id not in replay.pieces:
                verb = {ChangePiece: "changes", MovePiece: "moves", RemovePiece: "removes"}[type(command)]
                yield Finding("warning", "missing-piece", f"{verb} a piece that is not in the position "
                              "(VASSAL ignores the command)", piece=command.id, step=step.index)

    def after(self, replay: Replay, step: Step) -> Iterator[Finding]:
        if self.module is None:
            return
        for move in step.moves:
            if move.id not in replay.pieces or move.new_map is None:
                continue
            if map_def(self.module, move.new_map) is None:
                self.unknown_maps.setdefault(move.new_map, []).append(step.index)
                continue
            geometry = self.maps.get(move.new_map)
            if geometry is not None and geometry.board_at(move.new_x, move.new_y) is None:
                members = replay.members(move.id) or [move.id]
                for member in members:
                    yield Finding("warning", "off-board", f"moved to ({move.new_x}, {move.new_y}) on map "
                                  f"{move.new_map!r}, off every board", piece=member, step=step.index,
                                  name=_replay_name(replay, member))

    def closing(self) -> Iterator[Finding]:
        for map_id, steps in sorted(self.unknown_maps.items()):
            shown = ", ".join(map(str, steps[:10])) + (f" and {len(steps) - 10} more" if len(steps) > 10 else "")
            yield Finding("error", "unknown-map", f"{len(steps)} move(s) onto map {map_id!r}, which the module does "
                          f"not have (steps {shown})", step=steps[0])


def _replay_name(replay: Replay, piece_id: str) -> str | None:
    try:
        return replay.piece(piece_id).name
    except WawkitError:
        return None


def replay_findings(save: SavedGame, module: Module | None, judge: Judge | None,
                    maps: Mapping[str, MapGeometry] | None = None,
                    progress: Callable[[int, int], None] | None = None, log: LogPosition | None = None
                    ) -> list[Finding]:
    """Replay a log in one pass and judge each step (see the module docstring).

    Without a judge, or with a module of another game, steps are checked for soundness
    (and pieces a step adds that the profile does not recognise are noted); under a
    ruleset, every unit that changes hex is judged as a Move along its cheapest route,
    then stacking where units arrived and the markers of the units the step changed.
    ``log`` is the log's position at its start, when the caller has read it already.
    """
    found: list[Finding] = []
    sound = _StepSoundness(save, module, maps or {})
    ruleset = judge.ruleset if judge is not None else None
    if log is None and judge is not None and ruleset is not None:
        log = judge.reader.log(save)
    replay = log.replay if log is not None else Replay(save)
    standing = _Standing(position_problems(log.game, ruleset) if log is not None and ruleset is not None else [])
    total = len(replay.steps)
    for done, step in enumerate(list(replay.steps), start=1):
        found.extend(sound.before(replay, step))
        if log is None:
            replay.apply(step)
            if judge is not None:
                found.extend(_added_unknown(judge.reader, replay, step))
        else:
            assert ruleset is not None
            found.extend(_judged_step(log.apply(step), ruleset, log, standing, step.index))
        found.extend(sound.after(replay, step))
        if progress is not None:
            progress(done, total)
    found.extend(sound.closing())
    return found


def _added_unknown(reader: PositionReader, replay: Replay, step: Step) -> Iterator[Finding]:
    """Pieces a step adds that the profile does not recognise (a counter of another module?)."""
    for command in step.commands:
        if isinstance(command, AddPiece) and command.id in replay.pieces and not _is_holder(command.type_text):
            texts = (replay.game.quoting, *replay.pieces[command.id])
            kind = reader.kind(texts, command.id)
            if kind.what == "unknown":
                yield Finding("info", "not-recognised", f"the profile does not recognise this piece: {kind.name}",
                              piece=command.id, name=reader.piece(texts, command.id).name, step=step.index)


def _is_holder(type_text: str) -> bool:
    return type_text == "stack" or type_text.startswith("deck;")


def _judged_step(change: StepChange, ruleset: Ruleset, log: LogPosition, standing: _Standing,
                 step: int) -> list[Finding]:
    """The referee's findings about one step: moves of the units that changed hex, then the
    problems of the hexes they arrived in or left and of the units the step changed."""
    # The position before the step, on the board as it stands after it (a hex entered for the
    # first time is known only there when no terrain map lists the board's hexes).
    # (``but`` keeps the unit indexes the Game before built: its units are the same.)
    before, after = change.before.but(hexes=change.after.hexes), change.after
    found: list[Finding] = []
    piece_of = log.pieces
    moved_into: set[str] = set()
    # the stacking rules a Move check judges in the hex it arrives in (limits, an HQ's companions)
    judged_there = {ruleset.cite(ruleset.section(topic)) for topic in ("stacking", "hq_companions")
                    if topic in ruleset.SECTIONS}
    moves = {key: (before.units[key].hex, after.units[key].hex) for key in sorted(change.changed)
             if before.units[key].on_map and after.units[key].on_map and before.units[key].hex
             and after.units[key].hex and before.units[key].hex != after.units[key].hex}
    for key, (_, goal) in moves.items():
        old = before.units[key]
        # the pieces this step moved the same way: a stack dragged as one (an HQ with its units)
        with_it = tuple(k for k, way in moves.items() if k != key and way == moves[key])
        moving = judge_move(before, ruleset, old, goal, with_it)
        found.extend(problem_finding(p, before, piece_of, step) for p in moving)
        if any(rule in (p.section or "") for p in moving for rule in judged_there):
            moved_into.add(goal)               # the Move check already judged stacking where it arrived
    units = set(change.changed | change.added)
    hexes = {after.units[k].hex for k in units if after.units[k].on_map and after.units[k].hex}
    hexes |= {start for start, _ in moves.values() if log.stack(start)}    # an HQ a move left alone (§1.3.3.1)
    problems = position_problems(after, ruleset, hexes=hexes, units=units, stack=log.stack)
    for problem in standing.update(problems, hexes, units):
        if problem.rule == "stacking" and problem.hex in moved_into:
            continue
        found.append(problem_finding(problem, after, piece_of, step))
    return found


def _move_findings(game: Game, ruleset: Ruleset, unit: Unit, goal: str, piece: str | None, step: int
                   ) -> list[Finding]:
    """One logged move judged by the referee along the cheapest route to where the unit went."""
    return [problem_finding(p, game, {unit.key: piece} if piece else {}, step)
            for p in judge_move(game, ruleset, unit, goal)]


# -- one file, a folder -----------------------------------------------------------------------

@dataclass(frozen=True)
class Options:
    """What a validation run needs besides the file: module, profile, unit table, terrain, and
    the ruleset when it is not the one the profile names."""

    module: str | None = None
    profile: str | None = None
    ruleset: str | None = None
    units: str | None = None
    replay_log: bool = True
    terrain: str | None = None


def validate_save(save: SavedGame, module: Module | None, *, file: str,
                  board_aliases: Mapping[str, tuple[str, int, int]] | None = None, judge: Judge | None = None,
                  replay_log: bool = True, progress: Callable[[int, int], None] | None = None) -> Report:
    """All passes over one read save: soundness, then legality when a judge is given."""
    report = Report(file, kind="log" if save.is_log else "save")
    report.facts["pieces"] = sum(1 for e in save.pieces.values() if not (e.is_stack or e.is_deck))
    report.facts["stacks"] = sum(1 for e in save.pieces.values() if e.is_stack)
    if save.is_log:
        report.facts["steps"] = len(save.log_steps)
    sound = soundness(save, module, board_aliases)
    log = None
    piece_of: dict[str, str] = {}
    if judge is not None:
        replayed = save.is_log and replay_log and judge.ruleset is not None
        log = judge.reader.log(save) if replayed else None      # read once: the start, then each step
        imported = log.start if log is not None else judge.reader.read(save)
        piece_of = dict(imported.pieces)
        report.facts["units"] = sum(1 for u in imported.game.units.values() if u.on_map)
        report.facts["rules"] = judge.rules
        report.extend(with_units(sound, piece_of))
        report.extend(_recognition(judge, imported))
        if judge.ruleset is not None:
            report.extend(legality(imported.game, judge.ruleset, imported.pieces))
    else:
        report.extend(sound)
    if save.is_log and replay_log:
        maps = geometries(save, module, board_aliases)[0] if module is not None else {}
        found = replay_findings(save, module, judge, maps, progress, log)
        report.extend(with_units(found, {**piece_of, **(log.pieces if log is not None else {})}))
    return report


def _recognition(judge: Judge, imported: Imported) -> list[Finding]:
    """What the profile made of the position: pieces it does not recognise, and wawkit's own
    names where the main map's grid has none."""
    found = [Finding("info", "not-recognised", f"the profile does not recognise this piece: {u.reason}",
                     piece=u.piece, name=u.name, hex=u.location) for u in imported.unrecognised]
    main = judge.reader.profile.main_map
    if any(u.on_map for u in imported.game.units.values()) and _assigned(judge.reader, main):
        found.append(Finding("info", "assigned-names", f"map {main!r}: {ASSIGNED_NOTE}"))
    return found


def _assigned(reader: PositionReader, map_name: str) -> bool:
    if map_def(reader.module, map_name) is None:
        return False
    return any(unnumbered(board.grid) for board in reader.module.map(map_name).boards)


_MODULES: dict[str, Module] = {}
_JUDGES: dict[tuple[str, str, str | None, str | None, str | None], Judge] = {}


def _module(path: str | None) -> Module | None:
    if path is None:
        return None
    if path not in _MODULES:
        _MODULES[path] = Module.read(path)
    return _MODULES[path]


def judge_for(module: Module, options: Options) -> Judge | None:
    """The reader and ruleset of a run (read once per run, shared by the files of a folder)."""
    if options.profile is None or options.module is None:
        return None
    key = (options.module, options.profile, options.ruleset, options.units, options.terrain)
    if key not in _JUDGES:
        inputs = read_inputs(options.profile, options.units, options.terrain)
        ruleset = rules_of(inputs.profile, options.ruleset)
        rules = inputs.profile.ruleset_name(options.ruleset) or "none"
        _JUDGES[key] = Judge(inputs.reader(module), ruleset, rules)
    return _JUDGES[key]


def rules_of(profile: Profile, override: str | None = None) -> Ruleset | None:
    """The ruleset a profile names (or ``override``); None for a module judged by no rules.

    A profile that says ``rules: none`` is a module of another game: no ruleset applies to it."""
    name = profile.ruleset_name(override)
    return None if name is None else ruleset_named(name)


def validate_path(path: str | os.PathLike[str], options: Options,
                  progress: Callable[[int, int], None] | None = None) -> Report:
    """Validate one file; a file that cannot be read becomes an ``unreadable`` report."""
    name = str(path)
    try:
        save = SavedGame.read(path)
        module = _module(options.module)
        judge = judge_for(module, options) if module is not None else None
        aliases = judge.reader.profile.board_aliases if judge is not None else {}
        return validate_save(save, module, file=name, board_aliases=aliases, judge=judge,
                             replay_log=options.replay_log, progress=progress)
    except WawkitError as error:
        return unreadable(name, error.located(file=name))
    except RefereeError as error:       # the position could not be judged at all
        return unreadable(name, error)
    except OSError as error:
        return unreadable(name, error)


#: Bytes read at most to tell whether a file is a zip holding a ``savedGame`` entry.
SNIFF_LIMIT = 64 * 1024 * 1024


def is_save_file(path: Path) -> bool:
    """A save or log by its content: a zip with a ``savedGame`` entry (whatever the file is
    called: VASSAL 2.x logs often have no extension); a file with a save's extension that is
    not one is kept too, to be reported as unreadable rather than skipped."""
    if path.suffix.lower() in SAVE_SUFFIXES:
        return True
    try:
        if path.stat().st_size > SNIFF_LIMIT or not zipfile.is_zipfile(path):
            return False
        with zipfile.ZipFile(path) as archive:
            return "savedGame" in archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return False


def saves_in(folder: str | os.PathLike[str], *, recursive: bool = False) -> list[Path]:
    """The saves and logs in a folder (and its subfolders when ``recursive``), by content,
    sorted by path for a stable order."""
    root = Path(folder)
    found = root.rglob("*") if recursive else root.iterdir()
    return sorted(p for p in found if p.is_file() and not p.is_symlink() and is_save_file(p))


def validate_folder(folder: str | os.PathLike[str], options: Options, *, workers: int | None = None,
                    progress: Callable[[Report], None] | None = None, recursive: bool = False) -> list[Report]:
    """Validate every save of a folder on all cores; reports come back in path order."""
    paths = saves_in(folder, recursive=recursive)
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


__all__ = ["Judge", "Options", "geometries", "with_units", "is_save_file", "judge_for", "legality", "map_def", "match_slot",
           "replay_findings", "rules_of", "saves_in", "slot_index", "soundness", "validate_folder", "validate_path",
           "validate_save"]
