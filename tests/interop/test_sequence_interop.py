"""wawkit's SequenceEncoder agrees with VASSAL's own class (Vengine.jar, 3.6 build).

One Java harness reads hex-encoded requests from stdin and answers each: ``E`` encodes
a list of values with ``SequenceEncoder.append(String)``, ``D`` splits a string with
``SequenceEncoder.Decoder``. Inputs are random but seeded, and include the awkward
characters: delimiters, backslashes, quotes, ESC and TAB.
"""
from __future__ import annotations

import random

from converter.vassal.sequence import MODERN, join, split
from tests.interop.engine import run_java

HARNESS = r"""
import VASSAL.tools.SequenceEncoder;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class SeqHarness {
  static String unhex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return new String(b, StandardCharsets.UTF_8);
  }
  static String hex(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte x : s.getBytes(StandardCharsets.UTF_8)) sb.append(String.format("%02x", x));
    return sb.toString();
  }
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.split(" ", -1);
      char delim = unhex(f[1]).charAt(0);
      if (f[0].equals("E")) {
        SequenceEncoder se = new SequenceEncoder(delim);
        for (int i = 2; i < f.length; i++) se.append(unhex(f[i]));
        String v = se.getValue();
        out.println(v == null ? "-" : hex(v));
      } else {
        SequenceEncoder.Decoder d = new SequenceEncoder.Decoder(unhex(f[2]), delim);
        StringBuilder sb = new StringBuilder();
        while (d.hasMoreTokens()) sb.append(' ').append(hex(d.nextToken()));
        out.println(sb.toString().trim().isEmpty() && sb.length() == 0 ? "" : sb.substring(1));
      }
    }
  }
}
"""

ALPHABET = ["a", "b", ";", ",", "\\", "'", "\t", "\x1b", "/", " ", "é", "\ue000"]
DELIMITERS = [";", ",", "\t", "\x1b", "/"]


def _hex(text: str) -> str:
    return text.encode("utf-8").hex()


def _random_text(rng: random.Random, max_len: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(max_len + 1)))


def test_encoder_and_decoder_agree_with_vassal() -> None:
    rng = random.Random(20261130)
    requests: list[str] = []
    expected: list[str] = []
    for _ in range(400):
        delim = rng.choice(DELIMITERS)
        values = [_random_text(rng, 6) for _ in range(rng.randrange(1, 5))]
        requests.append(" ".join(["E", _hex(delim), *(_hex(v) for v in values)]))
        encoded = join(values, delim, MODERN)
        expected.append("-" if encoded is None else _hex(encoded))
    for _ in range(400):
        delim = rng.choice(DELIMITERS)
        text = _random_text(rng, 14)
        requests.append(" ".join(["D", _hex(delim), _hex(text)]))
        expected.append(" ".join(_hex(t) for t in split(text, delim)))
    result = run_java(HARNESS, "SeqHarness", [], stdin=("\n".join(requests) + "\n").encode())
    answers = result.stdout.decode("utf-8").split("\n")[:-1]
    assert len(answers) == len(requests)
    mismatches = [(req, exp, got) for req, exp, got in zip(requests, expected, answers) if exp != got]
    assert mismatches == []
