/**
 * A sentence for the page a change leads to, when the change ends on another page than the one
 * it was made on (deleting a link lands on the links list, which says what was deleted). Held in
 * memory and taken once: a reload or a later visit does not say it again.
 */
let waiting: string | null = null;

export function noteForNextPage(text: string): void {
  waiting = text;
}

export function takeNextPageNote(): string | null {
  const text = waiting;
  waiting = null;
  return text;
}
