import { useSyncExternalStore } from 'react';

/**
 * Light/dark theme. The preference is light, dark or system (follow the operating system, the
 * default); a light or dark pick persists in localStorage, system removes it. public/theme-init.js
 * applies the same rule before first paint.
 */
export type Theme = 'light' | 'dark';
export type ThemePreference = Theme | 'system';
const KEY = 'theme';
const listeners = new Set<() => void>();
const media = () => window.matchMedia('(prefers-color-scheme: dark)');

function savedPreference(): ThemePreference {
  try {
    const saved = localStorage.getItem(KEY);
    return saved === 'light' || saved === 'dark' ? saved : 'system';
  } catch {
    return 'system'; // storage blocked: follow the system
  }
}

function resolve(preference: ThemePreference): Theme {
  if (preference !== 'system') return preference;
  return media().matches ? 'dark' : 'light';
}

function apply(): void {
  document.documentElement.classList.toggle('dark', resolve(savedPreference()) === 'dark');
  listeners.forEach((l) => l());
}

function setPreference(preference: ThemePreference): void {
  try {
    if (preference === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, preference);
  } catch {
    // private mode: the choice lasts for this page only
    document.documentElement.classList.toggle('dark', resolve(preference) === 'dark');
    listeners.forEach((l) => l());
    return;
  }
  apply();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const mq = media();
  // The system changed (matters while following it), or another tab picked a theme.
  const onStorage = (e: StorageEvent) => {
    if (e.key === KEY || e.key === null) apply();
  };
  mq.addEventListener('change', apply);
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    mq.removeEventListener('change', apply);
    window.removeEventListener('storage', onStorage);
  };
}

/** "preference:theme", one string so React sees a change of either. */
function snapshot(): string {
  const theme: Theme = document.documentElement.classList.contains('dark') ? 'dark' : 'light';
  return `${savedPreference()}:${theme}`;
}

function useSnapshot(): [ThemePreference, Theme] {
  return useSyncExternalStore(subscribe, snapshot, () => 'system:light').split(':') as [
    ThemePreference,
    Theme,
  ];
}

/** The theme in use, and a setter for the preference. */
export function useTheme(): [Theme, (preference: ThemePreference) => void] {
  return [useSnapshot()[1], setPreference];
}

/** What the user chose (light, dark or system) and the theme that results. */
export function useThemePreference(): {
  theme: Theme;
  preference: ThemePreference;
  setPreference: (preference: ThemePreference) => void;
} {
  const [preference, theme] = useSnapshot();
  return { theme, preference, setPreference };
}

const THEME_NAMES: Record<ThemePreference, string> = { light: 'Light', dark: 'Dark', system: 'System' };

/** The theme button's accessible name: the choice in force. */
export function themeLabel(preference: ThemePreference): string {
  return `Theme: ${THEME_NAMES[preference] ?? 'System'}`;
}
