"""wawkit's hex and square grids name points exactly as VASSAL's own classes do.

For every HexGrid and SquareGrid in the corpus (board grids, ZonedGrid
backgrounds and zone grids), a Java harness configures VASSAL's ``HexGrid`` /
``SquareGrid`` and their numbering with the buildFile's attributes through
``setAttribute`` (in sorted order, as Xerces hands them over), then answers, for
a few hundred points per grid -- random points and points one pixel either side
of hex corners and edges -- the location name, the snap point and the centre
point ``getLocation`` gives back for the name. wawkit must agree on all of them.

A second harness checks the two JDK behaviours zones and regions rest on:
``java.awt.Polygon.contains`` for every corpus zone, and the iteration order of a
``HashMap<Point, Region>`` (which breaks ties between equidistant regions) for every
corpus RegionGrid.

The first harness names points with the numbering's own ``getRow``/``getColumn``/
``getName`` and ``FormattedString.getText``: ``locationName`` itself only adds the
translation lookup, which needs VASSAL's Swing preferences stack.
"""
from __future__ import annotations

import itertools
import math
import random
from pathlib import Path
from typing import Any

from lxml import etree

from converter.errors import GeometryError
from converter.vassal.grids import (HEX_GRID, HEX_NUMBERING, REGION, REGION_GRID, SQUARE_GRID, SQUARE_NUMBERING, ZONE,
                                    grid_from_element)
from converter.vassal.grids.region import java_hashmap_order
from converter.vassal.grids.zoned import parse_path, polygon_contains
from converter.vassal.module import BOARD, Module
from tests.interop.engine import run_java

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MODULES = ["vassal-tour/tour.mod", "tld-longest-day/buildFile", "ccn-napoleonics/buildFile.xml",
           "ragnarok-spi/buildFile.xml", "hexncounters-template/jzhex-n-counters-template-v12-379.vmod",
           "dreadball/buildFile", "asl-pbs-extension/buildFile.xml", "zxvt-capture-territory/buildFile",
           "paths-of-glory/buildFile.xml"]
#: Container size used for a board whose image is not in the corpus (bare buildFiles).
NOMINAL_SIZE = (2000, 1600)
POINTS_PER_GRID = 300
ZONES_IN_CORPUS = 83
REGION_GRIDS_IN_CORPUS = 63  # with at least one Region

