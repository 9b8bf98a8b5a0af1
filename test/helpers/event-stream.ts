/**
 * Reads a live event stream (GET /api/v1/events) the way a browser's EventSource reads it: frame
 * by frame, comments kept apart.
 */
export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

/** Reads Server-Sent Event frames off a response body. */
export class FrameReader {
  private readonly reader: { read(): Promise<{ value?: Uint8Array; done: boolean }>; cancel(): Promise<void> };
  private readonly decoder = new TextDecoder();
  private buffer = '';

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  async next(): Promise<Frame> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const text = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const frame: Frame = {};
        for (const line of text.split('\n')) {
          if (line.startsWith(':')) frame.comment = line.slice(1).trim();
          else {
            const colon = line.indexOf(':');
            (frame as Record<string, string>)[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
          }
        }
        return frame;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error('the stream ended');
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** The next frame that is an event (comments skipped). */
  async event(): Promise<Frame> {
    for (;;) {
      const frame = await this.next();
      if (frame.event !== undefined) return frame;
    }
  }

  /** Every frame up to the end of the stream. */
  async rest(): Promise<Frame[]> {
    const frames: Frame[] = [];
    for (;;) {
      try {
        frames.push(await this.next());
      } catch (err) {
        if ((err as Error).message === 'the stream ended') return frames;
        throw err;
      }
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel();
  }
}

/** Opens GET /api/v1/events on an app with these headers; checks it is a stream and reads its `retry:` frame. */
export async function openEvents(
  app: { handle(request: Request): Promise<Response> },
  headers: Record<string, string>,
  query = '',
): Promise<FrameReader> {
  const res = await app.handle(new Request(`http://localhost/api/v1/events${query}`, { headers }));
  if (res.status !== 200) throw new Error(`GET /events answered ${res.status}: ${await res.text()}`);
  const reader = new FrameReader(res);
  const first = await reader.next();
  if (first.retry !== '2000') throw new Error(`the stream began with ${JSON.stringify(first)}`);
  return reader;
}
