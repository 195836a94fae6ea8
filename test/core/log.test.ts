import { describe, expect, it } from "bun:test";
import { createLogger } from "../../src/log.ts";

function capture() {
  const lines: string[] = [];
  return { lines, log: createLogger({ level: "debug", sink: (line) => lines.push(line) }) };
}

describe("log lines", () => {
  it("are one JSON object: time, level, message, the logger's bindings, then the fields", () => {
    const { lines, log } = capture();
    log.child({ plugin: "web.read" }).info('said "hi"', { status: 200, skipped: undefined, nested: { a: [1] } });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(["time", "level", "msg", "plugin", "status", "nested"]);
    expect(line).toMatchObject({ level: "info", msg: 'said "hi"', plugin: "web.read", status: 200, nested: { a: [1] } });
    expect(new Date(String(line.time)).toISOString()).toBe(String(line.time));
  });

  it("never repeat a key: a field named like a binding or a line key replaces it", () => {
    const { lines, log } = capture();
    log.child({ request_id: "req_a" }).warn("x", { request_id: "req_b", level: "custom" });
    expect(lines[0]!.match(/"request_id"/g)).toHaveLength(1);
    expect(lines[0]!.match(/"level"/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ request_id: "req_b", level: "custom", msg: "x" });
  });

  it("keep lines without fields or bindings valid", () => {
    const { lines, log } = capture();
    log.debug("bare");
    log.info("empty", {});
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(["bare", "empty"]);
  });

  it("drop levels below the minimum", () => {
    const lines: string[] = [];
    createLogger({ level: "warn", sink: (line) => lines.push(line) }).info("quiet");
    expect(lines).toHaveLength(0);
  });
});