HARNESS = r"""
import VASSAL.build.module.map.boardPicker.board.*;
import VASSAL.build.module.map.boardPicker.board.mapgrid.*;
import java.awt.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class GridHarness {
  static class Box implements GridContainer {
    final Dimension size;
    Box(int w, int h) { size = new Dimension(w, h); }
    public void setGrid(MapGrid g) {}
    public void removeGrid(MapGrid g) {}
    public VASSAL.build.module.map.boardPicker.Board getBoard() { return null; }
    public Dimension getSize() { return size; }
    public boolean contains(Point p) { return true; }
  }
  static class Hex extends HexGrid { void put(GridContainer c) { container = c; } }
  static class Square extends SquareGrid { void put(GridContainer c) { container = c; } }
  interface Named { String name(Point p); }
  static class HexNumbers extends HexGridNumbering implements Named {
    public String name(Point p) { return label(this, getRow(p), getColumn(p)); }
    String label(int row, int col) {
      format.setFormat(locationFormat);
      format.setProperty(GRID_LOCATION, getName(row, col));
      format.setProperty(ROW, getName(row + vOff, vType, vLeading));
      format.setProperty(COLUMN, getName(col + hOff, hType, hLeading));
      return format.getText();
    }
    static String label(HexNumbers n, int row, int col) { return n.label(row, col); }
  }
  static class SquareNumbers extends SquareGridNumbering implements Named {
    public String name(Point p) {
      int row = getRow(p), col = getColumn(p);
      format.setFormat(locationFormat);
      format.setProperty(GRID_LOCATION, getName(row, col));
      format.setProperty(ROW, getName(row + vOff, vType, vLeading));
      format.setProperty(COLUMN, getName(col + hOff, hType, hLeading));
      return format.getText();
    }
  }
  static String unhex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return new String(b, StandardCharsets.UTF_8);
  }
  static String hex(String s) {
    StringBuilder sb = new StringBuilder("x");
    for (byte x : s.getBytes(StandardCharsets.UTF_8)) sb.append(String.format("%02x", x));
    return sb.toString();
  }
  static void configure(VASSAL.build.AbstractConfigurable c, String spec) {
    if (spec.equals("-")) return;
    TreeMap<String, String> sorted = new TreeMap<>();
    for (String kv : spec.split(",")) {
      int eq = kv.indexOf('=');
      sorted.put(kv.substring(0, eq), unhex(kv.substring(eq + 1)));
    }
    for (Map.Entry<String, String> e : sorted.entrySet()) c.setAttribute(e.getKey(), e.getValue());
  }
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    MapGrid grid = null;
    Named numbering = null;
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.split(" ", -1);
      if (f[0].equals("GRID")) {
        Box box = new Box(Integer.parseInt(f[2]), Integer.parseInt(f[3]));
        numbering = null;
        if (f[1].equals("H")) {
          Hex h = new Hex(); h.put(box); configure(h, f[4]);
          if (!f[5].equals("none")) { HexNumbers n = new HexNumbers(); configure(n, f[5]); n.addTo(h); numbering = n; }
          grid = h;
        } else {
          Square s = new Square(); s.put(box); configure(s, f[4]);
          if (!f[5].equals("none")) { SquareNumbers n = new SquareNumbers(); configure(n, f[5]); n.addTo(s); numbering = n; }
          grid = s;
        }
        out.println("ok");
      } else if (f[0].equals("P")) {
        Point p = new Point(Integer.parseInt(f[1]), Integer.parseInt(f[2]));
        Point s = grid.snapTo(p);
        out.println((numbering == null ? "-" : hex(numbering.name(p))) + " " + s.x + " " + s.y);
      } else if (f[0].equals("R")) {
        Point a = new Point(Integer.parseInt(f[1]), Integer.parseInt(f[2]));
        Point b = new Point(Integer.parseInt(f[3]), Integer.parseInt(f[4]));
        out.println(((GeometricGrid) grid).range(a, b));
      } else {
        try {
          Point p = grid.getLocation(unhex(f[1]));
          out.println(p.x + " " + p.y);
        } catch (MapGrid.BadCoords e) {
          out.println("bad");
        }
      }
    }
  }
}
"""


def _attrs(element: Any) -> str:
    if element is None:
        return "none"
    pairs = [f"{key}={value.encode('utf-8').hex()}" for key, value in sorted(element.attrib.items())]
    return ",".join(pairs) or "-"


def _container_size(module: Module, element: Any) -> tuple[int, int]:
    parent = element.getparent()
    if parent.tag == ZONE:
        xs, ys = zip(*parse_path(parent.get("path", "")))
        return max(xs) - min(xs), max(ys) - min(ys)
    board = parent if parent.tag == BOARD else parent.getparent()
    for map_def in module.maps:
        for candidate in map_def.boards:
            if candidate.name == board.get("name") and candidate.size is not None:
                return candidate.size
    return NOMINAL_SIZE


