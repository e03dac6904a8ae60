"""Build ``samples/demo.vsav``: the position of The Untold Stories §6.1 example on the sample module.

A Canadian Leopard C1 platoon (B7, four hexes away) is about to fire at a Soviet T-64 platoon concealed
in the woods of F6 (001 §6.1: Leopard AP 4, To-Hit 4; T-64 armor 3, save 5, full
strength). Around them, sample units of both sides: US infantry carried with an M113 that is
already Ops Complete, a BMP-1 with Soviet infantry in the town, each side's HQ stacked with
those units of its Formation (001 §1.3.3.1), and a Smoke 2 marker in E4. Pieces are copied from the module's PieceSlots with the
codec's writer, with a fixed obfuscation key and piece-id clock, so the file is the
same on every run::

    .venv/bin/python samples/build_save.py
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from converter.exporter import empty_save  # noqa: E402
from converter.vassal.module import Module  # noqa: E402
from converter.vassal.save import SavedGame  # noqa: E402

MODULE = ROOT / "waw-sample.vmod"
OUTPUT = ROOT / "demo.vsav"
MAIN_MAP = "Main Map"

#: (hex, PieceSlot names bottom first) of every stack, in the order the pieces are added (which
#: gives their ids). A second entry for a hex joins its stack: an HQ at the bottom, under the
#: carried infantry and its M113, or on top of the Soviet units.
POSITION: list[tuple[str, list[str]]] = [
    ("B7", ["Leopard C1"]),
    ("F6", ["T-64"]),
    ("B8", ["US Infantry", "M113", "Ops Complete"]),
    ("B8", ["US HQ"]),
    ("H4", ["Soviet Infantry", "BMP-1"]),
    ("H4", ["Soviet HQ"]),
    ("E4", ["Smoke"]),
]
#: The HQs that join their hex's stack at the bottom rather than on top.
AT_THE_BOTTOM = {"US HQ"}


def build(module: Module) -> SavedGame:
    save = empty_save(module)
    slots = {slot.name: slot for slot in module.piece_slots}
    geometry = module.map(MAIN_MAP).geometry()
    stacks: dict[str, list[str]] = {}
    for hex_name, names in POSITION:
        x, y = geometry.locate(hex_name)
        built = stacks.setdefault(hex_name, [])
        for name in names:
            slot = slots[name]
            bottom = name in AT_THE_BOTTOM and bool(built)
            join = (built[0] if bottom else built[-1]) if built else None
            piece = save.add_piece(slot.type_text, MAIN_MAP, x, y, state_text=slot.state_text, join=join,
                                   index=0 if bottom else None)
            built.insert(0 if bottom else len(built), piece)
    return save


def main() -> Path:
    save = build(Module.read(MODULE))
    save.write(OUTPUT, overwrite=True)
    return OUTPUT


if __name__ == "__main__":
    print(main())
