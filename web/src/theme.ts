import { signal } from '@preact/signals';

/**
 * Light and dark themes. By default the app follows `prefers-color-scheme`; the toggle stores only the
 * owner's choice (`light` | `dark`) under one localStorage key, nothing else. `data-theme` on <html> always
 * names the theme in effect, which the stylesheet's `color-scheme` (and so every `light-dark()` colour)
 * follows.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'wren.theme';
const media = window.matchMedia('(prefers-color-scheme: dark)');

function stored(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

export const themeChoice = signal<ThemeChoice>(stored());
export const effectiveTheme = signal<'light' | 'dark'>('light');

function apply(): void {
  const theme = themeChoice.value === 'system' ? (media.matches ? 'dark' : 'light') : themeChoice.value;
  effectiveTheme.value = theme;
  document.documentElement.dataset.theme = theme;
  const meta = document.querySelector('meta[name="theme-color"]');
  meta?.setAttribute('content', theme === 'dark' ? '#161a19' : '#ffffff');
}

export function setTheme(choice: ThemeChoice): void {
  themeChoice.value = choice;
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Storage blocked (private mode): the choice lasts for this page only.
  }
  apply();
}

/** The header button: switches to the other theme and remembers it. */
export function toggleTheme(): void {
  setTheme(effectiveTheme.value === 'dark' ? 'light' : 'dark');
}

media.addEventListener('change', apply);
apply();
