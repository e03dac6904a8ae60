"""VASSAL's own engine classes read the save that ``wawkit migrate`` wrote from the C&C
Napoleonics tutorial log: every piece is created from its new PieceSlot, on the map and at
the place wawkit reports (see tests/test_migrate.py for the migration itself).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from converter.migrate import migrate_file
from converter.vassal.module import Module
from converter.vassal.save import SavedGame
from tests.interop.engine import run_java
from tests.test_migrate import BUILDFILE, LOG


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("migrate") / "tutorial-v42.vsav"
    report = migrate_file(LOG, BUILDFILE, out)
    return out, report


HARNESS = r"""
import VASSAL.tools.SequenceEncoder;
import VASSAL.tools.io.DeobfuscatingInputStream;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.zip.*;

public class MigrateHarness {
  static int pieces = 0, stacks = 0, failures = 0;
  static StringBuilder out = new StringBuilder();

  static void piece(String id, String type, String state) {
    int levels = 1;
    while (!type.startsWith("piece;")) {
      SequenceEncoder.Decoder t = new SequenceEncoder.Decoder(type, '\t');
      SequenceEncoder.Decoder s = new SequenceEncoder.Decoder(state, '\t');
      t.nextToken();
      s.nextToken();
      if (!t.hasMoreTokens()) throw new IllegalStateException("no BasicPiece under " + levels + " traits");
      type = t.nextToken();
      state = s.nextToken("");
      levels++;
    }
    SequenceEncoder.Decoder t = new SequenceEncoder.Decoder(type, ';');
    t.nextToken(); t.nextToken(""); t.nextToken(""); t.nextToken("");
    String name = t.nextToken("");
    SequenceEncoder.Decoder s = new SequenceEncoder.Decoder(state, ';');
    String map = s.nextToken("null");
    int x = s.nextInt(0), y = s.nextInt(0);
    String gpid = s.nextToken("");
    pieces++;
    out.append(id).append('\t').append(name).append('\t').append(levels).append('\t')
       .append(map).append('\t').append(x).append(',').append(y).append('\t').append(gpid).append('\n');
  }

  static void visit(String command) {
    if (command.startsWith("+/")) {
      SequenceEncoder.Decoder st = new SequenceEncoder.Decoder(command.substring(2), '/');
      String id = st.nextToken(), type = st.nextToken(), state = st.nextToken("");
      if (type.equals("stack") || type.startsWith("deck;")) { stacks++; return; }
      try {
        piece(id, type, state);
      } catch (RuntimeException e) {
        failures++;
        out.append("FAIL ").append(id).append(' ').append(e).append('\n');
      }
    } else if (command.indexOf((char) 27) >= 0) {
      SequenceEncoder.Decoder st = new SequenceEncoder.Decoder(command, (char) 27);
      while (st.hasMoreTokens()) visit(st.nextToken());
    }
  }

  public static void main(String[] args) throws Exception {
    try (ZipFile zip = new ZipFile(args[0])) {
      InputStream raw = zip.getInputStream(zip.getEntry("savedGame"));
      String text;
      try (InputStream in = new DeobfuscatingInputStream(new BufferedInputStream(raw, 1 << 20))) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      SequenceEncoder.Decoder st = new SequenceEncoder.Decoder(text, (char) 27);
      while (st.hasMoreTokens()) {
        String token = st.nextToken();
        if (token.equals("end_save")) break;
        visit(token);
      }
    }
    System.out.print("pieces=" + pieces + " stacks=" + stacks + " failures=" + failures + "\n" + out);
  }
}
"""


def test_vassal_engine_reads_the_migrated_save(migrated: tuple[Path, object]) -> None:
    out, _report = migrated
    result = run_java(HARNESS, "MigrateHarness", [str(out)])
    lines = result.stdout.decode("utf-8").splitlines()
    assert lines[0] == "pieces=401 stacks=42020 failures=0"
    after = SavedGame.read(out)
    module = Module.read(BUILDFILE)
    gpids = {s.gpid for s in [*module.piece_slots, *module.card_slots]}
    seen = {}
    for line in lines[1:]:
        piece_id, name, levels, map_name, where, gpid = line.split("\t")
        piece = after.piece(piece_id)
        assert (name, int(levels), map_name, where) == (
            piece.basic_name, len(piece), piece.inner.map, f"{piece.inner.x},{piece.inner.y}")
        assert gpid in gpids
        seen[piece_id] = name
    assert sorted(seen) == sorted(pid for pid, e in after.pieces.items() if not (e.is_stack or e.is_deck))
