"""Every hostile input of issue 14, as the attacker sent it: each is one typed line on stderr and
exit code 2 (or, for a board image, a module still usable with a note), within the memory
docs/limits.md promises. Peak memory is measured in the command's own process."""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from converter.cli import main
from converter.errors import ContainerError, LimitExceeded
from converter.vassal import container
from converter.vassal.container import read_container
from converter.vassal.limits import Limits
from converter.vassal.obfuscation import Obfuscation, obfuscate
from tests.hostile import (SAVE, WITH_PROFILE, measured, module_with_board, module_with_grid, one_line,
                           png_header, tiff_claiming_samples, zipped)

#: A refusal costs the interpreter and the file itself: far below this (the interpreter
#: alone is about 35 MB).
SMALL_MB = 120
FIRE = ["--action", "fire leopard-c1 t-64 ap", "--seed", "10"]


def cli(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


# -- board images ------------------------------------------------------------------------------

SVG_INF = b'<svg xmlns="http://www.w3.org/2000/svg" width="inf" height="inf" viewBox="0 0 inf inf"/>'
SVG_NAN = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 nan 300"/>'
IMAGES = {
    "inf.svg": (SVG_INF, "SVG width x height inf x inf is not a finite size"),
    "nan.svg": (SVG_NAN, "SVG viewBox nan x 300 is not a finite size"),
    "huge.png": (png_header(100_000, 100_000),
                 "image 100000 x 100000 pixels is larger than VASSAL can load (at most 65535 pixels a side, "
                 "2147483647 in all)"),
    # Pillow logged its refusal on stderr, a second line beside the note
    "spp.tif": (tiff_claiming_samples(1000), "image cannot be identified: UnidentifiedImageError: cannot identify "
                                             "image file"),
    # each side within the cap, but 4.3 Gpx in all: more than Java's BufferedImage holds
    "square.png": (png_header(65_535, 65_535),
                   "image 65535 x 65535 pixels is larger than VASSAL can load (at most 65535 pixels a side, "
                   "2147483647 in all)"),
}


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_a_board_image_that_cannot_be_read_leaves_the_module_usable_with_a_note(tmp_path: Path, name: str) -> None:
    data, reason = IMAGES[name]
    module = module_with_board(tmp_path, name, data)
    run = measured("inspect-module", module)
    assert (run.code, run.err) == (0, "")
    assert "  board 'Eisenbach Sample' size unknown: hex grid dx=56.0" in run.out
    assert run.out.splitlines()[-1] == f"note: board 'Eisenbach Sample': images/{name}: {reason}; its size is unknown"
    assert run.peak_mb < SMALL_MB
    code, out, _ = cli("locate", module, "Main Map", "F6")  # the grid still names and places hexes
    assert (code, out) == (0, "320 392\n")  # as the sample module with its picture


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_validate_and_resolve_on_a_board_without_a_size_say_why_in_one_line(tmp_path: Path, name: str) -> None:
    data, reason = IMAGES[name]
    module = module_with_board(tmp_path, name, data)
    expected = (f"{module}: board 'Eisenbach Sample' has no size to enumerate its hexes: its image cannot be read "
                f"(images/{name}: {reason})")
    run = measured("validate", SAVE, "--module", module, "--profile", WITH_PROFILE[3])
    assert (run.code, run.out) == (2, f"{SAVE}: unreadable: {expected}\n")
    run = measured("resolve", SAVE, "--module", module, "--profile", WITH_PROFILE[3], *FIRE, "-o",
                   tmp_path / "r.vsav")
    assert (run.code, one_line(run)) == (2, f"wawkit: {expected}")
    assert run.peak_mb < SMALL_MB
    assert not (tmp_path / "r.vsav").exists()


@pytest.mark.parametrize("make, expected", [
    # a PNG header of a few bytes claiming a board VASSAL could load: 600,000 hexes took 30 s and 658 MB
    (lambda folder: module_with_board(folder, "board.png", png_header(65535, 32767)),
     "board 'Eisenbach Sample' would have about 604610 hexes (65535 x 32767 pixels in hexes of 56 x 64), over the "
     "100000-hex cap for a board; refused"),
    # the sample's board in hexes one pixel wide (30 s, 600 MB), or a twentieth of one (no end)
    (lambda folder: module_with_grid(folder, "1.0", "1.0"),
     "board 'Eisenbach Sample' would have about 560401 hexes (808 x 688 pixels in hexes of 1 x 1), over the "
     "100000-hex cap for a board; refused"),
    (lambda folder: module_with_grid(folder, "0.05", "0.05"),
     "board 'Eisenbach Sample' would have about 222451369 hexes (808 x 688 pixels in hexes of 0.05 x 0.05), over "
     "the 100000-hex cap for a board; refused"),
    # Java reads NaN and Infinity as doubles (a ValueError and an OverflowError, with tracebacks)
    (lambda folder: module_with_grid(folder, "NaN", "64.0"),
     "HexGrid (line 15): hex size dx=nan dy=64.0 must be positive and finite"),
    (lambda folder: module_with_grid(folder, "Infinity", "64.0"),
     "HexGrid (line 15): hex size dx=inf dy=64.0 must be positive and finite"),
])
def test_a_board_of_too_many_hexes_is_refused_before_enumerating_them(tmp_path: Path, make, expected: str) -> None:
    module = make(tmp_path)
    run = measured("validate", SAVE, "--module", module, "--profile", WITH_PROFILE[3])
    assert (run.code, run.out) == (2, f"{SAVE}: unreadable: {module}: {expected}\n")
    assert run.peak_mb < SMALL_MB
    run = measured("render", SAVE, "--module", module, "--profile", WITH_PROFILE[3], "-o", tmp_path / "p.png")
    assert (run.code, one_line(run)) == (2, f"wawkit: {module}: {expected}")
    assert not (tmp_path / "p.png").exists()


def test_a_picture_over_the_pixel_cap_is_drawn_without_its_board_around_its_units(tmp_path: Path) -> None:
    module = module_with_board(tmp_path, "board.png", png_header(9000, 9000))  # 81 Mpx, a few bytes
    code, out, err = cli("render", SAVE, *WITH_PROFILE[:1], module, *WITH_PROFILE[2:], "-o", tmp_path / "p.png")
    assert (code, out) == (0, "")
    assert err.splitlines() == ["note: the map is 9000 x 9000 pixels, over the 32000000-pixel cap for a picture; "
                                "drawn without its board images, around its units only", f"wrote {tmp_path / 'p.png'}"]
    # the board drawn from its grid around the units (a few of its 22,480 hexes), under a title band
    assert Image.open(tmp_path / "p.png").size == (1020, 1001)


def test_a_drawn_map_over_the_pixel_cap_is_refused_in_one_line(tmp_path: Path) -> None:
    far = tmp_path / "far.yaml"
    far.write_text("scenario: 1\nunit_types: {a: {name: A}}\nunits: [{key: a, type: a, hex: X}, {key: b, type: a, hex: Y}]\n"
                   "hexes: [{id: X, at: {q: 0, r: 0}}, {id: Y, at: {q: 60000, r: 0}}]\n", encoding="utf-8")
    run = measured("render", far, "-o", tmp_path / "far.png")
    assert (run.code, one_line(run)) == (2, f"wawkit: {far}: the picture would be 5400100 x 3741329 pixels, over the "
                                            "32000000-pixel cap for a picture; nothing drawn")
    assert run.peak_mb < SMALL_MB
    assert not (tmp_path / "far.png").exists()


def test_a_board_picture_that_cannot_be_decoded_is_left_out_with_a_note(tmp_path: Path) -> None:
    broken = png_header(800, 600)[:45]  # the header survives, the pixels do not
    module = module_with_board(tmp_path, "board.png", broken)
    code, out, err = cli("render", SAVE, *WITH_PROFILE[:1], module, *WITH_PROFILE[2:], "-o", tmp_path / "p.png")
    assert (code, out) == (0, "")
    assert err.splitlines() == ["note: board 'Eisenbach Sample': image cannot be decoded: OSError: image file is "
                                "truncated; drawn without its image", f"wrote {tmp_path / 'p.png'}"]


# -- actions files and action fields -------------------------------------------------------------

def laughs(levels: int = 9) -> str:
    """The 'billion laughs' actions file: each level nine aliases of the one before."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghijklmnop"[:levels - 1]:
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = name
    return "\n".join(lines + [f"actions: [*{previous}]"]) + "\n"


@pytest.mark.parametrize("content, message", [
    (laughs(), "offset 3: not valid YAML: anchors and aliases are not allowed (line 1, column 4)"),
    ("- {kind: direct_fire, unit: leopard-c1, target: t-64, weapon: ap, dice: {attack: [2001-02-30]}}\n",
     "actions.yaml: actions[0]: dice.attack: die 1 is '2001-02-30', not a whole number"),
    ("- {kind: direct_fire, unit: leopard-c1, target: t-64, dice: {attack: [" + "9" * 5000 + "]}}\n",
     "offset 70: not valid YAML: an integer of 5000 characters, over the 40-character cap (line 1, column 71)"),
    ("- {kind: direct_fire, unit: leopard-c1, target: t-64, weapon: ap, hits: 999999999999999999999}\n",
     "offset 72: not valid YAML: the integer 999999999999999999999 is outside the 64-bit range (line 1, column 73)"),
    ("- {kind: direct_fire, unit: leopard-c1, target: t-64, weapon: ap, hits: -5}\n",
     "actions.yaml: actions[0]: hits=-5 is outside 0..81 (one hit per die rolled, TUS §6.1)"),
    ("- {kind: direct_fire, unit: leopard-c1, target: t-64, weapon: ap, dice: {attack: [4, 7]}}\n",
     "actions.yaml: actions[0]: dice.attack: die 2 is 7, not a face of a d6 (TUS §6.1)"),
    ("- !!python/object:os.system {kind: los}\n",
     "offset 2: not valid YAML: explicit tags (tag:yaml.org,2002:python/object:os.system) are not allowed "
     "(line 1, column 3)"),
])
def test_hostile_actions_files_are_one_line_and_exit_2(tmp_path: Path, content: str, message: str) -> None:
    actions = tmp_path / "actions.yaml"
    actions.write_text(content, encoding="utf-8")
    run = measured("resolve", SAVE, *WITH_PROFILE, "--actions", actions, "--seed", "1", "-o", tmp_path / "r.vsav")
    line = one_line(run)
    assert run.code == 2 and line.startswith(f"wawkit: {actions}: ") and line.endswith(message), line
    assert run.peak_mb < SMALL_MB
    assert sorted(p.name for p in tmp_path.iterdir()) == ["actions.yaml"]


@pytest.mark.parametrize("action, message", [
    ("fire leopard-c1 t-64 ap hits=999999999999999999999",
     "hits=(a 21-digit number) is outside 0..81 (one hit per die rolled, TUS §6.1)"),
    ("fire leopard-c1 t-64 ap hits=-5", "hits=-5 is outside 0..81 (one hit per die rolled, TUS §6.1)"),
    ("fire leopard-c1 t-64 ap hits=82", "hits=82 is outside 0..81 (one hit per die rolled, TUS §6.1)"),
    ("fire leopard-c1 t-64 ap count=100", "count=100 is outside 0..99 (a handful of missions, formations or maps)"),
    ("move leopard-c1 " + "C7 " * 201, "path lists 201 entries, over the 200 allowed"),
])
def test_action_numbers_are_bounded_by_the_rules(tmp_path: Path, action: str, message: str) -> None:
    code, out, err = cli("resolve", SAVE, *WITH_PROFILE, "--action", action, "--seed", "1", "-o", tmp_path / "r.vsav")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.rstrip("\n").endswith(message), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("dice, message", [
    ("9" * 5000, "--dice '" + "9" * 60 + "': expected numbers separated by commas"),
    ("2001-02-30", "--dice '2001-02-30': expected numbers separated by commas"),
    ("4,0,5", "--dice: die 2 is 0, not a face of a d6 (TUS §6.1)"),
    (",".join(["4"] * 1001), "--dice gives 1001 dice, over the 1000 allowed"),
])
def test_given_dice_are_faces_of_the_d6(tmp_path: Path, dice: str, message: str) -> None:
    code, out, err = cli("resolve", SAVE, *WITH_PROFILE, "--action", "fire leopard-c1 t-64 ap", "--dice", dice,
                         "-o", tmp_path / "r.vsav")
    assert (code, out, err) == (2, "", f"wawkit: {message}\n")


def test_hits_at_the_bound_are_resolved(tmp_path: Path) -> None:
    code, out, err = cli("resolve", SAVE, *WITH_PROFILE, "--action", "fire leopard-c1 t-64 ap hits=81",
                         "--seed", "1", "-o", tmp_path / "r.vsav")
    assert code == 0, err
    assert out.splitlines()[-1] == ("  result: Leopard C1 is Ops Complete; T-64 is Disrupted; T-64 is Reduced; "
                                    "T-64 is eliminated; Wrecks marker placed in F6")


# -- files that are not files, and files larger than they should be ------------------------------

def test_devices_pipes_and_sparse_files_are_refused_before_reading(tmp_path: Path) -> None:
    sparse = tmp_path / "buildFile"
    with open(sparse, "wb") as handle:
        handle.truncate(3 << 30)  # 3 GiB that occupy no disk
    pipe = tmp_path / "profile.yaml"
    os.mkfifo(pipe)
    cases = [
        (["inspect-module", "/dev/zero"], "wawkit: /dev/zero: is a character device, not a file; refused"),
        (["inspect", "/dev/zero"], "wawkit: /dev/zero: is a character device, not a file; refused"),
        (["inspect-module", sparse], f"wawkit: {sparse}: is 3221225472 bytes, over the 33554432-byte cap"),
        (["inspect", pipe], f"wawkit: {pipe}: is a named pipe, not a file; refused"),
        (["encode", pipe, "-o", tmp_path / "x.vsav"], f"wawkit: {pipe}: is a named pipe, not a file; refused"),
        (["verify", "/dev/zero"], "wawkit: /dev/zero: is a character device, not a file; refused"),
        (["cases", "/dev/zero"], "wawkit: /dev/zero: is a character device, not a file; refused"),
    ]
    for args, line in cases:
        run = measured(*args)
        assert (run.code, one_line(run)) == (2, line), args
        assert run.peak_mb < SMALL_MB, (args, run.peak_mb)
    for profile in ("/dev/zero", pipe):
        run = measured("validate", SAVE, "--module", WITH_PROFILE[1], "--profile", profile)
        kind = "a character device" if profile == "/dev/zero" else "a named pipe"
        assert (run.code, run.out) == (2, f"{SAVE}: unreadable: {profile}: is {kind}, not a file; refused\n")
        assert run.peak_mb < SMALL_MB
    # resolve: every file it is given, each in its turn
    module, profile, output = WITH_PROFILE[1], WITH_PROFILE[3], tmp_path / "r.vsav"
    zero = "wawkit: /dev/zero: is a character device, not a file; refused"
    for args, line in [
        (["/dev/zero", "--module", module, "--profile", profile, *FIRE], zero),
        ([SAVE, "--module", "/dev/zero", "--profile", profile, *FIRE], zero),
        ([SAVE, "--module", module, "--profile", "/dev/zero", *FIRE], zero),
        ([SAVE, "--module", module, "--profile", profile, "--actions", "/dev/zero"], zero),
        ([SAVE, "--module", sparse, "--profile", profile, *FIRE], f"wawkit: {sparse}: is 3221225472 bytes, over the "
                                                                   "33554432-byte cap"),
    ]:
        run = measured("resolve", *args, "-o", output)
        assert (run.code, one_line(run)) == (2, line), args
        assert run.peak_mb < SMALL_MB, (args, run.peak_mb)
        assert not output.exists()


def test_a_one_megabyte_save_holding_a_gibibyte_is_refused_from_its_header(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.vsav"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("savedGame", "w", force_zip64=True) as stream:
            block = b"0" * (1 << 20)
            for _ in range(1024):
                stream.write(block)
    assert bomb.stat().st_size < 1_100_000
    run = measured("validate", bomb)
    assert (run.code, run.out) == (2, f"{bomb}: unreadable: entry savedGame: declares 1073741824 bytes "
                                      "uncompressed, over the 134217728-byte cap\n")
    assert run.peak_mb < SMALL_MB


def test_an_entry_whose_header_lies_about_its_size_is_refused() -> None:
    payload = b"CHAT" + b"0" * (8 << 20)
    data = bytearray(zipped([("savedGame", payload)]))
    # Both copies of the header claim 100 bytes: inflation stops there and the CRC check fails.
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(signature)
        data[at + offset:at + offset + 4] = (100).to_bytes(4, "little")
    with pytest.raises(ContainerError, match=r"^lie.vsav: entry savedGame: offset 0: cannot inflate entry: "
                                             r"Bad CRC-32 for file 'savedGame'$"):
        read_container(bytes(data), file="lie.vsav")


def test_an_entry_compressed_past_the_ratio_cap_is_refused_from_its_header() -> None:
    data = zipped([("savedGame", b"CHAT" + b"0" * (8 << 20))])
    compressed = zipfile.ZipFile(__import__("io").BytesIO(data)).getinfo("savedGame").compress_size
    with pytest.raises(LimitExceeded, match=rf"^z.vsav: entry savedGame: declares 8388612 bytes from {compressed} "
                                            r"compressed, over the 200:1 compression cap$"):
        read_container(data, file="z.vsav")
    assert len(read_container(data, limits=Limits(max_compression_ratio=1100)).plaintext) == 8388612


def lzma_save(dictionary: int) -> bytes:
    """A save whose savedGame is stored with LZMA, its stream asking for a ``dictionary``-byte dictionary."""
    data = bytearray(zipped([("savedGame", obfuscate(b"CHAThello", Obfuscation("vcsk", key=7)))], zipfile.ZIP_LZMA))
    start = 30 + len("savedGame") + 4 + 1      # local header, name, LZMA SDK version and properties size, lc/lp/pb
    data[start:start + 4] = dictionary.to_bytes(4, "little")
    return bytes(data)


def test_an_lzma_entry_asking_for_a_huge_dictionary_is_refused_before_inflating() -> None:
    """From the fuzzer (fuzz/crashes/container/d5101d9214849bb4.bin): a flipped byte of an LZMA
    entry's properties asked for a 3.6 GB dictionary, a MemoryError under the fuzzer's memory cap."""
    with pytest.raises(LimitExceeded, match=r"^l.vsav: entry savedGame: offset 0: its LZMA stream asks for a "
                                            r"3598712832-byte dictionary, over the 134217728-byte cap \(max_entry_size\)$"):
        read_container(lzma_save(3_598_712_832), file="l.vsav")
    at_cap = lzma_save(1 << 20)
    assert read_container(at_cap, limits=Limits(max_entry_size=1 << 20)).plaintext == b"CHAThello"
    with pytest.raises(LimitExceeded, match=r"asks for a 1048576-byte dictionary, over the 1048575-byte cap"):
        read_container(at_cap, limits=Limits(max_entry_size=(1 << 20) - 1))


def test_the_total_is_checked_over_every_entry_before_any_is_inflated(monkeypatch: pytest.MonkeyPatch) -> None:
    data = zipped([("savedGame", obfuscate(b"CHATx", "vcsk"))] + [(f"e{i}", b"\0" * 100_000) for i in range(5)])
    inflated: list[str] = []
    real = container._read_entry
    monkeypatch.setattr(container, "_read_entry", lambda a, info, f, l: inflated.append(info.filename) or real(
        a, info, f, l))
    with pytest.raises(LimitExceeded, match=r"^t.vsav: declares 500\d\d\d bytes uncompressed in all \(6 entries\), "
                                            r"over the 499999-byte cap$"):
        read_container(data, file="t.vsav", limits=Limits(max_total_size=499_999))
    assert inflated == []


def million_commands(path: Path, count: int = 1_000_000) -> Path:
    """A save of ``count`` tiny AddPiece commands (about five megabytes zipped)."""
    import random
    from converter.vassal.container import new_container
    rng = random.Random(14)
    body = b"".join(b"\x1b+/%d/%x/%x" % (i, rng.getrandbits(32), rng.getrandbits(16)) for i in range(count))
    path.write_bytes(new_container(b"begin_save" + body + b"\x1bend_save", "vcsk").to_bytes())
    return path


def test_a_save_of_a_million_commands_is_refused_before_building_them(tmp_path: Path) -> None:
    save = million_commands(tmp_path / "million.vsav")
    for command in ("inspect", "validate", "pieces"):
        run = measured(command, save)
        line = (f"{save}: entry savedGame: 22755833 characters in 1000002 commands would need about 3190 MiB "
                "to decode, over the 400 MiB cap (max_memory)")
        assert run.code == 2, run.err
        assert (one_line(run) if command != "validate" else run.out.rstrip("\n")) == (
            f"wawkit: {line}" if command != "validate" else f"{save}: unreadable: {line.split(': ', 1)[1]}")
        assert run.peak_mb < 300, (command, run.peak_mb)  # the file, its entry and its plaintext


# -- duplicate zip entries ---------------------------------------------------------------------

def test_two_entries_of_one_name_are_refused_in_saves_and_modules(tmp_path: Path) -> None:
    save = tmp_path / "two.vsav"
    key = Obfuscation("vcsk", key=0x2A)  # a fixed key: a random one changes the deflated size, and the offsets
    save.write_bytes(zipped([("savedGame", obfuscate(b"CHATfirst", key)), ("savedGame", obfuscate(b"CHATsecond", key))]))
    code, out, err = cli("inspect", save)
    assert (code, out) == (2, "")
    assert err == (f"wawkit: {save}: entry savedGame: offset 66: has two zip entries named 'savedGame' (at offsets 0 "
                   "and 66); refused, as VASSAL would read only one of them\n")
    with zipfile.ZipFile(WITH_PROFILE[1]) as source:
        build = source.read("buildFile.xml")
    module = tmp_path / "two.vmod"
    module.write_bytes(zipped([("buildFile.xml", build), ("moduledata", b"<data/>"), ("buildFile.xml", build)]))
    offset = len(zipped([("buildFile.xml", build), ("moduledata", b"<data/>")]).split(b"PK\x01\x02")[0])
    for command in (["inspect-module", module], ["resolve", SAVE, "--module", module, "--profile", WITH_PROFILE[3],
                                                 *FIRE, "-o", tmp_path / "r.vsav"]):
        code, out, err = cli(*command)
        assert (code, out) == (2, "")
        assert err == (f"wawkit: {module}: entry buildFile.xml: offset {offset}: has two zip entries named "
                       f"'buildFile.xml' (at offsets 0 and {offset}); refused, as VASSAL would read only one of them\n")
    assert not (tmp_path / "r.vsav").exists()
    with pytest.raises(ContainerError, match="has two zip entries named 'savedGame'"):
        read_container(save.read_bytes())


def test_a_piece_that_cannot_be_decoded_is_named_with_its_file(tmp_path: Path) -> None:
    from converter.vassal.container import new_container
    save = tmp_path / "bad.vsav"
    save.write_bytes(new_container(b"begin_save\x1b+/1/abc/def\x1bend_save", "vcsk").to_bytes())
    for command in ("inspect", "pieces"):
        assert cli(command, save) == (2, "", f"wawkit: {save}: piece 1: trait chain ends in UnknownTrait, not a "
                                             "BasicPiece, Stack or Deck\n")
