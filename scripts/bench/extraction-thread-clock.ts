/**
 * This thread's CPU time in ms (clock_gettime(CLOCK_THREAD_CPUTIME_ID) through bun:ffi, precise to
 * the nanosecond; process.threadCpuUsage and /proc schedstat move in scheduler ticks here). On a
 * loaded machine, wall time minus this is time spent waiting for a core. NaN where unavailable.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";

const CLOCK_THREAD_CPUTIME_ID = 3;

function load(): (() => number) | undefined {
  try {
    const libc = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    const timespec = new BigInt64Array(2);
    const address = ptr(timespec);
    return () => {
      libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, address);
      return Number(timespec[0]) * 1e3 + Number(timespec[1]) / 1e6;
    };
  } catch {
    return undefined;
  }
}

const clock = load();

export function threadCpuMs(): number {
  return clock ? clock() : Number.NaN;
}
