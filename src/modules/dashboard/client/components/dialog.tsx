/**
 * A modal dialog on the native <dialog>: showModal() makes the rest of the page inert, Tab
 * wraps around inside it, Esc closes it, and focus goes back to what had it before. The content is
 * rendered only while open, so every opening starts from a fresh form. Opening focuses what the
 * content marks autofocus (a confirmation's Cancel), else its first field, so a person can type
 * at once; the browser alone would pick the first focusable element, the close button.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
const FIELD = 'input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled])';

export interface DialogProps {
  open: boolean;
  title: string;
  onClose(): void;
  children: ComponentChildren;
}

export function Dialog({ open, title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      if (!dialog.querySelector('[autofocus]')) dialog.querySelector<HTMLElement>(FIELD)?.focus();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);

  // A modal <dialog> still lets Tab leave for the browser's own controls: wrap it around instead.
  const trapTab = (event: KeyboardEvent) => {
    if (event.key !== 'Tab' || !ref.current) return;
    const focusable = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
      (el) => !el.hasAttribute('disabled'),
    );
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  // Fired by Esc, by close() above, and by the close button: one way out, focus restored.
  const closed = () => {
    opener.current?.focus();
    opener.current = null;
    if (open) onClose();
  };

  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={closed} onKeyDown={trapTab}>
      {open && (
        <>
          <div class="dialog-head">
            <h2 id={titleId}>{title}</h2>
            <button type="button" class="icon-button" aria-label="Close" onClick={() => ref.current?.close()}>
              <span aria-hidden="true">×</span>
            </button>
          </div>
          {children}
        </>
      )}
    </dialog>
  );
}
