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

export function createLogger(options: { level?: LogLevel; sink?: LogSink; bindings?: LogFields } = {}): Logger {
  const min = order[options.level ?? "info"];
  const sink = options.sink ?? defaultSink;
  const bindings = options.bindings ?? {};
  const write = (level: LogLevel, message: string, fields?: LogFields) => {
    if (order[level] < min) return;
    sink(JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...bindings, ...fields }), level);
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
