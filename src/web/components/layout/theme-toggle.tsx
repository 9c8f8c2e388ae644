import { useThemePreference, type ThemePreference } from '../../lib/theme.ts';
import { DropdownMenu, DropdownMenuItem } from '../ui/dropdown-menu.tsx';
import { MonitorIcon, MoonIcon, SunIcon } from '../ui/icons.tsx';

const CHOICES: { value: ThemePreference; label: string; Icon: typeof SunIcon }[] = [
  { value: 'light', label: 'Light', Icon: SunIcon },
  { value: 'dark', label: 'Dark', Icon: MoonIcon },
  { value: 'system', label: 'System', Icon: MonitorIcon },
];

/**
 * The theme menu: Light, Dark, or System (follow the operating system, the default). The button
 * shows the theme in use; a light or dark pick is remembered (lib/theme.ts).
 */
export function ThemeToggle({ className }: { className?: string }) {
  const { theme, preference, setPreference } = useThemePreference();
  const current = CHOICES.find((c) => c.value === preference)?.label ?? 'System';
  return (
    <DropdownMenu
      className={className}
      label={`Theme: ${current}`}
      triggerVariant="ghost"
      triggerSize="icon"
      trigger={theme === 'dark' ? <MoonIcon /> : <SunIcon />}
    >
      {CHOICES.map(({ value, label, Icon }) => (
        <DropdownMenuItem
          key={value}
          icon={<Icon />}
          checked={preference === value}
          onSelect={() => setPreference(value)}
        >
          {label}
        </DropdownMenuItem>
      ))}
    </DropdownMenu>
  );
}
