/**
 * Whether the process `pid` runs on this machine: signal 0 checks without sending anything, and
 * EPERM means it runs as another user. Used to clean up what a killed process left behind.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}
