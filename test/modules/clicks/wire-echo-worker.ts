/**
 * A Worker for wire.test.ts: decodes the slices it is sent as the click writer Worker does
 * (capture/writer-worker.ts `add`) and hands back what it received.
 */
import { serve } from '../../../src/lib/worker-rpc';
import type { WireClick } from '../../../src/modules/clicks/capture/record';
import { decodeSlice, type WireSlice } from '../../../src/modules/clicks/capture/wire';

let received: WireClick[] = [];

const handlers = {
  add(slice: WireSlice): void {
    decodeSlice(slice, received);
  },
  take(): WireClick[] {
    const taken = received;
    received = [];
    return taken;
  },
};
export type EchoHandlers = typeof handlers;

serve(handlers);
