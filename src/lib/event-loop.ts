/**
 * Resolves on a later turn of the event loop, after what is waiting now (a redirect's request,
 * say) has been answered: long work on the main thread is cut into pieces with it.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
