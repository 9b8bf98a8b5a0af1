/**
 * Statements of one transaction sent without waiting for each other (pipelined: PostgreSQL runs
 * them in the order sent, on the transaction's connection), some of them steps of several
 * statements. Resolves once every step has settled, so none sends a statement after the
 * transaction is over; then throws the failure that came first in time: the statement that
 * failed, not one refused after it because the transaction was already aborted.
 */
export async function pipelined(steps: readonly unknown[]): Promise<void> {
  let failed = false;
  let first: unknown;
  await Promise.all(
    steps.map((step) =>
      Promise.resolve(step).catch((err) => {
        if (failed) return;
        failed = true;
        first = err;
      }),
    ),
  );
  if (failed) throw first;
}
