/** @module web/render/outcome-within — how a promise ends within a time cap, without leaving the timer behind. */

export type OutcomeWithin = "fulfilled" | "rejected" | "late";

/** "fulfilled" or "rejected" when `promise` settles within `ms`, else "late" (the promise is left running). */
export async function outcomeWithin(promise: Promise<unknown>, ms: number): Promise<OutcomeWithin> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    return await Promise.race([promise.then(() => "fulfilled" as const, () => "rejected" as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
