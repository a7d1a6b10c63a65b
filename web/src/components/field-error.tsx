import { CodeText } from './code-text';

/**
 * Why a form's last submit failed (role alert: read out when it appears), or nothing. In its own file so
 * it goes with the lazily loaded pages that use it, not into the first screen's bundle.
 */
export function FieldError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="field-error" role="alert">
      <CodeText text={message} />
    </p>
  );
}
