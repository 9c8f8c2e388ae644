import { useTheme } from '../../lib/theme.ts';
import { Button } from '../ui/button.tsx';
import { MoonIcon, SunIcon } from '../ui/icons.tsx';

/** Flips light/dark; the choice is remembered (lib/theme.ts), otherwise the system setting wins. */
export function ThemeToggle({ className }: { className?: string }) {
  const [theme, setTheme] = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  const label = `Switch to ${next} theme`;
  return (
    <Button
      variant="ghost"
      size="icon"
      className={className}
      aria-label={label}
      title={label}
      data-theme-toggle=""
      onClick={() => setTheme(next)}
    >
      {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
    </Button>
  );
}
