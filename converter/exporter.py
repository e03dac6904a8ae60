"""Writing positions into VASSAL saves: referee events onto an existing save, or a Game into a new one.

Events are translated through the module profile into the codec's surgical edits
(:class:`~converter.vassal.save.SavedGame`): a Disrupted marker is a copy of the
module's marker PieceSlot joined to the unit's stack, a reduction sets the Step layer,
an elimination moves the counter to the Destroyed map (or removes it) and adds a Wreck.
Every piece the events do not touch keeps its AddPiece command byte for byte.
"""
from __future__ import annotations

from converter.vassal.container import Container, Entry
from converter.vassal.metadata import parse_metadata
from converter.vassal.module import Module
from converter.vassal.obfuscation import VCSK, Obfuscation
from converter.vassal.save import SavedGame
from converter.vassal.sequence import join

ESC = "\x1b"
#: dateSaved of files written by wawkit: fixed, so that the same Game gives the same bytes.
DATE_SAVED = 1767225600000


def _savedata(module: Module) -> bytes:
    """The ``savedata`` entry VASSAL 3.x writes beside ``savedGame``."""
    from xml.sax.saxutils import escape
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<data version="1">\n'
        f"  <version>{escape(module.version)}</version>\n  <extra1/>\n  <extra2/>\n"
        f"  <VassalVersion>{escape(module.vassal_version or '3.7.9')}</VassalVersion>\n"
        f"  <dateSaved>{DATE_SAVED}</dateSaved>\n  <description/>\n"
        f"  <name>{escape(module.name)}</name>\n</data>\n").encode("utf-8")


def empty_save(module: Module, *, key: int = 0x5A, clock_start: int = DATE_SAVED) -> SavedGame:
    """A save of ``module`` with its maps' default boards, module global properties and no pieces.

    The obfuscation key and the piece-id clock are fixed so that the same position
    always gives the same file.
    """
    restores = []
    for map_def in module.maps:
        if map_def.default_layout:
            boards = []
            for placed in map_def.default_layout:
                name = join([placed.name, "rev"], "/") if placed.reversed else placed.name
                boards += [name, str(placed.column), str(placed.row)]
            restores.append(f"{map_def.id}BoardPicker\t" + "\t".join(boards))
    for prop in module.global_properties:
        if prop.container == "Module":
            restores.append("GlobalProperty\t" + join(["", prop.name, prop.initial_value, "Module"], ";"))
    text = ESC.join(["begin_save", "", *restores, "end_save"])
    savedata = _savedata(module)
    entries = [Entry("savedGame", b""), Entry("savedata", savedata)]
    container = Container(entries, text.encode("utf-8"), Obfuscation(VCSK, key),
                          {"savedata": parse_metadata(savedata, "savedata")})
    counter = iter(range(clock_start, clock_start + 10**9))
    return SavedGame(container, clock=lambda: next(counter))
