/**
 * This thread's CPU time by named step, for `bench:writer --steps` (test/bench/writer.ts): the
 * PostgreSQL writer marks the end of each step of a batch and a fold, and the benchmark prints
 * the sums per click. Off unless started: a mark is then one comparison. A mark after an await
 * counts the await's own CPU on this thread (Bun.SQL reading and parsing the answer, and anything
 * else the loop ran meanwhile) in the step it names.
 */

let on = false;
let last = 0;
const sums = new Map<string, number>();

function threadCpuUs(): number {
  const use = process.threadCpuUsage();
  return use.user + use.system;
}

/** Starts counting (clearing what was counted), from now. */
export function startSteps(): void {
  on = true;
  sums.clear();
  last = threadCpuUs();
}

/** Stops counting; returns the CPU time of each step since the start, in microseconds. */
export function stopSteps(): Map<string, number> {
  on = false;
  return new Map(sums);
}

/** Counts this thread's CPU time since the last mark (or the start) in `step`. */
export function markStep(step: string): void {
  if (!on) return;
  const now = threadCpuUs();
  sums.set(step, (sums.get(step) ?? 0) + now - last);
  last = now;
}
