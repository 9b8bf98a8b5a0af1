/** CPU time of a running process's threads, read from /proc (Linux), for the benchmarks. */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time a process's threads have used, in microseconds: the main thread, Worker threads, the rest (GC, JIT, I/O, Bun's thread pool). */
export interface CpuUse {
  main: number;
  worker: number;
  other: number;
}

const TICK_US =
  1e6 / Number(Bun.spawnSync(['getconf', 'CLK_TCK'], { stdout: 'pipe' }).stdout.toString().trim() || '100');

export function cpuUse(pid: number): CpuUse {
  const use: CpuUse = { main: 0, worker: 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // "tid (comm) state ppid ...": utime and stime are the 14th and 15th fields.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const us = (Number(fields[11]) + Number(fields[12])) * TICK_US;
    if (Number(tid) === pid) use.main += us;
    else if (comm === 'Worker') use.worker += us;
    else use.other += us;
  }
  return use;
}
