/**
 * Statements of one transaction sent without waiting for each other (pipelined: PostgreSQL runs
 * them in the order sent, on the transaction's connection), some of them steps of several
 * statements. Resolves once every step has settled, so none sends a statement after the
 * transaction is over; then throws the failure that tells why: the statement that failed, not
 * one refused after it because the transaction was already aborted (which may settle first).
 */
export async function pipelined(steps: readonly unknown[]): Promise<void> {
  const failures: unknown[] = [];
  await Promise.all(steps.map((step) => Promise.resolve(step).catch((err) => failures.push(err))));
  if (failures.length > 0) throw failures.find((err) => !refusedAsAborted(err)) ?? failures[0];
}

/** PostgreSQL's 25P02: a statement refused because an earlier one of its transaction failed. */
function refusedAsAborted(err: unknown): boolean {
  const { errno, code } = (err ?? {}) as { errno?: unknown; code?: unknown };
  return errno === '25P02' || code === '25P02';
}
