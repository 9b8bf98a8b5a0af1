/**
 * A table box that scrolls (sideways on a phone, or down when it is long): a named region that
 * takes the keyboard focus, so that people without a mouse can scroll it with the arrow keys.
 */
import type { ComponentChildren } from 'preact';

export function ScrollBox({
  label,
  id,
  class: className,
  children,
}: {
  label: string;
  id?: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by keyboard (WCAG 2.1.1).
    <section class={className ? `table-wrap ${className}` : 'table-wrap'} id={id} aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
