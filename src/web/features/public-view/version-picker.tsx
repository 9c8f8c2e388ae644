import { useSearchParams } from 'react-router';
import type { PublicEmail } from '../../../shared/contract/email.ts';
import { cx, focusRing } from '../../components/ui/cx.ts';

const short = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});

/**
 * Which version of the email to show; the newest is the default (no `v`), each has its own link
 * (`?v=N`, beside the preview's own view parameters).
 */
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
  const [, setParams] = useSearchParams();
  const choose = (next: number) => {
    onChange(next);
    setParams(
      (prev) => {
        const out = new URLSearchParams(prev);
        if (next === latest) out.delete('v');
        else out.set('v', String(next));
        return out;
      },
      { preventScrollReset: true },
    );
  };
  return (
    <label className="flex max-w-full min-w-0 items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
      <span className="font-medium">Version</span>
      <select
        aria-label="Version"
        className={cx(
          'h-9 min-w-0 rounded-lg border border-slate-300 bg-white py-1 pr-8 pl-3 text-sm text-slate-900 shadow-sm dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100',
          focusRing,
        )}
        value={current}
        onChange={(e) => choose(Number(e.target.value))}
      >
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            {`v${v.version} · ${short.format(new Date(v.createdAt))}${v.version === latest ? ' (latest)' : ''}`}
          </option>
        ))}
      </select>
    </label>
  );
}
