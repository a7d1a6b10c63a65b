import type { ComponentChildren } from 'preact';

/**
 * A labelled form field: the label, then `children` (the control, whose id must be `id`, and any hint).
 * `grow` lets it take the free width of a field row.
 */
export function Field({
  id,
  label,
  grow = false,
  children,
}: {
  id: string;
  label: ComponentChildren;
  grow?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={grow ? 'field grow' : 'field'}>
      <label for={id} class="field-label">
        {label}
      </label>
      {children}
    </div>
  );
}
