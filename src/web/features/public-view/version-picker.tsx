import type { PublicEmail } from '../../../shared/contract/email.ts';
import { fieldClasses } from '../../components/ui/input.tsx';
import { cx } from '../../components/ui/cx.ts';
import { dateTime } from '../../lib/relative-time.ts';

/** Which version of the email to show; the newest is the default, each has its own link (?v=N). */
export function VersionPicker({
  versions,
  current,
  onChange,
}: {
  versions: PublicEmail['versions'];
  current: number;
  onChange: (version: number) => void;
}) {
  const latest = versions[0]?.version;
  return (
    <label className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
      <span className="font-medium">Version</span>
      <select
        aria-label="Version"
        className={cx(fieldClasses, 'h-9 w-auto py-1 pr-8')}
        value={current}
        onChange={(e) => onChange(Number(e.target.value))}
      >
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            {`v${v.version}${v.version === latest ? ' (latest)' : ''} · ${dateTime(v.createdAt)}`}
          </option>
        ))}
      </select>
    </label>
  );
}
