"""One fuzz target per reader: a function of untrusted bytes that must either succeed
or raise one of the typed errors in :data:`ALLOWED`.

The tests (``tests/fuzz/``) run every target on a bounded number of generated inputs;
``make fuzz`` (:mod:`fuzz.run`) runs them for a long time on mutated real files. Both
use the same targets, so an input that fails once becomes a regression test simply by
being saved under ``fuzz/crashes/<target>/``.

A target does more than call the reader: it walks the result the way wawkit's own
commands do (every piece decoded, every typed field read, every map and grid built),
because lazily decoded data only fails when it is touched. Where the design promises
"nothing lost", the target also checks that re-encoding the unchanged result gives the
input back; a broken promise is an ``AssertionError``, which counts as a crash.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any, Callable

from converter.errors import WawkitError
from referee.errors import RefereeError

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
SAMPLES = ROOT / "samples"
CRASHES = Path(__file__).resolve().parent / "crashes"

#: The only exceptions a reader may raise on bad input.
ALLOWED: tuple[type[BaseException], ...] = (WawkitError, RefereeError)

Target = Callable[[bytes], None]
TARGETS: dict[str, Target] = {}


def target(name: str) -> Callable[[Target], Target]:
    """Register a fuzz target under ``name`` (also the folder of its crash files)."""
    def register(function: Target) -> Target:
        TARGETS[name] = function
        return function
    return register


def _text(data: bytes) -> str:
    """Bytes as wawkit decodes a save's plaintext: UTF-8, other bytes kept as surrogates."""
    return data.decode("utf-8", "surrogateescape")


def _touch_piece(piece: Any) -> None:
    """Read everything a piece offers, so lazily parsed fields are decoded."""
    from converter.vassal.traits.base import FieldSpec

    piece.name
    piece.basic_name
    piece.properties()
    for layer in piece.layers()[:3]:  # each call computes every layer's level: a few suffice
        piece.shown_level(layer)
    piece.prototypes()
    for trait in piece.traits:
        for klass in type(trait).__mro__:
            for name, value in vars(klass).items():
                if isinstance(value, FieldSpec):
                    getattr(trait, name)
        trait.exposed_properties()


@target("sequence")
def sequence_target(data: bytes) -> None:
    """SequenceEncoder: split, the raw-preserving field list, the typed Decoder readers."""
    from converter.vassal.sequence import Decoder, Fields, split, split_raw

    delim = ";,|\t:"[data[0] % 5] if data else ";"
    text = _text(data[1:])
    split(text, delim)
    split_raw(text, delim)
    fields = Fields(text, delim)
    assert fields.encode() == text, "Fields re-encoded an unchanged string differently"
    decoder = Decoder(text, delim)
    readers = (lambda: decoder.next_int(0), lambda: decoder.next_bool(False),
               lambda: decoder.next_double(0.0), lambda: decoder.next_char("x"),
               lambda: decoder.next_string_array(2), lambda: decoder.next_token(""))
    index = 0
    while decoder.has_more():
        readers[index % len(readers)]()
        index += 1


@target("obfuscation")
def obfuscation_target(data: bytes) -> None:
    """``savedGame`` payloads: plain, !VCSK, VOBS, !VCSZ; a re-obfuscation reads back the same."""
    from converter.vassal.obfuscation import WRITABLE, deobfuscate, obfuscate

    plain, how = deobfuscate(data)
    if how.scheme in WRITABLE:
        again, _ = deobfuscate(obfuscate(plain, how))
        assert again == plain, "re-obfuscated payload reads back differently"


@target("container")
def container_target(data: bytes) -> None:
    """Zip containers of saves and logs; re-writing keeps every entry and the plaintext."""
    from converter.vassal.container import read_container

    container = read_container(data, file="fuzz.vsav")
    again = read_container(container.to_bytes(), file="fuzz.vsav")
    assert again.plaintext == container.plaintext, "plaintext changed on re-write"
    assert [e.name for e in again.entries] == [e.name for e in container.entries], "entries changed"


