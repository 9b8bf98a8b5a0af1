/**
 * The URL of a Worker's entry file, given its path under src/. From source it is resolved from
 * this file's folder. Inside dist/slink every module is bundled into one file at the root of
 * Bun's embedded filesystem, while a Worker entry (a separate entrypoint of build.ts) keeps its
 * path relative to src/.
 */
export function workerEntry(fromSrc: string): string {
  const compiled = import.meta.url.includes('$bunfs');
  return new URL(compiled ? `./${fromSrc}` : `../${fromSrc}`, import.meta.url).href;
}
