/**
 * Raw HTTP over a TCP socket: the request exactly as written (no Host a client library would add,
 * no target it would normalise), for what only a hand-written request can send.
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or the text when it is not JSON. */
  body: any;
}

/**
 * Sends `head` (request line and headers, lines joined with CRLF, without the blank line that
 * ends them) and `body`, and reads the answer until the server closes the connection: send
 * `Connection: close` with HTTP/1.1 (HTTP/1.0 closes by default).
 */
export function rawRequest(port: number, head: string[], body = ''): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head.join('\r\n')}\r\n\r\n${body}`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const data = Buffer.concat(chunks).toString('utf8');
      const split = data.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = data.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const text = data.slice(split + 4);
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]), headers, text, body: parsed });
    });
  });
}