@target("commands")
def commands_target(data: bytes) -> None:
    """The ESC-nested command tree: every leaf typed, the unchanged tree re-encodes exactly."""
    from converter.vassal.commands import parse
    from converter.vassal.sequence import LEGACY, MODERN

    quoting = LEGACY if data[:1] == b"L" else MODERN
    text = _text(data)
    tree = parse(text, quoting=quoting, file="fuzz")
    for command in tree.leaves():
        command.kind
        command.encode()
    assert tree.encode() == text, "unchanged command tree re-encoded differently"


@target("save")
def save_target(data: bytes) -> None:
    """A whole savedGame plaintext: pieces indexed and decoded, log steps replayed."""
    from converter.vassal.container import new_container
    from converter.vassal.log import Replay
    from converter.vassal.obfuscation import PLAIN
    from converter.vassal.save import SavedGame

    game = SavedGame(new_container(data, PLAIN))
    game.board_layouts()
    game.global_properties
    game.stacks
    for piece_id in list(game.pieces)[:200]:
        _touch_piece(game.piece(piece_id))
        game.position(piece_id)
    if game.is_log:
        Replay(game).run()
    assert game.to_plaintext() == data, "unchanged save re-encoded differently"


@target("traits")
def traits_target(data: bytes) -> None:
    """Trait decoding of a piece's type and state (split on the first NUL byte)."""
    from converter.vassal.pieces import decode_piece
    from converter.vassal.sequence import LEGACY, MODERN

    type_bytes, has_state, state_bytes = data.partition(b"\0")
    quoting = LEGACY if type_bytes[:1] == b"L" else MODERN
    type_text = _text(type_bytes)
    state_text = _text(state_bytes) if has_state else None
    piece = decode_piece(type_text, state_text, piece_id="fuzz", quoting=quoting)
    _touch_piece(piece)
    assert piece.type_text() == type_text, "unchanged piece type re-encoded differently"


@target("buildfile")
def buildfile_target(data: bytes) -> None:
    """buildFile XML: the hardened parse, then every typed view of the module."""
    from converter.vassal.buildfile import parse_buildfile
    from converter.vassal.module import Module

    module = Module(parse_buildfile(data, file="fuzz.xml"), file="fuzz.xml")
    module.name
    for map_def in module.maps:
        geometry = map_def.geometry()
        for x, y in ((0, 0), (137, 421), (5000, 3000)):  # grid arithmetic on the attributes read
            geometry.location_name(x, y)
    for _, board, grid in list(module.grids())[:20]:
        for x, y in ((0, 0), (57, 93), (-40, 2_000_000)):
            grid.snap(x, y)
            grid.location_name(x, y, board.size)
    for slot in module.piece_slots[:100]:
        _touch_piece(module.expand(slot.piece()))
    module.palette
    module.setups
    module.dice
    module.global_properties
    module.unknown_components


@target("metadata")
def metadata_target(data: bytes) -> None:
    """``savedata``/``moduledata`` XML entries."""
    from converter.vassal.metadata import parse_metadata

    meta = parse_metadata(data, "moduledata", file="fuzz")
    meta.to_dict()


def _document(data: bytes, kind: str) -> Any:
    from converter.schema import parse_text, validate

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:  # read_text's own check, for bytes given directly
        from converter.errors import SchemaError
        raise SchemaError(f"not UTF-8 text ({error.reason})", position=error.start) from None
    return validate(parse_text(text, file=f"fuzz.{kind}.yaml"), kind, file="fuzz")


@target("profile")
def profile_target(data: bytes) -> None:
    """Module profile YAML: parsed, validated against its schema, then typed."""
    from converter.profile import Profile

    Profile.from_document(_document(data, "profile"), file="fuzz.yaml")


@target("scenario")
def scenario_target(data: bytes) -> None:
    """Scenario YAML: parsed and built into a referee game; written back, it reads the same."""
    from converter.scenario import dumps, loads

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # read_text refuses non-UTF-8 files before parsing (see the profile target)
    scenario = loads(text, file="fuzz.yaml")
    again = loads(dumps(scenario), file="again.yaml")
    assert dumps(again) == dumps(scenario), "scenario changed on a write/read round trip"


