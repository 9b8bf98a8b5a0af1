/**
 * A small load generator for the multi-node tests: N concurrent loops of GET redirects (through
 * the balancer, or any base), each answer kept with its status, Location, the node that served it
 * (X-Served-By, set by the test balancer) and when it was sent and received. Every fourth loop
 * sends a bot's user agent (curl), the others a browser's, so bot hits and clicks both flow.
 * A request that fails outright (no HTTP answer) is kept with status 0 and its error.
 */

export const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
export const BOT = 'curl/8.4.0';

export interface Answer {
  status: number;
  location: string | null;
  /** The balancer's X-Served-By: the node that answered. */
  servedBy: string | null;
  bot: boolean;
  /** Epoch ms when the request was sent and when its answer was read. */
  sentAt: number;
  at: number;
  /** Why there was no HTTP answer (status 0). */
  error?: string;
}

/** One request; never throws. */
export async function hit(url: string, bot = false): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { 'user-agent': bot ? BOT : BROWSER },
      signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    return {
      status: res.status,
      location: res.headers.get('location'),
      servedBy: res.headers.get('x-served-by'),
      bot,
      sentAt,
      at: Date.now(),
    };
  } catch (err) {
    return { status: 0, location: null, servedBy: null, bot, sentAt, at: Date.now(), error: String(err) };
  }
}

export interface Load {
  /** Every answer so far, in the order they came. */
  readonly answers: Answer[];
  /** Waits until at least `n` answers more than when it was called have come (or 60 s). */
  more(n: number): Promise<void>;
  /** Stops the loops after their request in flight; answers every answer. */
  stop(): Promise<Answer[]>;
}

export interface LoadOptions {
  concurrency: number;
  /**
   * Pause of each loop after each answer (default 0: as fast as the answers come). Loops that
   * never pause make the box's two cores the limit and every process waits on the others.
   */
  pauseMs?: number;
}

/** Starts `concurrency` loops requesting `url` one request after another until stop(). */
export function startLoad(url: string, { concurrency, pauseMs = 0 }: LoadOptions): Load {
  const answers: Answer[] = [];
  let stopped = false;
  const loops = Array.from({ length: concurrency }, async (_, i) => {
    while (!stopped) {
      answers.push(await hit(url, i % 4 === 3));
      if (pauseMs > 0) await Bun.sleep(pauseMs);
    }
  });
  return {
    answers,
    async more(n) {
      const want = answers.length + n;
      const deadline = Date.now() + 60_000;
      while (answers.length < want && Date.now() < deadline) await Bun.sleep(10);
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return answers;
    },
  };
}

/**
 * Exactly `n` requests, at most `concurrency` at a time; answers them in the order they came.
 * `url` may depend on the request's index (spread over nodes' own ports: `(i) => bases[i % 3] + path`).
 */
export async function burst(url: string | ((i: number) => string), n: number, concurrency: number): Promise<Answer[]> {
  const urlOf = typeof url === 'string' ? () => url : url;
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        answers.push(await hit(urlOf(i), i % 4 === 3));
      }
    }),
  );
  return answers;
}

/** How many answers had each status, and each node's share: for assertions that print well when they fail. */
export function tally(answers: readonly Answer[]): {
  statuses: Record<string, number>;
  byNode: Record<string, number>;
  bots: number;
} {
  const statuses: Record<string, number> = {};
  const byNode: Record<string, number> = {};
  let bots = 0;
  for (const a of answers) {
    statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    const node = a.servedBy ?? 'none';
    byNode[node] = (byNode[node] ?? 0) + 1;
    if (a.bot && a.status === 302) bots++;
  }
  return { statuses, byNode, bots };
}
