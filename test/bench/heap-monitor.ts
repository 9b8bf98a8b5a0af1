/**
 * Preloaded into a server by a benchmark (import-serve.ts, HEAP_LOG=file): once a second, the
 * event loop's thread (Bun does not preload Workers) appends the process's RSS, its own
 * JavaScriptCore heap (live and garbage alike until a collection) and its most common object
 * types to HEAP_MONITOR_FILE. When `<file>.gc` exists it is removed and a full collection runs
 * first: what the heap holds then is what the thread keeps. Only for measuring: heapStats walks
 * the heap.
 */
import { heapStats } from 'bun:jsc';
import { appendFileSync, existsSync, rmSync } from 'node:fs';

const file = process.env.HEAP_MONITOR_FILE;
if (file) {
  const started = performance.now();
  const mib = (n: number) => (n / 1048576).toFixed(0);
  const timer = setInterval(() => {
    const collect = existsSync(`${file}.gc`);
    if (collect) {
      rmSync(`${file}.gc`);
      Bun.gc(true);
    }
    const h = heapStats();
    const top = Object.entries(h.objectTypeCounts)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    const at = ((performance.now() - started) / 1000).toFixed(1);
    appendFileSync(
      file,
      `${at} s${collect ? ' after a full collection' : ''}: rss ${mib(process.memoryUsage.rss())} MiB, heap ${mib(h.heapSize)}, capacity ${mib(h.heapCapacity)}, extra ${mib(h.extraMemorySize)}, ${h.objectCount} objects: ${top}\n`,
    );
  }, 1000);
  timer.unref();
}