@target("actions")
def actions_target(data: bytes) -> None:
    """Short action strings, one per line, and the YAML form of an actions file."""
    from converter.actions_text import load_actions, parse
    from converter.schema import parse_text

    text = _text(data)
    for line in text.splitlines()[:50]:
        try:
            parse(line)
        except ALLOWED:
            pass
    document = parse_text(text.encode("utf-8", "replace").decode("utf-8"), file="fuzz.yaml")
    if isinstance(document, dict):  # ``actions: [...]``, or one action as a mapping
        document = document["actions"] if isinstance(document.get("actions"), list) else [document]
    if isinstance(document, list) and document:
        load_actions(document)


# -- images inside module zips, actions files from bytes, action fields ----------------------

#: Pixels the image target decodes at most (the product's cap is 32 Mpx; a smaller one keeps
#: every input within the time limit and still reaches every branch of the decode).
FUZZ_DECODE_PIXELS = 2_000_000


def _module_with_board(image: bytes) -> bytes:
    """The sample module's buildFile in a zip whose only board image is ``image`` (an SVG when it
    starts like XML, else a raster image Pillow identifies by content)."""
    name = "board.svg" if image[:512].lstrip().startswith(b"<") else "board.png"
    build = _sample_buildfile().replace(b'image="board.png"', f'image="{name}"'.encode())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("buildFile.xml", build)
        archive.writestr("images/" + name, image)
    return buffer.getvalue()


_CACHE: dict[str, Any] = {}


def _sample_buildfile() -> bytes:
    if "buildfile" not in _CACHE:
        with zipfile.ZipFile(SAMPLES / "waw-sample.vmod") as archive:
            _CACHE["buildfile"] = archive.read("buildFile.xml")
    return _CACHE["buildfile"]


