/**
 * What the dashboard's build depends on, reduced to one hash: the client sources, the build
 * scripts, the lockfile (a new Preact is a new bundle) and the Bun version (its minifier). The
 * generated module records it; a different hash means the built assets are stale.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function inputsFingerprint(root: string, inputs: string[]): string {
  const hasher = new Bun.CryptoHasher('sha256');
  hasher.update(`bun ${Bun.version}\n`);
  for (const input of inputs) {
    const path = join(root, input);
    if (!existsSync(path)) continue;
    const files = statSync(path).isDirectory()
      ? [...new Bun.Glob('**/*').scanSync({ cwd: path, absolute: true, dot: true })].sort()
      : [path];
    for (const file of files) {
      hasher.update(`${relative(root, file)}\n`);
      hasher.update(readFileSync(file));
    }
  }
  return hasher.digest('hex').slice(0, 16);
}

/** The fingerprint a generated module records, or null when there is none (never built). */
export function recordedFingerprint(genModule: string): string | null {
  if (!existsSync(genModule)) return null;
  return /FINGERPRINT = '([0-9a-f]+)'/.exec(readFileSync(genModule, 'utf8'))?.[1] ?? null;
}
