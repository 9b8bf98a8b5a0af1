/** Copies a text (a short URL, a new key) and says so, to sight and to screen readers. */
import { useEffect, useState } from 'preact/hooks';

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  // Plain-http deployments have no clipboard API: copy through a selected, off-screen field.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

export function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () =>
    copyText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  return (
    <>
      <button type="button" class="button small secondary" aria-label={`Copy ${what}`} onClick={copy}>
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span class="sr-only" role="status">
        {state === 'copied'
          ? `${what} copied`
          : state === 'failed'
            ? 'Copying failed: select the text and copy it'
            : ''}
      </span>
    </>
  );
}
