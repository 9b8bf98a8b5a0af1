/**
 * The limit of this box for the redirect benchmark: a bare Bun.serve that answers 302 from an
 * in-memory Map of the same slugs Slink serves, and records nothing.
 *
 *   bun run test/bench/bare-server.ts <targets.json> <port>
 * targets.json: [[slug, location], ...]
 */
const [file, portArg] = process.argv.slice(2);
if (!file || !portArg) {
  console.error('usage: bare-server.ts <targets.json> <port>');
  process.exit(2);
}
const targets = new Map<string, string>(await Bun.file(file).json());

const server = Bun.serve({
  port: Number(portArg),
  hostname: '127.0.0.1',
  reusePort: false,
  fetch(request) {
    const url = request.url;
    // The path starts after the third slash (scheme://host/...); the slug is its first segment.
    const start = url.indexOf('/', url.indexOf('//') + 2) + 1;
    let end = url.indexOf('/', start);
    if (end < 0) end = url.length;
    const location = targets.get(url.slice(start, end));
    if (location === undefined) {
      // A balancer's health check (bench:cluster puts HAProxy in front).
      // (HTTP/1.0 without a Host header: the URL may be the path alone.)
      if (url.endsWith('/healthz')) return new Response('{"status":"ok"}');
      return new Response('not found', { status: 404 });
    }
    return new Response(null, { status: 302, headers: { location, 'cache-control': 'private, max-age=0' } });
  },
});
console.log(`bare server on ${server.port} with ${targets.size} slugs`);
process.on('SIGTERM', () => {
  server.stop(true);
  process.exit(0);
});
