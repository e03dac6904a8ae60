"""javafmt agrees with the JDK: ``Double.toString``, float widening, ``String.hashCode`` and
``HashMap`` iteration order, on seeded random inputs (one Java run answers them all).

``java_double`` writes the shortest digits, as ``Double.toString`` does since JDK 19. Older
JDKs (this machine has 17) print more digits for whole numbers from 1e16 to 1e19 and for the
smallest subnormal; those values never occur in piece data (scales, angles, opacities), so the
comparison leaves them out on a JDK older than 19 and checks them for reading back the same.
"""
from __future__ import annotations

import random
import struct

from converter.vassal.javafmt import java_double, java_float_as_double, java_hashmap_order, java_string_hash
from tests.interop.engine import run_java

HARNESS = r"""
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class JavaFmtHarness {
  static String unhex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return new String(b, StandardCharsets.UTF_8);
  }
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.split(" ", -1);
      switch (f[0]) {
        case "D": out.println(Double.toString(Double.longBitsToDouble(Long.parseUnsignedLong(f[1], 16)))); break;
        case "F": out.println(Double.toString((double) Float.intBitsToFloat(Integer.parseUnsignedInt(f[1], 16))));
                  break;
        case "H": out.println(unhex(f[1]).hashCode()); break;
        default:
          HashMap<String, String> map = new HashMap<>();
          for (int i = 1; i < f.length; i++) map.put(unhex(f[i]), "");
          out.println(String.join(" ", map.keySet().stream().map(k -> {
            StringBuilder sb = new StringBuilder();
            for (byte x : k.getBytes(StandardCharsets.UTF_8)) sb.append(String.format("%02x", x));
            return sb.toString();
          }).toArray(String[]::new)));
      }
    }
  }
}
"""

VERSION = r"""
public class JavaVersion {
  public static void main(String[] args) { System.out.println(Runtime.version().feature()); }
}
"""

KEYS = ["UniqueID", "OldX", "OldY", "OldMap", "OldBoard", "OldZone", "OldLocationName", "OldDeckName", "ClickedX",
        "ClickedY", "ParentID", "CloneID", "OldMat", "OldMatID", "PieceId", "Moved", "Step", "Side", "é", "\ue000"]


def _hex(text: str) -> str:
    return text.encode("utf-8").hex()


def _random_double(rng: random.Random) -> float:
    kind = rng.randrange(4)
    if kind == 0:
        return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    if kind == 1:
        return rng.uniform(-1e8, 1e8)
    if kind == 2:
        return round(rng.uniform(-500, 500), rng.randrange(4))
    return rng.choice([1e-3, 9.999e-4, 1e7, 9999999.999, 0.1, 1 / 3, 2.0 ** -1074, 1.7976931348623157e308])


def _old_jdk_extra_digits(value: float) -> bool:
    """Values for which JDK < 19 prints a longer (still exact) form than the shortest one."""
    return value == 5e-324 or value == -5e-324 or 1e16 <= abs(value) < 1e19


def test_javafmt_agrees_with_the_jdk() -> None:
    version = run_java(VERSION, "JavaVersion", []).stdout.decode().strip()
    rng = random.Random(20261130)
    requests: list[str] = []
    expected: list[str] = []
    longer: list[tuple[int, float]] = []
    for _ in range(3000):
        value = _random_double(rng)
        if int(version) < 19 and _old_jdk_extra_digits(value):
            longer.append((len(requests), value))
        requests.append("D " + format(struct.unpack("<Q", struct.pack("<d", value))[0], "x"))
        expected.append(java_double(value))
    for _ in range(500):
        bits = rng.getrandbits(32)
        widened = java_float_as_double(struct.unpack("<f", struct.pack("<I", bits))[0])
        if widened != widened:
            continue  # NaN bit patterns
        if int(version) < 19 and _old_jdk_extra_digits(widened):
            longer.append((len(requests), widened))
        requests.append("F " + format(bits, "x"))
        expected.append(java_double(widened))
    for _ in range(300):
        text = "".join(rng.choice("aZ09 _;\té\ue000\U0001F600") for _ in range(rng.randrange(12)))
        requests.append("H " + _hex(text))
        expected.append(str(java_string_hash(text)))
    for _ in range(300):
        keys = [rng.choice(KEYS) + str(rng.randrange(3) or "") for _ in range(rng.randrange(1, 30))]
        requests.append(" ".join(["M", *(_hex(k) for k in keys)]))
        expected.append(" ".join(_hex(k) for k in java_hashmap_order(keys)))
    result = run_java(HARNESS, "JavaFmtHarness", [], stdin=("\n".join(requests) + "\n").encode())
    answers = result.stdout.decode("utf-8").split("\n")[:-1]
    assert len(answers) == len(requests)
    for index, value in longer:
        assert float(answers[index]) == value
        expected[index] = answers[index]
    mismatches = [(req, exp, got) for req, exp, got in zip(requests, expected, answers) if exp != got]
    assert mismatches[:5] == []
    assert len(requests) - len(longer) > 3900
