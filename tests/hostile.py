"""Helpers for the hostile-input and concurrent-writer tests: hostile files, and a runner that
measures a command's peak memory in its own process."""
from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SAVE, MODULE, PROFILE = SAMPLES / "demo.vsav", SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml"
WITH_PROFILE = ["--module", str(MODULE), "--profile", str(PROFILE)]

#: Runs one wawkit command as a child and reports its exit code, output and peak memory
#: (the child's maximum resident set, from getrusage: this runner has no other child).
_MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, timeout=300)
print(json.dumps({"code": done.returncode, "out": done.stdout.decode("utf-8", "replace"),
                  "err": done.stderr.decode("utf-8", "replace"),
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""
_WAWKIT = "import sys; from converter.cli import main; sys.argv[0] = 'wawkit'; main()"


@dataclass
class Run:
    code: int
    out: str
    err: str
    peak_mb: float


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def measured(*args: str | Path, cwd: Path | None = None, timeout: float = 240) -> Run:
    """Run ``wawkit ARGS`` in a fresh process; its exit code, stdout, stderr and peak memory (MB)."""
    command = [sys.executable, "-c", _MEASURE, sys.executable, "-c", _WAWKIT, *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, env=child_env(), cwd=cwd, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return Run(**json.loads(done.stdout))


def one_line(run: Run) -> str:
    """The single line a refused command prints on stderr (asserting it is one line)."""
    assert run.err.count("\n") == 1 and run.err.startswith("wawkit: "), run.err
    return run.err.rstrip("\n")


def png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` pixels, with a tiny image body."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def tiff_claiming_samples(samples: int) -> bytes:
    """A 12 x 9 RGB TIFF whose SamplesPerPixel tag claims ``samples``."""
    from PIL import Image
    out = io.BytesIO()
    Image.new("RGB", (12, 9), 3).save(out, "TIFF")
    data = bytearray(out.getvalue())
    directory = struct.unpack_from("<I", data, 4)[0]
    for index in range(struct.unpack_from("<H", data, directory)[0]):
        at = directory + 2 + 12 * index
        if struct.unpack_from("<H", data, at)[0] == 277:  # SamplesPerPixel, a SHORT held in the entry
            struct.pack_into("<H", data, at + 8, samples)
    return bytes(data)


def _sample_module_rewritten(target: Path, entry: Callable[[str, bytes], tuple[str, bytes] | None]) -> Path:
    """The sample module written to ``target`` with each entry passed through ``entry``
    (name, bytes) -> (name, bytes), or None to keep it as it is."""
    with zipfile.ZipFile(MODULE) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            body = source.read(info)
            out.writestr(*(entry(info.filename, body) or (info.filename, body)))
    return target


def module_with_board(folder: Path, image_name: str, image: bytes, name: str = "hostile.vmod") -> Path:
    """The sample module with its main board's image replaced by ``image`` (named ``image_name``)."""
    def entry(filename: str, body: bytes) -> tuple[str, bytes] | None:
        if filename == "buildFile.xml":
            return filename, body.replace(b'image="board.png"', f'image="{image_name}"'.encode())
        if filename == "images/board.png":
            return "images/" + image_name, image
        return None
    return _sample_module_rewritten(folder / name, entry)


def module_with_grid(folder: Path, dx: str, dy: str, name: str = "grid.vmod") -> Path:
    """The sample module with its main board's HexGrid cells ``dx`` x ``dy`` pixels (56.0 x 64.0)."""
    def entry(filename: str, body: bytes) -> tuple[str, bytes] | None:
        if filename != "buildFile.xml":
            return None
        assert body.count(b'dx="56.0" dy="64.0"') == 1
        return filename, body.replace(b'dx="56.0" dy="64.0"', f'dx="{dx}" dy="{dy}"'.encode())
    return _sample_module_rewritten(folder / name, entry)


def zipped(entries: list[tuple[str, bytes]], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of the entries in order (a name may repeat: zipfile warns, and writes it)."""
    import warnings
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(buffer, "w", compression) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()
