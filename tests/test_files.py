"""The bounded reader every input goes through: regular files only, the size checked before
reading and while reading, the bytes hashed as read."""
from __future__ import annotations

import hashlib
import os
import socket
import stat
from pathlib import Path

import pytest

from converter.errors import LimitExceeded, SchemaError
from converter.files import InputFileError, digest_of_read, head, read_bounded, sha256_of


def test_a_file_at_the_cap_is_read_and_one_byte_over_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"x" * 100)
    path.chmod(0o640)
    snapshot = read_bounded(path, 100)
    assert (snapshot.data, snapshot.sha256, snapshot.mode) == (b"x" * 100, hashlib.sha256(b"x" * 100).hexdigest(),
                                                              0o640)
    assert digest_of_read(path) == snapshot.sha256
    with pytest.raises(LimitExceeded, match=rf"^{path}: is 100 bytes, over the 99-byte cap$"):
        read_bounded(path, 99)
    with pytest.raises(SchemaError, match=rf"^{path}: is 100 bytes, over the 99-byte cap$"):
        read_bounded(path, 99, error=SchemaError, too_large=SchemaError)


def test_what_is_not_a_regular_file_is_refused_by_kind(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(tmp_path / "sock"))
    try:
        for path, kind in ((pipe, "a named pipe"), (tmp_path / "sock", "a socket"), (tmp_path, "a folder"),
                           (Path("/dev/zero"), "a character device")):
            with pytest.raises(InputFileError, match=rf"^{path}: is {kind}, not a file; refused$"):
                read_bounded(path, 1 << 20)
            assert head(path, 10) == b""
    finally:
        listening.close()
    with pytest.raises(InputFileError, match=rf"^{tmp_path / 'none'}: cannot read: No such file or directory$"):
        read_bounded(tmp_path / "none", 10)


def test_a_sparse_file_is_refused_from_its_size_without_reading(tmp_path: Path) -> None:
    sparse = tmp_path / "sparse"
    with open(sparse, "wb") as handle:
        handle.truncate(1 << 40)  # a terabyte that occupies no disk
    with pytest.raises(LimitExceeded, match=r"is 1099511627776 bytes, over the 1048576-byte cap$"):
        read_bounded(sparse, 1 << 20)


def test_a_file_that_grows_while_it_is_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "grows"
    path.write_bytes(b"x" * 10)
    real_fstat = os.fstat

    def small(fd: int) -> os.stat_result:  # the size reported when opened, before another writer appends
        info = real_fstat(fd)
        if stat.S_ISREG(info.st_mode):
            path.write_bytes(b"x" * 50)
            return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid, info.st_gid,
                                   10, info.st_atime, info.st_mtime, info.st_ctime))
        return info
    monkeypatch.setattr(os, "fstat", small)
    with pytest.raises(LimitExceeded, match=rf"^{path}: grew past the 20-byte cap while being read$"):
        read_bounded(path, 20)


def test_sha256_of_streams_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abc" * 1_000_000)
    assert sha256_of(path) == hashlib.sha256(b"abc" * 1_000_000).hexdigest()
    with pytest.raises(InputFileError, match=r"^/dev/zero: is a character device, not a file; refused$"):
        sha256_of("/dev/zero")
