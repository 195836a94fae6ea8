/** src/logs/patterns.ts: the built-in table, templates and the operator's extension file. @see issue 16 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diagnoseLog } from "../../src/logs/diagnose.ts";
import { builtinPatterns, fillTemplate, loadPatternFile, PatternFileError, patternTable } from "../../src/logs/patterns.ts";

const dir = mkdtempSync(join(tmpdir(), "tollbooth-patterns-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

describe("logs/patterns", () => {
  it("ships a valid table covering every family the issue names", () => {
    const families = new Set(builtinPatterns().map((e) => e.family));
    for (const family of ["npm", "typescript", "python", "go", "rust", "java", "docker", "github-actions", "missing-tool", "memory"]) {
      expect(families.has(family)).toBe(true);
    }
    const ids = builtinPatterns().map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("fills capture groups and drops optional segments whose groups are all empty", () => {
    expect(fillTemplate("make stopped[[: `{1}{3}` failed]][[ (Error {2})]].", [undefined, undefined, "2", undefined])).toBe("make stopped (Error 2).");
    expect(fillTemplate("missing `{1}{2}`", ["x", undefined, "jq"])).toBe("missing `jq`");
  });

  it("loads a good extension file whose entries come first and may replace a built-in by id", () => {
    const path = file("good.json", {
      patterns: [
        { id: "acme.flaky-db", family: "database", regex: "ACME-DB-(\\d+): connection pool exhausted", root_cause: "The ACME database pool {1} is exhausted.", fix_steps: ["Raise ACME_POOL_SIZE."], weight: 0.97 },
        { id: "memory.js-heap", family: "memory", regex: "JavaScript heap out of memory", root_cause: "Our builds need 8 GiB of heap.", fix_steps: ["Use the large runner."] },
      ],
    });
    const extra = loadPatternFile(path);
    expect(extra.map((e) => e.id)).toEqual(["acme.flaky-db", "memory.js-heap"]);
    const table = patternTable(extra);
    expect(table[0]?.id).toBe("acme.flaky-db");
    expect(table.filter((e) => e.id === "memory.js-heap")).toHaveLength(1);
    expect(table.find((e) => e.id === "memory.js-heap")?.root_cause).toBe("Our builds need 8 GiB of heap.");

    const log = ["$ ./integration", "connecting", "ERROR ACME-DB-7: connection pool exhausted", 'The command "./integration" exited with 1.'].join("\n");
    const withExtra = diagnoseLog(log, { extraPatterns: extra });
    expect(withExtra.family).toBe("database");
    expect(withExtra.root_cause).toBe("The ACME database pool 7 is exhausted.");
    expect(diagnoseLog(log).family).not.toBe("database");
  });

  it("rejects a bad file and names every bad entry: schema errors, a broken regex, a repeated id", () => {
    const path = file("bad.json", {
      patterns: [
        { id: "ok.one", family: "x", regex: "fine", root_cause: "r", fix_steps: ["s"] },
        { id: "Bad Id", family: "x", regex: "x", root_cause: "r", fix_steps: ["s"] },
        { id: "no.steps", family: "x", regex: "x", root_cause: "r", fix_steps: [] },
        { id: "bad.regex", family: "x", regex: "(unclosed", root_cause: "r", fix_steps: ["s"] },
        { id: "ok.one", family: "x", regex: "again", root_cause: "r", fix_steps: ["s"] },
        { id: "global.flag", family: "x", regex: "x", flags: "g", root_cause: "r", fix_steps: ["s"] },
        { id: "extra.field", family: "x", regex: "x", root_cause: "r", fix_steps: ["s"], surprise: true },
      ],
    });
    let error: unknown;
    try {
      loadPatternFile(path);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PatternFileError);
    const problems = (error as PatternFileError).problems.join("\n");
    expect(problems).toContain('entry 1 (id "Bad Id"): /id');
    expect(problems).toContain('entry 2 (id "no.steps"): /fix_steps');
    expect(problems).toContain('entry 3 (id "bad.regex"): /regex is not a valid regular expression');
    expect(problems).toContain('entry 4 (id "ok.one"): the id is used twice');
    expect(problems).toContain('entry 5 (id "global.flag"): /flags');
    expect(problems).toContain('entry 6 (id "extra.field")');
    expect(problems).not.toContain("entry 0");
    expect((error as Error).message).toContain(path);
  });

  it("rejects a file that is not JSON or not a table", () => {
    expect(() => loadPatternFile(file("broken.json", "{ patterns: ["))).toThrow(/cannot be read as JSON/);
    expect(() => loadPatternFile(file("list.json", [{ id: "x" }]))).toThrow(/must be a JSON object \{"patterns"/);
    expect(() => loadPatternFile(join(dir, "absent.json"))).toThrow(PatternFileError);
  });
});
