"""Every piece in the real corpus decodes to typed traits and re-encodes to the identical text.

Pieces come from every AddPiece in every save and log (including the setups inside
modules and the pieces added by log steps) and from every PieceSlot, CardSlot and
PrototypeDefinition of every buildFile (``+/null/<type>/<state>``).
"""
from __future__ import annotations

import zipfile
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import pytest
from lxml import etree

from converter.vassal.commands import AddPiece, LogStep, parse
from converter.vassal.container import read_container
from converter.vassal.pieces import decode_piece
from converter.vassal.save import _quoting
from converter.vassal.sequence import MODERN
from converter.vassal.traits import UnknownTrait
from converter.vassal.traits.base import FieldSpec

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SAVE_SUFFIXES = (".vsav", ".vlog", ".sav", ".log")
MODULE_SUFFIXES = (".vmod", ".mod", ".vmdx")
BUILD_FILES = ("buildFile", "buildFile.xml")
SLOT_TAGS = ("PieceSlot", "CardSlot", "PrototypeDefinition")

Pieces = list[tuple[str, str | None]]

# label: (pieces, typed traits, unknown traits)
EXPECTED = {
    "asl-pbs-extension/buildFile.xml": (83, 249, 0),
    "ccn-napoleonics/CCNv4 Tutorial.vlog": (42497, 65201, 0),
    "ccn-napoleonics/buildFile.xml": (1086, 6710, 0),
    "ccn-napoleonics/vsav/A301 - Wertingen.vsav": (65687, 84667, 0),
    "ccn-napoleonics/vsav/E602 - Austerlitz (Davout’s Counter Attack).vsav": (75645, 98443, 0),
    "ccn-napoleonics/vsav/unsupported.vsav": (51281, 51370, 0),
    "dreadball/buildFile": (147, 420, 0),
    "fields-of-normandy-2/buildFile.xml": (43, 113, 0),
    "hexncounters-template/jzhex-n-counters-template-v12-379.vmod!buildFile.xml": (30, 154, 0),
    "hexncounters-template/template-src/buildFile.xml": (30, 154, 0),
    "paths-of-glory/Historical10-8.vsav": (2256, 55414, 0),
    "paths-of-glory/buildFile.xml": (1172, 6431, 0),
    "ragnarok-spi/buildFile.xml": (51, 175, 0),
    "ragnarok-spi/ragnarok-start.vsav": (154, 1423, 0),
    "tld-longest-day/buildFile": (2076, 5150, 0),
    "tld-longest-day/logs/0606-1.log": (4554, 12895, 0),
    "tld-longest-day/logs/0608-3.log": (5097, 13135, 0),
    "tld-longest-day/scenarios/campaign.sav": (4320, 12682, 0),
    "tld-longest-day/scenarios/scenario_1.sav": (112, 286, 0),
    "tld-longest-day/scenarios/scenario_2.sav": (35, 71, 0),
    "tld-longest-day/scenarios/scenario_3.sav": (31, 52, 0),
    "tld-longest-day/scenarios/scenario_4.sav": (528, 1403, 0),
    "vasl-saves-logs/examples/Hill 621 (Scenario E) (online).vsav": (326, 4134, 375),
    "vasl-saves-logs/examples/Hube's Pocket (Scenario G) (online).vsav": (236, 2600, 247),
    "vasl-saves-logs/examples/The Streets Of Stalingrad (Scenario C) (online).vsav": (599, 6251, 482),
    "vasl-saves-logs/fixtures/analyze-vlog/3d6.vlog": (4, 14, 0),
    "vasl-saves-logs/fixtures/analyze-vlog/banner-updates.vlog": (5, 21, 0),
    "vasl-saves-logs/fixtures/analyze-vlog/download-test.vlog": (6, 33, 0),
    "vasl-saves-logs/fixtures/analyze-vlog/full.vlog": (6, 33, 0),
    "vasl-saves-logs/fixtures/analyze-vlog/hotness-report-2.vlog": (4, 14, 0),
    "vasl-saves-logs/fixtures/analyze-vlog/multiple-1a.vlog": (6, 33, 0),
    "vasl-saves-logs/fixtures/analyze-vlog/multiple-2.vlog": (6, 33, 0),
    "vasl-saves-logs/fixtures/analyze-vsav/common-vo.vsav": (33, 283, 37),
    "vasl-saves-logs/fixtures/analyze-vsav/ffs.vsav": (15, 101, 6),
    "vasl-saves-logs/fixtures/analyze-vsav/landing-craft.vsav": (12, 168, 18),
    "vasl-saves-logs/fixtures/analyze-vsav/vo-entry-selection-for-theater.vsav": (12, 115, 12),
    "vasl-saves-logs/fixtures/update-vsav/empty.vsav": (0, 0, 0),
    "vasl-saves-logs/fixtures/update-vsav/hill621-legacy.vsav": (319, 4105, 375),
    "vasl-saves-logs/fixtures/update-vsav/latw.vsav": (11, 63, 0),
    "vasl-saves-logs/fixtures/update-vsav/player-owned-labels.vsav": (9, 49, 0),
    "vasl-saves-logs/vmdx/BFP_v403.vmdx!buildFile": (551, 2244, 350),
    "vassal-tour/tour.log": (32, 121, 0),
    "vassal-tour/tour.mod!buildFile": (23, 89, 0),
    "zxvt-capture-territory/5x5_startup.vlog": (8, 22, 0),
    "zxvt-capture-territory/buildFile": (11, 30, 0),
}

