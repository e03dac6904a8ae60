"""Hex geometry agrees with VASSAL's own HexGrid classes (Vengine.jar), run under Java.

A harness builds a ``HexGrid`` with each corpus grid's ``dx``, ``dy`` and ``sideways``
and answers the range between pixel centres; the same pairs are counted with
:meth:`Hex.distance`. The restated formula used by ``test_hexes.py`` is checked here
against the real class, including on a stretched grid where VASSAL overcounts.
A second harness asks ``HexGridNumbering`` (ascending numbering, each grid's stagger)
where hex (column, row) is, and which hex a pixel is in, to pin down how
:class:`HexLayout` maps VASSAL's numbering and its sideways grids.
"""
from __future__ import annotations

from referee.hexes import Hex
from tests.interop.engine import run_java
from tests.test_hexes import VassalGrid, _raw_hex, corpus_grids


HARNESS = r"""
import VASSAL.build.module.map.boardPicker.board.HexGrid;
import java.awt.Point;
import java.io.*;

public class HexRangeHarness {
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.trim().split(" ");
      HexGrid grid = new HexGrid(Double.parseDouble(f[1]), Double.parseDouble(f[2]), false);
      grid.setSideways(f[0].equals("1"));
      Point a = new Point(Integer.parseInt(f[3]), Integer.parseInt(f[4]));
      Point b = new Point(Integer.parseInt(f[5]), Integer.parseInt(f[6]));
      out.append(grid.range(a, b)).append('\n');
    }
    System.out.print(out);
  }
}
"""

CELLS = [(line, place) for line in range(12) for place in range(12)]


def test_range_matches_vassal_hexgrid_under_java() -> None:
    stretched = VassalGrid("constructed", False, 64.0, 64.0, 0, 0, False)
    requests: list[str] = []
    ours: list[int] = []
    restated: list[int] = []
    for grid in [*corpus_grids(), stretched]:
        layout = grid.layout()
        for line1, place1 in CELLS[::11]:
            a, p1 = _raw_hex(layout, grid, line1, place1), grid.raw_center(line1, place1)
            for line2, place2 in CELLS:
                p2 = grid.raw_center(line2, place2)
                requests.append(f"{int(grid.sideways)} {grid.dy!r} {grid.dx!r} {p1[0]} {p1[1]} {p2[0]} {p2[1]}")
                ours.append(a.distance(_raw_hex(layout, grid, line2, place2)))
                restated.append(grid.range(p1, p2))
    result = run_java(HARNESS, "HexRangeHarness", [], stdin=("\n".join(requests) + "\n").encode())
    vassal = [int(value) for value in result.stdout.decode().split()]
    per_grid = len(CELLS[::11]) * len(CELLS)
    assert len(vassal) == len(requests) == 11 * per_grid == 22176
    assert vassal == restated
    # Every corpus grid: VASSAL's range is the rules' hex count.
    assert vassal[:10 * per_grid] == ours[:10 * per_grid]
    # The square-stretched grid: VASSAL and the hex count part ways on some pairs.
    differing = sum(v != o for v, o in zip(vassal[10 * per_grid:], ours[10 * per_grid:]))
    assert differing == 722


NUMBERING_HARNESS = r"""
import VASSAL.build.module.map.boardPicker.board.HexGrid;
import VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering;
import java.awt.Point;
import java.io.*;

public class HexNumberingHarness {
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.trim().split(" ");
      HexGrid grid = new HexGrid(Double.parseDouble(f[1]), Double.parseDouble(f[2]), false);
      grid.setSideways(f[0].equals("1"));
      grid.setOrigin(new Point(Integer.parseInt(f[3]), Integer.parseInt(f[4])));
      HexGridNumbering numbering = new HexGridNumbering();
      numbering.setAttribute("stagger", f[5]);
      numbering.addTo(grid);
      for (int column = 0; column < 10; column++) {
        for (int row = 0; row < 10; row++) {
          Point p = numbering.getCenterPoint(column, row);
          out.append(p.x).append(' ').append(p.y).append(' ')
             .append(numbering.getColumn(p)).append(' ').append(numbering.getRow(p)).append('\n');
        }
      }
    }
    System.out.print(out);
  }
}
"""


def test_offsets_match_vassal_hexgridnumbering_under_java() -> None:
    grids = corpus_grids()
    requests = [f"{int(g.sideways)} {g.dy!r} {g.dx!r} {g.x0} {g.y0} {str(g.stagger).lower()}" for g in grids]
    result = run_java(NUMBERING_HARNESS, "HexNumberingHarness", [], stdin=("\n".join(requests) + "\n").encode())
    answers = [tuple(int(v) for v in line.split()) for line in result.stdout.decode().splitlines()]
    assert len(answers) == 100 * len(grids)
    mismatches = []
    for index, grid in enumerate(grids):
        layout = grid.layout()
        for k, (x, y, column, row) in enumerate(answers[100 * index:100 * (index + 1)]):
            # VASSAL numbers a sideways grid's lines as columns: our (col, row) is its (row, column).
            offset = (k // 10, k % 10) if not grid.sideways else (k % 10, k // 10)
            assert (column, row) == (k // 10, k % 10)
            hex_ = Hex.from_offset(*offset, layout)
            cx, cy = layout.center(hex_)
            if abs(cx - x) >= 1 or abs(cy - y) >= 1 or layout.hex_at(x, y) != hex_:
                mismatches.append((grid.source, offset, (x, y), (cx, cy)))
    assert mismatches == []
