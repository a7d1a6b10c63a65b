import { setTheme, type ThemeChoice, themeChoice } from '../../theme';

export function AppearanceSection() {
  return (
    <section class="section" aria-labelledby="appearance-title">
      <h2 id="appearance-title">Appearance</h2>
      <div class="setting">
        <label for="theme-choice" class="field-label">
          Theme
        </label>
        <select
          id="theme-choice"
          value={themeChoice.value}
          onChange={(event) => setTheme(event.currentTarget.value as ThemeChoice)}
        >
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </div>
    </section>
  );
}