@target("module_images")
def module_images_target(data: bytes) -> None:
    """A board image inside a module zip: its size from the header (``inspect-module``, the grid
    geometry), then its pixels under the decode cap (``render``); an image that cannot be read
    leaves a note, never an exception."""
    from converter.vassal.images import MAX_SIDE, decode_image
    from converter.vassal.module import Module

    module = Module.from_bytes(_module_with_board(data), file="fuzz.vmod")
    board = module.map("Main Map").boards[0]
    if board.size is not None:
        assert 1 <= min(board.size) and max(board.size) <= MAX_SIDE, board.size
        module.map("Main Map").geometry().location_name(board.size[0] // 2, board.size[1] // 2)
    elif data[:512].lstrip().startswith(b"<"):
        return  # an SVG states no size (or a bad one: a note); render draws it without its image
    else:
        assert module.notes, "a raster board without a size and without a note"
    if board.image and board.image.endswith(".svg"):
        return
    entry = module.archive.image_entry(board.image)  # type: ignore[union-attr, arg-type]
    picture = decode_image(module.archive.read(entry), file="fuzz.vmod", entry=entry,  # type: ignore[union-attr]
                           max_pixels=FUZZ_DECODE_PIXELS)
    assert picture.mode == "RGB" and picture.size[0] * picture.size[1] <= FUZZ_DECODE_PIXELS


@target("actions_file")
def actions_file_target(data: bytes) -> None:
    """An actions file's bytes through the loader ``--actions`` uses (the hardened YAML/JSON
    loader, then the action forms); every number that gets through is within the rules' bounds."""
    from converter.actions_text import DIE_FACES, MAX_COUNT, MAX_GIVEN_DICE, MAX_HITS, actions_from_text
    from converter.errors import SchemaError

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:  # read_text's own check, for bytes given directly
        raise SchemaError(f"not UTF-8 text ({error.reason})", position=error.start) from None
    name = "fuzz.json" if data[:1] in (b"{", b"[") and data.count(b"\n") < 2 else "fuzz.yaml"
    for spec in actions_from_text(text, file=name):
        hits = spec.options.get("hits")
        assert hits is None or 0 <= hits <= MAX_HITS, hits
        count = spec.options.get("count")
        assert count is None or 0 <= count <= MAX_COUNT, count
        for values in spec.dice.values():
            assert len(values) <= MAX_GIVEN_DICE and all(1 <= v <= DIE_FACES for v in values), values


def _demo_position() -> Any:
    if "position" not in _CACHE:
        from converter.resolve import read_position
        _CACHE["position"] = read_position(SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod",
                                           SAMPLES / "profile.yaml")
    return _CACHE["position"]


def prepare(names: list[str] | None = None) -> None:
    """Load what targets cache once (the sample buildFile, the demo position: about a second of
    CPU), so that the first input of a run is not charged for it against its time limit."""
    names = list(TARGETS) if names is None else names
    if "module_images" in names:
        _sample_buildfile()
    if "action_fields" in names:
        _demo_position()


@target("action_fields")
def action_fields_target(data: bytes) -> None:
    """Short actions with fuzzed words and fields, bound to the demo position and checked and
    resolved by both rulesets with dice seeded from the input: the bounds keep every number
    the referee is given within what the rules allow, and the referee answers in time."""
    from converter.actions_text import parse
    from referee.dice import SeededDice
    from referee.rulesets import get_ruleset

    line = _text(data).split("\n", 1)[0]
    spec = parse(line)
    game = _demo_position().game
    action = spec.bind(game)
    for ruleset in (get_ruleset("classic", "untold"), get_ruleset("waw85")):
        ruleset.check(game, action)
        ruleset.resolve(game, action, SeededDice(len(data)))


def run(name: str, data: bytes) -> None:
    """Run one target; typed errors are the expected outcome of bad input."""
    try:
        TARGETS[name](data)
    except ALLOWED:
        pass


# -- seeds -------------------------------------------------------------------------------

_SMALL_SAVES = [
    "vasl-saves-logs/fixtures/analyze-vlog/3d6.vlog",
    "vasl-saves-logs/fixtures/update-vsav/empty.vsav",
    "vasl-saves-logs/fixtures/analyze-vsav/landing-craft.vsav",
    "zxvt-capture-territory/5x5_startup.vlog",
    "tld-longest-day/logs/0611-1.log",
]
_BUILDFILES = ["zxvt-capture-territory/buildFile", "fields-of-normandy-2/buildFile.xml"]
_METADATA = ["ragnarok-spi/moduledata", "paths-of-glory/moduledata", "zxvt-capture-territory/moduledata"]


def _corpus(relative: str) -> bytes | None:
    path = CORPUS / relative
    return path.read_bytes() if path.is_file() else None


def _saves() -> list[bytes]:
    found = [_corpus(name) for name in _SMALL_SAVES]
    sample = SAMPLES / "demo.vsav"
    return [data for data in found if data] + ([sample.read_bytes()] if sample.is_file() else [])


def seeds() -> dict[str, list[bytes]]:
    """Real inputs for each target, cut small so that mutations stay fast."""
    from converter.vassal.container import read_container
    from converter.vassal.save import SavedGame

    saves = _saves()
    plains = [read_container(data).plaintext for data in saves]
    payloads = [zipfile.ZipFile(io.BytesIO(data)).read("savedGame") for data in saves]
    traits: list[bytes] = []
    for data in saves:
        game = SavedGame.from_bytes(data)
        for entry in list(game.pieces.values())[:20]:
            traits.append(entry.type_text.encode("utf-8", "surrogateescape") + b"\0"
                          + entry.state_text.encode("utf-8", "surrogateescape"))
    commands = [plain for plain in plains if len(plain) <= 20_000]
    yaml_files = {name: (SAMPLES / f"{name}.yaml").read_bytes() for name in ("profile", "actions")
                  if (SAMPLES / f"{name}.yaml").is_file()}
    return {
        "sequence": [b";" + t[:300] for t in traits[:20]] + [b",a,b\\,c,,'x'", b"\t1\t2\\\t3"],
        "obfuscation": [p[:3001] for p in payloads] + [b"VOBS\x11abc", b"!VCSZ00"],
        "container": saves,
        "commands": commands,
        "save": commands,
        "traits": traits,
        "buildfile": [d for d in (_corpus(n) for n in _BUILDFILES) if d] + [_sample_buildfile()],
        "metadata": [d for d in (_corpus(n) for n in _METADATA) if d],
        "profile": [yaml_files["profile"]] if "profile" in yaml_files else [b"{}"],
        "scenario": [_demo_scenario()],
        "actions": [yaml_files.get("actions", b"- fire C5 F8 ap\n"), b"fire C5 F8 ap hits=2\nmove C5 D5 E5\n"],
        "module_images": _images(),
        "actions_file": [yaml_files.get("actions", b"- fire C5 F8 ap\n"), *ACTIONS_FILES],
        "action_fields": ACTION_LINES,
    }


#: Actions files in both forms, with the fields whose numbers are bounded.
ACTIONS_FILES = [
    b"actions:\n- fire leopard-c1 t-64 ap hits=2\n- {kind: move, unit: us-hq, path: [B8]}\n",
    b"- {kind: direct_fire, unit: leopard-c1, target: t-64, weapon: ap, dice: {attack: [4, 1, 5, 4], "
    b"save: [1, 3, 4, 4, 6]}}\n- {kind: indirect_fire, unit: a, mission: {type: he, fp: 4, to_hit: 5}, count: 2}\n",
    b'{"actions": [{"kind": "rally", "unit": "soviet-infantry", "passed": true}, "los bmp-1 us-infantry"]}',
    b'[{"kind": "assault", "unit": "leopard-c1", "target": "t-64", "hits": 3, "supporting": ["m113"]}]',
]
#: Short actions on the demo position, one per seed.
ACTION_LINES = [
    b"fire leopard-c1 t-64 ap", b"fire leopard-c1 t-64 ap hits=3", b"opfire t-64 leopard-c1 ap hits=0",
    b"move us-hq B8", b"move leopard-c1 C7 D7", b"assault leopard-c1 t-64 hits=2", b"overrun m113 soviet-infantry",
    b"rally soviet-infantry passed=true", b"los bmp-1 us-infantry", b"fire m113 bmp-1 he count=2 mission=he",
    b"command us-infantry", b"morale soviet-infantry", b"stacking F6",
]


def _images() -> list[bytes]:
    """Small images of each kind Pillow reads, the sample's board, and SVGs sized three ways."""
    from PIL import Image

    found = []
    for fmt, mode in (("PNG", "RGB"), ("PNG", "P"), ("GIF", "P"), ("JPEG", "RGB"), ("BMP", "RGB"), ("TIFF", "RGB")):
        out = io.BytesIO()
        Image.new(mode, (12, 9), 3).save(out, fmt)
        found.append(out.getvalue())
    with zipfile.ZipFile(SAMPLES / "waw-sample.vmod") as archive:
        found.append(archive.read("images/board.png"))
    return found + [b'<svg xmlns="http://www.w3.org/2000/svg" width="640px" height="480"/>',
                    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300.5 200"/>',
                    b'<svg xmlns="http://www.w3.org/2000/svg" width="50%" height="10cm"><rect/></svg>']


def _demo_scenario() -> bytes:
    """A small scenario: two units of two types, one with a status, on two hexes."""
    from converter.scenario import Scenario, dumps
    from referee.hexes import Hex
    from referee.model import AssaultValue, Game, HexState, Status, Unit, UnitType, Weapon

    tank = UnitType(name="Leopard C1", target_type="heavy_armor", steps=2, ap=Weapon(4, 4, 6), armor=3, save=5,
                    mp=4)
    infantry = UnitType(name="Soviet Infantry", target_type="troops", steps=2, assault=AssaultValue(2, 5, True),
                        mp=1)
    units = {"leopard-c1": Unit("leopard-c1", tank, side="NATO", hex="C7", status=Status(ops_complete=True)),
             "inf": Unit("inf", infantry, side="Warsaw Pact", hex="F6", status=Status(disrupted=True))}
    hexes = {"F6": HexState("F6", terrain="woods", at=Hex(5, 3)), "C7": HexState("C7", terrain="clear", at=Hex(2, 5))}
    return dumps(Scenario(Game(units=units, hexes=hexes), "fuzz")).encode("utf-8")


#: How libFuzzer (``fuzz.guided``) names the inputs it saves.
LIBFUZZER_ARTIFACTS = ("crash-", "timeout-", "oom-")


def crash_files(name: str | None = None) -> list[Path]:
    """Saved inputs that once failed a target, in name order (``fuzz/crashes/<target>/``):
    ``<sha1>.bin`` from :mod:`fuzz.run`, ``crash-``/``timeout-``/``oom-`` files from :mod:`fuzz.guided`."""
    folders = [CRASHES / name] if name else sorted(p for p in CRASHES.glob("*") if p.is_dir())
    return sorted(p for folder in folders if folder.is_dir() for p in folder.iterdir()
                  if p.is_file() and (p.suffix == ".bin" or p.name.startswith(LIBFUZZER_ARTIFACTS)))

