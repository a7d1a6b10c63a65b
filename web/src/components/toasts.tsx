import { dismissToast, toasts } from '../state';
import { CodeText } from './code-text';
import { Icon } from './icons';

/** Short notices in a corner (a polite live region: read out without moving focus). */
export function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((item) => (
        <div key={item.id} class={`toast toast-${item.tone}`}>
          {item.href ? (
            <a href={item.href} onClick={() => dismissToast(item.id)}>
              <CodeText text={item.text} />
            </a>
          ) : (
            <span>
              <CodeText text={item.text} />
            </span>
          )}
          <button type="button" class="icon-btn" aria-label="Dismiss" onClick={() => dismissToast(item.id)}>
            <Icon name="close" size={14} />
          </button>
        </div>
      ))}
    </div>
  );
}
