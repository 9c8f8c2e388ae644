import { themeLabel, useThemePreference, type ThemePreference } from '../../lib/theme.ts';
import { DropdownMenu, DropdownMenuItem } from '../ui/dropdown-menu.tsx';
import { MonitorIcon, MoonIcon, SunIcon } from '../ui/icons.tsx';

const CHOICES: { value: ThemePreference; label: string; Icon: typeof SunIcon }[] = [
  { value: 'light', label: 'Light', Icon: SunIcon },
  { value: 'dark', label: 'Dark', Icon: MoonIcon },
  { value: 'system', label: 'System', Icon: MonitorIcon },
];

/**
 * The theme menu itself: Light, Dark, or System (follow the operating system, the default). It is
 * loaded when the theme button is first pressed (theme-toggle.tsx) and opens at once.
 */
export default function ThemeMenu({
  className,
  openOnMount,
}: {
  className?: string;
  openOnMount: 'first' | 'last';
}) {
  const { theme, preference, setPreference } = useThemePreference();
  return (
    <DropdownMenu
      className={className}
      label={themeLabel(preference)}
      triggerVariant="ghost"
      triggerSize="icon"
      trigger={theme === 'dark' ? <MoonIcon /> : <SunIcon />}
      openOnMount={openOnMount}
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
