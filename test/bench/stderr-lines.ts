/** A child process's stderr, line by line as it arrives (progress lines of `slink copy-to`). */
export async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of stream) {
    rest += decoder.decode(chunk);
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const line of lines) onLine(line);
  }
  if (rest !== '') onLine(rest);
}
