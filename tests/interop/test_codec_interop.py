"""wawkit's codec agrees with VASSAL's own engine classes (Vengine.jar, a 3.6 build).

* VASSAL's ``DeobfuscatingInputStream`` reads what wawkit obfuscated (``!VCSK``) for
  every corpus save and gets the same plaintext bytes;
* wawkit reads what VASSAL's ``ObfuscatingOutputStream`` wrote;
* VASSAL's ``SequenceEncoder.Decoder`` splits a corpus save's plaintext on ESC into
  the same top-level commands as wawkit's command tree.

One harness program does all three; each run handles many files so the JVM starts
only a few times.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from converter.vassal.container import read_container
from converter.vassal.obfuscation import VCSK, Obfuscation, deobfuscate, obfuscate
from converter.vassal.sequence import ESC, unescape
from tests.interop.engine import run_java
from tests.test_corpus_roundtrip import CORPUS, corpus_saves


HARNESS = r"""
import VASSAL.tools.SequenceEncoder;
import VASSAL.tools.io.DeobfuscatingInputStream;
import VASSAL.tools.io.ObfuscatingOutputStream;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.security.MessageDigest;

public class CodecHarness {
  static String sha(String s) throws Exception {
    byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    StringBuilder sb = new StringBuilder();
    for (byte b : d) sb.append(String.format("%02x", b));
    return sb.toString();
  }
  public static void main(String[] args) throws Exception {
    String mode = args[0];
    for (int i = 1; i + 1 < args.length; i += 2) {
      Path in = Paths.get(args[i]), out = Paths.get(args[i + 1]);
      if (mode.equals("deobfuscate")) {
        try (InputStream s = new DeobfuscatingInputStream(new BufferedInputStream(Files.newInputStream(in), 1 << 20))) {
          Files.write(out, s.readAllBytes());
        }
      } else if (mode.equals("obfuscate")) {
        try (OutputStream s = new ObfuscatingOutputStream(new BufferedOutputStream(Files.newOutputStream(out), 1 << 20))) {
          s.write(Files.readAllBytes(in));
        }
      } else {
        String text = new String(Files.readAllBytes(in), StandardCharsets.UTF_8);
        SequenceEncoder.Decoder d = new SequenceEncoder.Decoder(text, (char) 27);
        StringBuilder sb = new StringBuilder();
        while (d.hasMoreTokens()) sb.append(sha(d.nextToken())).append('\n');
        Files.write(out, sb.toString().getBytes(StandardCharsets.UTF_8));
      }
    }
  }
}
"""

SAVES = corpus_saves()


def _run(mode: str, pairs: list[tuple[Path, Path]]) -> None:
    args = [mode]
    for source, target in pairs:
        args += [str(source), str(target)]
    run_java(HARNESS, "CodecHarness", args)


def test_vassal_reads_what_wawkit_obfuscated(tmp_path: Path) -> None:
    pairs, expected = [], {}
    for index, path in enumerate(SAVES):
        plain = read_container(path).plaintext
        source, target = tmp_path / f"{index}.vcsk", tmp_path / f"{index}.plain"
        source.write_bytes(obfuscate(plain, Obfuscation(VCSK, (index * 37) % 256)))
        pairs.append((source, target))
        expected[target] = plain
    _run("deobfuscate", pairs)
    mismatched = [str(SAVES[i].relative_to(CORPUS)) for i, (_s, t) in enumerate(pairs)
                  if t.read_bytes() != expected[t]]
    assert mismatched == []
    assert len(pairs) == len(SAVES) == 33


def test_wawkit_reads_what_vassal_obfuscated(tmp_path: Path) -> None:
    samples = [b"", b"All jackdaws love my great sphinx of quartz.", bytes(range(256)),
               read_container(CORPUS / "ragnarok-spi" / "ragnarok-start.vsav").plaintext]
    pairs = []
    for index, data in enumerate(samples):
        source = tmp_path / f"{index}.plain"
        source.write_bytes(data)
        pairs.append((source, tmp_path / f"{index}.vcsk"))
    _run("obfuscate", pairs)
    for data, (_source, target) in zip(samples, pairs):
        written = target.read_bytes()
        assert written.startswith(b"!VCSK")
        plain, how = deobfuscate(written)
        assert plain == data
        assert obfuscate(plain, how) == written  # and wawkit re-writes VASSAL's bytes exactly


@pytest.mark.parametrize("name", ["vassal-tour/tour.log", "ragnarok-spi/ragnarok-start.vsav",
                                  "tld-longest-day/logs/0606-1.log",
                                  "vasl-saves-logs/examples/Hill 621 (Scenario E) (online).vsav"])
def test_vassal_splits_top_level_commands_as_wawkit_does(name: str, tmp_path: Path) -> None:
    from converter.vassal.commands import parse
    text = read_container(CORPUS / name).text
    source, target = tmp_path / "plain", tmp_path / "tokens"
    source.write_bytes(text.encode("utf-8"))
    _run("split", [(source, target)])
    vassal = target.read_text(encoding="utf-8").split()
    tree = parse(text)
    assert tree.children is not None and tree.segments is not None
    ours = [hashlib.sha256(unescape(s, ESC).encode("utf-8")).hexdigest() for s in tree.segments]
    assert [hashlib.sha256(c.encode().encode("utf-8")).hexdigest() for c in tree.children] == ours  # a cut node keeps no text: encode() makes it
    assert vassal == ours
    assert len(ours) > 5
