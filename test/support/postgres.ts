/**
 * A real PostgreSQL for the store's contract tests: `initdb` and `pg_ctl` (Debian's `postgresql`
 * package; .ci/run installs it) into a temp folder, listening on a free loopback port only, trust
 * authentication for a `tollbooth` superuser. PostgreSQL refuses to run as root, so as root the
 * folder belongs to the `postgres` user and the commands run as it (runuser). Durability is off
 * (fsync, full-page writes): a test server keeps nothing.
 *
 * `postgresUnavailable()` says why no server can be started here (tests then skip with that
 * reason, printed); CI installs the package, so there it never skips.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onFreshPort } from "./ports.ts";

export interface TestPostgres {
  /** postgres://tollbooth@127.0.0.1:PORT/postgres */
  readonly url: string;
  /** A fresh, empty database on this server; its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

function binDir(): string | undefined {
  const onPath = spawnSync("sh", ["-c", "command -v pg_ctl"], { encoding: "utf8" }).stdout.trim();
  if (onPath) return join(onPath, "..");
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin/pg_ctl"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

const asRoot = process.getuid?.() === 0;

/** Why PostgreSQL cannot be started here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  if (!binDir()) return "PostgreSQL is not installed (no pg_ctl on PATH or in /usr/lib/postgresql/*/bin): apt-get install postgresql, as .ci/run does";
  if (asRoot && spawnSync("id", ["-u", "postgres"]).status !== 0) return "running as root but there is no postgres user to run PostgreSQL as";
  return undefined;
}

function run(bin: string, command: string, args: string[]): void {
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]] : [join(bin, command), args];
  execFileSync(file, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
}

export async function startPostgres(): Promise<TestPostgres> {
  const reason = postgresUnavailable();
  if (reason) throw new Error(reason);
  const bin = binDir()!;
  const dir = mkdtempSync(join(tmpdir(), "tb-pg-"));
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  run(bin, "initdb", ["-D", data, "-U", "tollbooth", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"]);
  // The port is probed right before the start (initdb takes seconds), and probed again if it was taken meanwhile.
  const port = await onFreshPort(async (port) => {
    const settings = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${dir}`, "-c fsync=off", "-c full_page_writes=off", "-c synchronous_commit=off", "-c max_connections=60"];
    const log = join(dir, `server-${port}.log`);
    try {
      run(bin, "pg_ctl", ["-D", data, "-l", log, "-o", settings.join(" "), "-w", "-t", "60", "start"]);
    } catch (error) {
      // pg_ctl says only "could not start server"; why (e.g. "Address already in use") is in the server's log.
      const reason = existsSync(log) ? readFileSync(log, "utf8") : "";
      throw new Error(`PostgreSQL did not start on port ${port}: ${(error as Error).message}\n${reason}`);
    }
    return port;
  });
  const url = `postgres://tollbooth@127.0.0.1:${port}/postgres`;
  const { default: postgres } = await import("postgres");
  return {
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name} is not a plain identifier`);
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://tollbooth@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      try {
        run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
