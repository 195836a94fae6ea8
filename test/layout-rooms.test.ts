/**
 * Every room of src/ sits in a layer (scripts/layout/rooms.ts, the table in docs/layout.md) and imports
 * only rooms of lower layers (issue 39: the last arrow that ran back up was struck off), so no two rooms
 * import each other, even round about: the folder-level knot is empty.
 */
import { describe, expect, it } from "bun:test";
import { roomArrows } from "../scripts/layout/rooms.ts";

describe("src/ rooms in layers", () => {
  const { backUp, unplaced } = roomArrows();

  it("places every room in a layer (a new folder or front file gets its row in scripts/layout/rooms.ts)", () => {
    expect(unplaced).toEqual([]);
  });

  it("imports downward only", () => {
    expect(backUp).toEqual([]);
  });

  it("keeps feature modules out of the contract: module/ imports no feature room", () => {
    const { backUp: none } = roomArrows(new Map([["module/define.ts", ["capital/board.ts"]]]));
    expect(none).toEqual(["module/define.ts imports capital/board.ts"]);
  });
});
