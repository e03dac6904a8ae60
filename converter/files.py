"""Opening a file wawkit was given: one bounded, checked read for every kind of input.

Every file may come from a stranger, and a path may name something that is not a file
at all: ``/dev/zero`` never ends, a named pipe blocks the reader forever, a sparse file
claims gigabytes it never stored. So every input -- saves, logs, modules, buildFiles,
YAML/JSON documents, actions files, audit records, text given to ``encode`` -- is opened
here, and only here:

* the file is opened without blocking and without becoming a controlling terminal, and
  anything but a regular file (a device, a pipe, a socket, a folder) is refused;
* its size is checked against the caller's cap *before* a byte is read, and the read
  itself stops one byte past the cap, so a file that grows while it is read is refused
  too;
* the bytes read are hashed as they are read, so an audit record names exactly the
  bytes the command used (:class:`Snapshot`), not the file as it is a moment later.

Refusals are typed errors (the caller chooses the class: a document's is a
``SchemaError``, a save's a ``ContainerError``) that name the file, and the CLI turns
them into one line and exit code 2.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

from converter.errors import LimitExceeded, WawkitError

_CHUNK = 1 << 20

#: What a path names when it is not a regular file, as the refusal says it.
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))


class InputFileError(WawkitError):
    """A path that names no readable regular file (missing, a device, a pipe, a folder, unreadable)."""


@dataclass(frozen=True)
class Snapshot:
    """The bytes of a file as one read saw them, with their sha256 and the file's identity."""

    path: str
    data: bytes
    sha256: str
    mode: int
    """Permission bits of the file (``stat.S_IMODE``), kept when the file is rewritten."""


def _open_flags() -> int:
    return os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _kind(mode: int) -> str | None:
    """How a refusal names a file mode that is not a regular file; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str], *, error: type[WawkitError] = InputFileError) -> BinaryIO:
    """A binary file object for ``path``, refusing anything but a regular file before reading.

    Opening never blocks (a named pipe with no writer would otherwise hang the command);
    the descriptor is switched back to blocking once it is known to be a regular file.
    """
    name = str(path)
    try:
        handle = os.open(path, _open_flags())
    except OSError as failure:
        with contextlib.suppress(OSError):  # a socket cannot be opened at all: say what it is
            kind = _kind(os.stat(path).st_mode)
            if kind is not None:
                raise error(f"is {kind}, not a file; refused", file=name) from None
        raise error(f"cannot read: {failure.strerror or failure}", file=name) from None
    try:
        info = os.fstat(handle)
        kind = _kind(info.st_mode)
        if kind is not None:
            raise error(f"is {kind}, not a file; refused", file=name)
        os.set_blocking(handle, True)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def read_bounded(path: str | os.PathLike[str], max_size: int, *, error: type[WawkitError] = InputFileError,
                 too_large: type[WawkitError] = LimitExceeded) -> Snapshot:
    """All bytes of the regular file at ``path``, at most ``max_size`` of them, hashed as read.

    The size is checked from the file's metadata before reading, and again while reading
    (a file can grow, and some file systems report no size); over the cap, ``too_large``
    is raised naming the file and both sizes.
    """
    name = str(path)
    with open_regular(path, error=error) as stream:
        info = os.fstat(stream.fileno())
        if info.st_size > max_size:
            raise too_large(f"is {info.st_size} bytes, over the {max_size}-byte cap", file=name)
        digest = hashlib.sha256()
        chunks = []
        total = 0
        while True:
            try:
                chunk = stream.read(min(_CHUNK, max_size + 1 - total))
            except OSError as failure:
                raise error(f"cannot read: {failure.strerror or failure}", file=name, position=total) from None
            if not chunk:
                break
            total += len(chunk)
            if total > max_size:
                raise too_large(f"grew past the {max_size}-byte cap while being read", file=name)
            digest.update(chunk)
            chunks.append(chunk)
    snapshot = Snapshot(name, b"".join(chunks), digest.hexdigest(), stat.S_IMODE(info.st_mode))
    _READ_DIGESTS[os.path.realpath(path)] = snapshot.sha256
    return snapshot


#: sha256 of the bytes last read from each file (by real path) in this process.
_READ_DIGESTS: dict[str, str] = {}


def digest_of_read(path: str | os.PathLike[str]) -> str | None:
    """The sha256 of the bytes this process last read from ``path`` through :func:`read_bounded`.

    An audit record names its inputs by these digests, so it names the bytes the command
    used even when the file was replaced a moment after it was read; None for a file
    not read here.
    """
    return _READ_DIGESTS.get(os.path.realpath(path))


def sha256_of(path: str | os.PathLike[str], *, error: type[WawkitError] = InputFileError) -> str:
    """The sha256 of a regular file, read in blocks (never whole into memory)."""
    digest = hashlib.sha256()
    with open_regular(path, error=error) as stream:
        for block in iter(lambda: stream.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def head(path: str | os.PathLike[str], size: int) -> bytes:
    """The first ``size`` bytes of a regular file (b"" for anything else), to guess what it is."""
    try:
        with open_regular(path) as stream:
            return stream.read(size)
    except (InputFileError, OSError):
        return b""


__all__ = ["InputFileError", "Snapshot", "digest_of_read", "head", "open_regular", "read_bounded", "sha256_of"]
