/**
 * Every command reads its flags and words in any order through one parser (src/cli/args.ts), hands
 * the settings flags to loadConfig, and explains itself with --help.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandHelp, parseCommand, UsageError } from "../../src/cli/args.ts";
import { commands } from "../../src/cli/commands.ts";
import { coreRuns } from "../../src/cli/core-commands.ts";
import { modules } from "../../src/modules.generated.ts";
import { repoRoot } from "../support/binary-build.ts";

const tmp = mkdtempSync(join(tmpdir(), "tb-cli-args-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([process.execPath, join(repoRoot, "src/main.ts"), ...args], { cwd: tmp, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

const spec = (name: string) => commands.get(name)!;
const usageError = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error("expected a UsageError");
};

describe("the command-line parser", () => {
  it("runs every command it parses from one table: the core's runs beside the modules' commands, no name twice, none without a run", () => {
    const moduleNames = modules.flatMap((m) => m.commands ?? []).map((c) => c.spec.name);
    const runnable = [...coreRuns.keys(), ...moduleNames];
    expect(new Set(runnable).size).toBe(runnable.length);
    expect([...commands.keys()].sort()).toEqual(runnable.sort());
  });

  it("reads words and flags in any order, and hands the settings flags on as written", () => {
    const before = parseCommand(spec("backup"), ["--data", "D", "FILE"]);
    const after = parseCommand(spec("backup"), ["FILE", "--data=D"]);
    for (const parsed of [before, after]) {
      expect(parsed.words).toEqual(["FILE"]);
      expect(parsed.configArgv).toEqual(["--data=D"]);
    }
    const tickets = parseCommand(spec("tickets"), ["--title", "T", "add", "--data", "D", "--seats=3", "--unsafe-allow-loopback-targets"]);
    expect(tickets.words).toEqual(["add"]);
    expect(tickets.flags).toEqual({ title: "T", seats: "3" });
    expect(tickets.configArgv).toEqual(["--data=D", "--unsafe-allow-loopback-targets"]);
  });

  it("lets a command's own flag take the name of a setting (read --render is a switch, serve --render takes on|off)", () => {
    expect(parseCommand(spec("read"), ["--render", "https://example.com/"])).toMatchObject({ words: ["https://example.com/"], flags: { render: true }, configArgv: [] });
    expect(parseCommand(spec("serve"), ["--render", "off"]).configArgv).toEqual(["--render=off"]);
  });

  it("passes a setting's switch written with its value to loadConfig unchanged", () => {
    expect(parseCommand(spec("serve"), ["--unsafe-allow-loopback-targets=false"]).configArgv).toEqual(["--unsafe-allow-loopback-targets=false"]);
  });

  it("refuses unknown flags, missing values, extra words and a flag given twice, naming each", () => {
    expect(usageError(() => parseCommand(spec("skills"), ["--bogus"]))).toBe("--bogus: unknown flag");
    expect(usageError(() => parseCommand(spec("pause"), ["--reason"]))).toContain("--reason");
    expect(usageError(() => parseCommand(spec("restore"), ["a", "b"]))).toContain('"b"');
    expect(usageError(() => parseCommand(spec("skills"), ["extra"]))).toContain('"extra"');
    expect(usageError(() => parseCommand(spec("pause"), ["--reason", "a", "--reason", "b"]))).toBe("--reason given twice");
  });

  it("writes a --help for every command that names its words and each of its own flags", () => {
    for (const command of commands.values()) {
      const help = commandHelp(command);
      expect(help).toStartWith(`Usage: tollbooth ${command.name}${command.words ? ` ${command.words}` : ""} [flags]`);
      for (const name of Object.keys(command.flags)) expect(help).toContain(`--${name}`);
    }
  });
});

describe("tollbooth on the command line", () => {
  it("backs up with --data before FILE (it used to fail with \"unexpected argument\") and after it", async () => {
    const data = join(tmp, "data");
    expect((await cli("pause", "--reason", "maintenance", "--data", data)).code).toBe(0);
    const first = await cli("backup", "--data", data, join(tmp, "first.db"));
    expect(first).toMatchObject({ code: 0, err: "" });
    expect(existsSync(join(tmp, "first.db"))).toBe(true);
    expect((await cli("backup", join(tmp, "second.db"), "--data", data)).code).toBe(0);
    expect(existsSync(join(tmp, "second.db"))).toBe(true);
  });

  it("answers --help per command, and refuses a bad command line with exit code 2", async () => {
    const help = await cli("backup", "--help");
    expect(help.code).toBe(0);
    expect(help.out).toStartWith("Usage: tollbooth backup [FILE] [flags]");
    expect((await cli("help", "install")).out).toContain("--dry-run");
    const bad = await cli("quotes", "--limit");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("tollbooth quotes --help");
  });
});
