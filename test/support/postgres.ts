/**
 * A real PostgreSQL for the store's contract tests: `initdb` and `pg_ctl` (Debian's `postgresql`
 * package; .ci/run installs it) into a temp folder, listening on a free loopback port only, trust
 * authentication for a `tollbooth` superuser. PostgreSQL refuses to run as root, so as root the
 * folder belongs to the `postgres` user and the commands run as it (runuser). Durability is off
 * (fsync, full-page writes): a test server keeps nothing.
 *
 * Whether one can be started here is test/support/requirements.ts's "postgres" requirement.
 *
 * `npm test` (scripts/test.ts) starts one server for the whole run and names it in
 * TOLLBOOTH_TEST_POSTGRES_URL: a test file then gets that server (each file's databases named apart)
 * instead of paying initdb and a start of its own.
 */
import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onFreshPort } from "./ports.ts";
import { postgresBin } from "./requirements.ts";

export interface TestPostgres {
  /** postgres://tollbooth@127.0.0.1:PORT/postgres */
  readonly url: string;
  /** A fresh, empty database on this server; its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function run(bin: string, command: string, args: string[]): void {
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]] : [join(bin, command), args];
  execFileSync(file, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
}

/** The variable scripts/test.ts names the run's server in. */
export const RUN_POSTGRES_VARIABLE = "TOLLBOOTH_TEST_POSTGRES_URL";

/** The run's server when scripts/test.ts started one, else a server of this file's own. */
export async function startPostgres(): Promise<TestPostgres> {
  const runServer = process.env[RUN_POSTGRES_VARIABLE];
  return runServer ? onServer(runServer, async () => {}) : startOwnPostgres();
}

/**
 * `maxConnections`: the run's server holds every file's pools one after another, and those a file leaves open.
 * `removeInBackground`: once the server has stopped, its folder is removed by a detached `rm -rf` that
 * outlives this process. The run's server ends with every file's databases in it (857 MB and 7.7 s of
 * removal for 18 files of test/store-contract; 43 s after a whole run on a loaded machine), which
 * nobody needs to wait for.
 */
export async function startOwnPostgres(options: { maxConnections?: number; removeInBackground?: boolean } = {}): Promise<TestPostgres> {
  const bin = postgresBin();
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
    const settings = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${dir}`, "-c fsync=off", "-c full_page_writes=off", "-c synchronous_commit=off", `-c max_connections=${options.maxConnections ?? 60}`];
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
  return onServer(`postgres://tollbooth@127.0.0.1:${port}/postgres`, async () => {
    try {
      run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    } finally {
      if (options.removeInBackground) spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" }).unref();
      else rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** Databases on the server at `url`, named apart from other files' (a suffix of this module's own). */
function onServer(url: string, stop: () => Promise<void>): TestPostgres {
  const suffix = Math.random().toString(36).slice(2, 8);
  return {
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name} is not a plain identifier`);
      const database = `${name}_${suffix}`;
      const { default: postgres } = await import("postgres");
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`CREATE DATABASE ${database}`);
      } finally {
        await admin.end();
      }
      const created = new URL(url);
      created.pathname = `/${database}`;
      return created.toString();
    },
    stop,
  };
}
