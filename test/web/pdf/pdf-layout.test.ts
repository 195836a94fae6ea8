import { describe, expect, it } from "bun:test";
import { type LayoutLine, orderLinesByColumns } from "../../../src/web/pdf/pdf-layout.ts";

// Synthetic pages in points, y downwards: 10-point lines on a 12-point leading.
const HEIGHT = 10;
const LEADING = 12;

interface Placed extends LayoutLine {
  name: string;
}

/** A column's lines: `count` lines from `top`, each `width` wide (or `widths[i]`). */
function column(name: string, x: number, top: number, count: number, width: number | number[], block = 0): Placed[] {
  return Array.from({ length: count }, (_, i) => {
    const w = Array.isArray(width) ? (width[i % width.length] as number) : width;
    return { name: `${name}${i + 1}`, x0: x, y0: top + i * LEADING, x1: x + w, y1: top + i * LEADING + HEIGHT, block };
  });
}

function line(name: string, x0: number, y0: number, x1: number, block = 0, height = HEIGHT): Placed {
  return { name, x0, y0, x1, y1: y0 + height, block };
}

/** Lines drawn row by row, the way mupdf reports a block that spans the columns. */
function interleave(...columns: Placed[][]): Placed[] {
  const out: Placed[] = [];
  for (let row = 0; row < Math.max(...columns.map((c) => c.length)); row++) {
    for (const c of columns) if (c[row]) out.push(c[row] as Placed);
  }
  return out;
}

function read(lines: Placed[], rightToLeft = false): string[][] | undefined {
  return orderLinesByColumns(lines, { rightToLeft })?.map((run) => run.map((i) => (lines[i] as Placed).name));
}

const names = (lines: Placed[]): string[] => lines.map((l) => l.name);

describe("orderLinesByColumns", () => {
  it("reads two interleaved columns one after the other", () => {
    const left = column("L", 50, 100, 8, 230);
    const right = column("R", 304, 100, 8, 230);
    expect(read(interleave(left, right))).toEqual([names(left), names(right)]);
  });

  it("puts a full-width title first by its position, wherever it was drawn", () => {
    const left = column("L", 50, 100, 6, 230);
    const right = column("R", 304, 100, 6, 230);
    const title = line("title", 50, 70, 484, 1, 16);
    expect(read([...interleave(left, right), title])).toEqual([["title"], names(left), names(right)]);
  });

  it("reads three columns, and a heading across them splits them into bands", () => {
    const top = [0, 1, 2].map((k) => column(`T${k}`, 40 + k * 180, 100, 4, 160));
    const bottom = [0, 1, 2].map((k) => column(`B${k}`, 40 + k * 180, 170, 4, 160));
    const heading = line("heading", 40, 152, 520);
    const lines = [...interleave(...top), ...interleave(...bottom), heading];
    expect(read(lines)).toEqual([...top.map(names), ["heading"], ...bottom.map(names)]);
  });

  it("keeps a heading across two of three columns in place within those two", () => {
    const first = column("A", 40, 100, 10, 160);
    const second = column("B", 220, 100, 4, 160);
    const third = column("C", 400, 100, 4, 160);
    const heading = line("heading", 220, 150, 560);
    const secondLow = column("b", 220, 166, 4, 160);
    const thirdLow = column("c", 400, 166, 4, 160);
    const lines = [...interleave(first, second, third), heading, ...interleave(secondLow, thirdLow)];
    expect(read(lines)).toEqual([names(first), names(second), names(third), ["heading"], names(secondLow), names(thirdLow)]);
  });

  it("reads columns right to left when asked (Arabic, Hebrew)", () => {
    const left = column("L", 50, 100, 5, 230);
    const right = column("R", 304, 100, 5, 230);
    expect(read(interleave(left, right), true)).toEqual([names(right), names(left)]);
  });

  it("finds the gutter past a page number sitting in it below the columns", () => {
    const left = column("L", 50, 100, 8, 230);
    const right = column("R", 290, 100, 8, 230);
    const number = line("7", 282, 220, 288);
    expect(read([...interleave(left, right), number])?.flat()).toEqual([...names(left), ...names(right), "7"]);
  });

  it("returns undefined when mupdf's order already reads column by column", () => {
    const left = column("L", 50, 100, 8, 230, 0);
    const right = column("R", 304, 100, 8, 230, 1);
    expect(read([...left, ...right])).toBeUndefined();
  });

  it("keeps the order given when it reads column after column, but for a header placed beside the title", () => {
    const title = line("title", 50, 40, 200, 0, 16);
    const header = line("header", 330, 44, 480, 0);
    const left = column("L", 50, 100, 20, 230, 1);
    const right = column("R", 304, 100, 20, 230, 2);
    // The header (above the right column) is given before the title: a reordering would move it, not fix it.
    expect(read([header, title, ...left, ...right])).toBeUndefined();
  });

  it("leaves a single column alone, ragged or indented", () => {
    const ragged = column("P", 50, 100, 20, [480, 470, 300, 480, 120, 460, 475]);
    const indented = [...column("p", 50, 100, 5, 480), ...column("q", 90, 160, 5, 400), ...column("r", 50, 220, 5, 480)];
    expect(read(interleave(ragged))).toBeUndefined();
    expect(read(indented)).toBeUndefined();
  });

  it("keeps the rows of a table whose first column holds short labels", () => {
    const labels = column("label", 50, 100, 8, [30, 55, 40, 45]);
    const values = column("value", 170, 100, 8, [180, 160, 190, 175]);
    expect(read(interleave(labels, values))).toBeUndefined();
  });

  it("does not split at a gap narrower than the gutter minimum", () => {
    const left = column("L", 50, 100, 8, 230);
    const right = column("R", 285, 100, 8, 230); // 5 points apart: two fragments of one line, not columns
    expect(read(interleave(left, right))).toBeUndefined();
  });

  it("does not read two lines beside two lines as columns", () => {
    const title = line("title", 50, 70, 484, 1, 16);
    const left = column("L", 50, 100, 2, 230);
    const right = column("R", 304, 100, 2, 230);
    expect(read([title, ...interleave(left, right)])).toBeUndefined();
  });

  it("keeps mupdf's order when fewer lines sit in columns than cross the gutter (prose around tables)", () => {
    const prose = column("P", 50, 60, 5, 484);
    const labels = column("label", 50, 124, 8, 40);
    const values = column("value", 300, 124, 8, 200);
    const more = column("Q", 50, 224, 5, 484);
    const cellsLeft = column("a", 50, 288, 3, 200);
    const cellsRight = column("b", 300, 288, 3, 230);
    expect(read([...prose, ...interleave(labels, values), ...more, ...interleave(cellsLeft, cellsRight)])).toBeUndefined();
  });

  it("is deterministic and returns every line exactly once", () => {
    const top = [0, 1, 2].map((k) => column(`T${k}`, 40 + k * 180, 100, 6, [160, 150, 158]));
    const lines = [line("title", 40, 60, 520, 1, 20), ...interleave(...top), line("footer", 250, 800, 330, 2)];
    const first = orderLinesByColumns(lines);
    expect(first).toEqual(orderLinesByColumns(lines));
    expect(first?.flat().sort((a, b) => a - b)).toEqual(lines.map((_, i) => i));
  });
});
