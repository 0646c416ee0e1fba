import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

/**
 * A control with a label bound by id. Wrapping a select in its label would add the chosen
 * option to the accessible name ("Scope admin"); the fixed names need the label alone.
 */
export function Field({ label, children }: { label: string; children: (id: string) => ComponentChildren }) {
  const id = useId();
  return (
    <span class="field">
      <label for={id}>{label}</label>
      {children(id)}
    </span>
  );
}
