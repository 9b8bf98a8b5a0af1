/** What the QR codes need: reading a link (links module). */
export type { LinksDeps as QrDeps } from '../links/public';