UNKNOWN_PREFIXES = {
    # VASL's own trait classes: every VASSAL trait the corpus uses is typed.
    "conceal;", "concealment;", "info;", "moved;", "placeDM;", "turr;",
}


def _save_pieces(data: bytes, name: str) -> tuple[str, Pieces]:
    container = read_container(data, file=name)
    quoting = _quoting(container)
    pieces: Pieces = []
    for command in parse(container.text, quoting=quoting).leaves():
        commands = command.commands() if isinstance(command, LogStep) else [command]
        pieces += [(c.type_text, c.state_text) for c in commands if isinstance(c, AddPiece)]
    return quoting, pieces


def _build_pieces(xml: bytes) -> tuple[str, Pieces]:
    root = etree.fromstring(xml, etree.XMLParser(huge_tree=True))
    pieces: Pieces = []
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.rsplit(".", 1)[-1] in SLOT_TAGS:
            text = (element.text or "").strip()
            if text:
                command = AddPiece(text)
                pieces.append((command.type_text, command.state_text))
    return MODERN, pieces


def _sources() -> Iterator[tuple[str, str, bytes]]:
    for path in sorted(CORPUS.rglob("*")):
        label = path.relative_to(CORPUS).as_posix()
        if path.suffix in SAVE_SUFFIXES:
            yield label, "save", path.read_bytes()
        elif path.name in BUILD_FILES:
            yield label, "build", path.read_bytes()
        elif path.suffix in MODULE_SUFFIXES:
            with zipfile.ZipFile(path) as archive:
                for entry in archive.namelist():
                    if entry in BUILD_FILES:
                        yield f"{label}!{entry}", "build", archive.read(entry)
                    elif entry.endswith(SAVE_SUFFIXES):
                        yield f"{label}!{entry}", "save", archive.read(entry)


@lru_cache(maxsize=None)
def corpus() -> dict[str, tuple[str, Pieces]]:
    """label -> (quoting, [(type, state)]) for every file of the corpus."""
    return {label: _save_pieces(data, label) if kind == "save" else _build_pieces(data)
            for label, kind, data in _sources()}


def test_corpus_files_are_all_covered() -> None:
    assert sorted(corpus()) == sorted(EXPECTED)


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_round_trip_and_trait_counts(label: str) -> None:
    quoting, pieces = corpus()[label]
    typed = unknown = 0
    for type_text, state_text in pieces:
        piece = decode_piece(type_text, state_text, quoting=quoting)
        assert piece.type_text() == type_text
        assert piece.state_text() == state_text
        n_unknown = sum(isinstance(t, UnknownTrait) for t in piece.traits)
        unknown += n_unknown
        typed += len(piece.traits) - n_unknown
    assert (len(pieces), typed, unknown) == EXPECTED[label]


def test_unknown_trait_prefixes() -> None:
    seen: Counter[str] = Counter()
    for quoting, pieces in corpus().values():
        for type_text, state_text in pieces:
            for trait in decode_piece(type_text, state_text, quoting=quoting).unknown_traits():
                seen[trait.id_prefix] += 1
    assert set(seen) == UNKNOWN_PREFIXES
    assert (seen["conceal;"], seen["moved;"], seen["turr;"]) == (520, 546, 43)


def _distinct_traits() -> dict[tuple[str, str | None], str]:
    traits: dict[tuple[str, str | None], str] = {}
    for quoting, pieces in corpus().values():
        for type_text, state_text in pieces:
            for trait in decode_piece(type_text, state_text, quoting=quoting).traits:
                if trait.typed:
                    traits.setdefault((trait.type_text(), trait.state_text()), quoting)
    return traits


def test_every_typed_field_reads_and_rewrites_unchanged() -> None:
    """Reading every declared field of every distinct typed trait works, and setting a field
    to the value just read leaves the trait's text untouched."""
    from converter.vassal.traits import decode_trait
    checked = 0
    for (type_text, state_text), quoting in _distinct_traits().items():
        trait = decode_trait(type_text, state_text, quoting=quoting)
        specs = {name: spec for cls in type(trait).__mro__ for name, spec in vars(cls).items()
                 if isinstance(spec, FieldSpec)}
        for name, spec in specs.items():
            value = getattr(trait, name)
            if spec.index < len(trait.fields(spec.part)) or spec.part == "type":
                if spec.part == "state" and state_text is None:
                    continue
                setattr(trait, name, value)
            checked += 1
        assert trait.type_text() == type_text
        assert trait.state_text() == state_text
    assert checked > 50_000
