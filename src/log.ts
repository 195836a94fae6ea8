/**
 * @module log — one JSON object per line on stdout (stderr for errors). Callers pass only
 * what may be kept: never page text, baselines or target URLs (spec web-evidence §1).
 */

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(bindings: LogFields): Logger;
}

export type LogSink = (line: string, level: LogLevel) => void;

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const defaultSink: LogSink = (line, level) => {
  if (level === "error") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
};

const ownKeys = new Set(["time", "level", "msg"]);

let clock = { ms: Number.NaN, iso: "" };
/** The time as ISO text, formatted once per millisecond (a busy server writes many lines in one). */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== clock.ms) clock = { ms, iso: new Date(ms).toISOString() };
  return clock.iso;
}

/** An object's members as JSON text after a comma (`,"a":1,"b":2`), or "" for none. */
function members(fields: LogFields): string {
  const json = JSON.stringify(fields);
  return json.length > 2 ? `,${json.slice(1, -1)}` : "";
}

function repeatsKey(fields: LogFields, taken: ReadonlySet<string>): boolean {
  for (const key in fields) if (taken.has(key)) return true;
  return false;
}

const preformatted = Symbol("JSON members");

/**
 * Fields already written as JSON members (`"a":1,"b":"x"`, no braces), for the line written on
 * every request: the caller builds valid JSON with none of the line's own keys (time, level, msg)
 * nor the logger's bindings. Other loggers see an object without fields.
 */
export function jsonMembers(text: string): LogFields {
  return { [preformatted]: text };
}

export function createLogger(options: { level?: LogLevel; sink?: LogSink; bindings?: LogFields } = {}): Logger {
  const min = order[options.level ?? "info"];
  const sink = options.sink ?? defaultSink;
  const bindings = options.bindings ?? {};
  const boundJson = members(bindings);
  const taken = new Set([...ownKeys, ...Object.keys(bindings)]);
  // Lines are joined as text (no object copy per line); a field that repeats a key falls back to one merged object, so no key appears twice.
  const write = (level: LogLevel, message: string, fields?: LogFields) => {
    if (order[level] < min) return;
    const ready = fields?.[preformatted as unknown as string];
    if (typeof ready === "string") {
      sink(`{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(message)}${boundJson},${ready}}`, level);
      return;
    }
    if (fields && repeatsKey(fields, taken)) {
      sink(JSON.stringify({ time: isoNow(), level, msg: message, ...bindings, ...fields }), level);
      return;
    }
    sink(`{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(message)}${boundJson}${fields ? members(fields) : ""}}`, level);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (more) => createLogger({ level: options.level, sink, bindings: { ...bindings, ...more } }),
  };
}

/** A logger that keeps lines in memory (tests; CLI commands that must stay quiet). */
export function createMemoryLogger(): Logger & { lines: LogFields[] } {
  const lines: LogFields[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => lines.push(JSON.parse(line) as LogFields) });
  return Object.assign(logger, { lines });
}