def _probe_points(grid: Any, size: tuple[int, int], rng: random.Random) -> list[tuple[int, int]]:
    width, height = size
    points = [(rng.randrange(-20, width + 20), rng.randrange(-20, height + 20)) for _ in range(POINTS_PER_GRID // 2)]
    while len(points) < POINTS_PER_GRID:
        cx, cy = grid.snap(rng.randrange(0, max(width, 1)), rng.randrange(0, max(height, 1)))
        if grid.kind == "hex":
            radius = 2 * grid.dx / 3
            for angle in range(0, 360, 30):  # corners at 0, 60, ...; edge midpoints between them
                reach = radius if angle % 60 == 0 else grid.dy / 2
                ex = math.cos(math.radians(angle)) * reach
                ey = math.sin(math.radians(angle)) * reach
                if grid.sideways:
                    ex, ey = ey, ex
                for step in (-1, 0, 1):
                    points.append((int(round(cx + ex)) + step, int(round(cy + ey)) + step))
        else:
            for ex, ey in ((grid.dx / 2, 0), (0, grid.dy / 2), (grid.dx / 2, grid.dy / 2)):
                for step in (-1, 0, 1):
                    points.append((int(cx + ex) + step, int(cy + ey) + step))
                    points.append((int(cx - ex) + step, int(cy - ey) + step))
    return points[:POINTS_PER_GRID]


def _cases() -> list[tuple[str, Any, tuple[int, int], Any, Any]]:
    cases = []
    for relative in MODULES:
        module = Module.read(CORPUS / relative)
        for element in module.root.iter(HEX_GRID, SQUARE_GRID):
            numbering_tag = HEX_NUMBERING if element.tag == HEX_GRID else SQUARE_NUMBERING
            numbering = next((c for c in element if c.tag == numbering_tag), None)
            cases.append((f"{relative}:{element.sourceline}", element, _container_size(module, element), numbering,
                          grid_from_element(element)))
    return cases


def _synthetic_cases() -> list[tuple[str, Any, tuple[int, int], Any, Any]]:
    """Every sideways x stagger x descending combination, with snapping variants VASSAL offers."""
    cases = []
    styles = [{"hType": "A", "hOff": "0", "vLeading": "0"}, {"first": "V", "sep": "-", "vType": "A", "hLeading": "2"},
              {"locationFormat": "Hex $row$/$column$", "hOff": "-3", "vOff": "5"}, {"sep": ".", "vLeading": "3"}]
    snapping = [{}, {"edgesLegal": "true"}, {"cornersLegal": "true"}, {"edgesLegal": "true", "cornersLegal": "true"},
                {"snapscale": "3"}]
    index = 0
    for sideways, stagger, v_descend, h_descend in itertools.product(("false", "true"), repeat=4):
        for tag, numbering_tag, geometry in ((HEX_GRID, HEX_NUMBERING, {"dx": "51.3", "dy": "59.0", "x0": "17",
                                                                         "y0": "-9", "sideways": sideways}),
                                             (SQUARE_GRID, SQUARE_NUMBERING, {"dx": "47.5", "dy": "61.0",
                                                                              "x0": "-13", "y0": "30"})):
            element = etree.Element(tag, {**geometry, **snapping[index % len(snapping)]})
            numbering = etree.SubElement(element, numbering_tag, {"stagger": stagger, "vDescend": v_descend,
                                                                  "hDescend": h_descend,
                                                                  **styles[index % len(styles)]})
            index += 1
            cases.append((f"synthetic {etree.tostring(element).decode()}", element, (1500, 1100), numbering,
                          grid_from_element(element)))
    return cases


def test_hex_and_square_grids_agree_with_vassal() -> None:
    rng = random.Random(1130)
    requests: list[str] = []
    expected: list[tuple[str, str]] = []
    counts = {"hex": 0, "square": 0}
    for label, element, size, numbering, grid in _cases() + _synthetic_cases():
        counts[grid.kind] += 1
        kind = "H" if grid.kind == "hex" else "S"
        requests.append(f"GRID {kind} {size[0]} {size[1]} {_attrs(element)} {_attrs(numbering)}")
        expected.append((label, "ok"))
        names = set()
        for x, y in _probe_points(grid, size, rng):
            name = grid.location_name(x, y, size)
            sx, sy = grid.snap(x, y)
            requests.append(f"P {x} {y}")
            expected.append((f"{label} point {x},{y}",
                             f"{'-' if name is None else 'x' + name.encode().hex()} {sx} {sy}"))
            if name is not None:
                names.add(name)
        centres = [grid.snap(rng.randrange(0, size[0]), rng.randrange(0, size[1])) for _ in range(40)]
        for a, b in zip(centres, centres[1:]):
            requests.append(f"R {a[0]} {a[1]} {b[0]} {b[1]}")
            expected.append((f"{label} range {a} {b}", str(grid.range(a, b))))
            if grid.kind == "hex" and abs(grid.dx - grid.dy * math.sqrt(3) / 2) < 0.01:
                assert grid.range(a, b) == grid.hex_at(*a).distance(grid.hex_at(*b)), (label, a, b)
        for name in sorted(names)[:60]:
            try:
                answer = "{} {}".format(*grid.center_point(*grid.numbering.parse(name), size))
            except GeometryError:
                answer = "bad"
            requests.append(f"L {name.encode().hex()}")
            expected.append((f"{label} name {name}", answer))
    assert counts == {"hex": 11 + 16, "square": 22 + 16}
    result = run_java(HARNESS, "GridHarness", [], stdin=("\n".join(requests) + "\n").encode())
    answers = result.stdout.decode("utf-8").split("\n")[:-1]
    assert len(answers) == len(requests)
    mismatches = [(what, ours, theirs) for (what, ours), theirs in zip(expected, answers) if ours != theirs]
    assert mismatches[:10] == []
    assert len(requests) > 10_000


AWT_HARNESS = r"""
import java.awt.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class AwtHarness {
  static int[] ints(String csv) {
    String[] parts = csv.split(",");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) out[i] = Integer.parseInt(parts[i]);
    return out;
  }
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    Polygon polygon = null;
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.split(" ");
      if (f[0].equals("POLY")) {
        int[] xs = ints(f[1]), ys = ints(f[2]);
        polygon = new Polygon(xs, ys, xs.length);
        out.println("ok");
      } else if (f[0].equals("IN")) {
        StringBuilder sb = new StringBuilder();
        int[] xs = ints(f[1]), ys = ints(f[2]);
        for (int i = 0; i < xs.length; i++) sb.append(polygon.contains(new Point(xs[i], ys[i])) ? '1' : '0');
        out.println(sb);
      } else {
        int[] xs = ints(f[1]), ys = ints(f[2]);
        HashMap<Point, Integer> map = new HashMap<>();
        for (int i = 0; i < xs.length; i++) map.put(new Point(xs[i], ys[i]), i);
        StringBuilder sb = new StringBuilder();
        for (Point p : map.keySet()) sb.append(p.x).append(',').append(p.y).append(' ');
        out.println(sb.toString().trim());
      }
    }
  }
}
"""


def test_zone_polygons_and_region_order_agree_with_the_jdk() -> None:
    """Zone.contains is java.awt.Polygon.contains and RegionGrid iterates a HashMap<Point, Region>:
    both are checked against the JDK for every zone and region grid of the corpus."""
    rng = random.Random(30)
    requests: list[str] = []
    expected: list[str] = []
    zones = regions = 0
    for relative in MODULES:
        module = Module.read(CORPUS / relative)
        for element in module.root.iter(ZONE):
            polygon = parse_path(element.get("path", ""))
            if len(polygon) < 3:
                continue
            zones += 1
            xs, ys = zip(*polygon)
            requests.append(f"POLY {','.join(map(str, xs))} {','.join(map(str, ys))}")
            expected.append("ok")
            points = [(x + dx, y + dy) for x, y in polygon for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
            points += [(rng.randrange(min(xs) - 5, max(xs) + 6), rng.randrange(min(ys) - 5, max(ys) + 6))
                       for _ in range(200)]
            requests.append("IN " + ",".join(str(p[0]) for p in points) + " " + ",".join(str(p[1]) for p in points))
            expected.append("".join("1" if polygon_contains(polygon, *p) else "0" for p in points))
        for grid_element in module.root.iter(REGION_GRID):
            origins = [(int(r.get("originx", "0")), int(r.get("originy", "0"))) for r in grid_element
                       if r.tag == REGION]
            if not origins:
                continue
            regions += 1
            requests.append("MAP " + ",".join(str(p[0]) for p in origins) + " " + ",".join(str(p[1]) for p in origins))
            expected.append(" ".join(f"{x},{y}" for x, y in java_hashmap_order(origins)))
    assert (zones, regions) == (ZONES_IN_CORPUS, REGION_GRIDS_IN_CORPUS)
    result = run_java(AWT_HARNESS, "AwtHarness", [], stdin=("\n".join(requests) + "\n").encode())
    answers = result.stdout.decode("utf-8").split("\n")[:-1]
    assert len(answers) == len(requests)
    assert [(r[:60], e, a) for r, e, a in zip(requests, expected, answers) if e != a] == []
