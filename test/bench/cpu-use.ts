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

/** CPU time of a running process's threads by thread name (comm), in microseconds: where "the rest" goes. */
export function cpuByThread(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = Number(tid) === pid ? '(main)' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    byName.set(comm, (byName.get(comm) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_US);
  }
  return byName;
}

/** utime + stime of one process (all its threads), and cutime + cstime (its children it waited for), in microseconds. */
function processCpu(pid: number): { own: number; reaped: number; ppid: number } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // gone
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    ppid: Number(fields[1]),
    own: (Number(fields[11]) + Number(fields[12])) * TICK_US,
    reaped: (Number(fields[13]) + Number(fields[14])) * TICK_US,
  };
}

/**
 * CPU time of a process and all its descendants, in microseconds: PostgreSQL's postmaster and its
 * backends and workers. Children that exited count through the parent's cutime/cstime (the
 * postmaster waits for every child it starts), those alive through their own utime/stime.
 */
export function treeCpuUs(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const cpu = processCpu(pid);
    if (!cpu) continue;
    children.set(cpu.ppid, [...(children.get(cpu.ppid) ?? []), pid]);
  }
  let total = 0;
  const visit = (pid: number) => {
    const cpu = processCpu(pid);
    if (!cpu) return;
    total += cpu.own + cpu.reaped;
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return total;
}
