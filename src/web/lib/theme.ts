import { useSyncExternalStore } from 'react';

/** Light/dark theme: follows the system until the user picks one; the pick persists. */
export type Theme = 'light' | 'dark';
const KEY = 'theme';
const listeners = new Set<() => void>();
const media = () => window.matchMedia('(prefers-color-scheme: dark)');

function current(): Theme {
  return document.documentElement.classList.contains('dark') ? 'dark' : 'light';
}

function apply(theme: Theme): void {
  document.documentElement.classList.toggle('dark', theme === 'dark');
  listeners.forEach((l) => l());
}

function setTheme(theme: Theme): void {
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // private mode: the choice lasts for this page only
  }
  apply(theme);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onSystem = (e: MediaQueryListEvent) => {
    let saved: string | null = null;
    try {
      saved = localStorage.getItem(KEY);
    } catch {
      saved = null;
    }
    if (saved !== 'light' && saved !== 'dark') apply(e.matches ? 'dark' : 'light');
  };
  const mq = media();
  mq.addEventListener('change', onSystem);
  return () => {
    listeners.delete(listener);
    mq.removeEventListener('change', onSystem);
  };
}

export function useTheme(): [Theme, (t: Theme) => void] {
  const theme = useSyncExternalStore(subscribe, current, () => 'light' as Theme);
  return [theme, setTheme];
}
