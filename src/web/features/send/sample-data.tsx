import { Textarea } from '../../components/ui/textarea.tsx';

export type ParsedSampleData = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

/** "line 3, column 7" of a character offset. */
function placeOf(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/** The sample data as the server takes it (a JSON object), or why it is not. */
export function parseSampleData(text: string): ParsedSampleData {
  if (!text.trim()) return { ok: true, data: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const position = /position (\d+)/.exec(message)?.[1];
    const reason = message
      .replace(/ in JSON at position \d+.*$/, '')
      .replace(/ \(line \d+ column \d+\)$/, '');
    return {
      ok: false,
      error: `Sample data is not valid JSON: ${reason}${position ? ` (${placeOf(text, Number(position))})` : ''}.`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'Sample data must be a JSON object, such as {"name": "Ada"}.' };
  }
  return { ok: true, data: value as Record<string, unknown> };
}

export interface SampleDataProps {
  value: string;
  onChange: (value: string) => void;
  error: string | null;
}

/** The JSON that fills the merge tags in the preview and the send. */
export function SampleData({ value, onChange, error }: SampleDataProps) {
  return (
    <div className="space-y-1.5">
      <label htmlFor="sample-data" className="block text-sm font-medium text-slate-800 dark:text-slate-200">
        Sample data
      </label>
      <Textarea
        id="sample-data"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
        wrap="off"
        invalid={error !== null}
        aria-describedby={error ? 'sample-data-error' : 'sample-data-hint'}
        placeholder={'{\n  "name": "Ada"\n}'}
        rows={8}
        className="resize-y font-mono text-xs"
      />
      {error ? (
        <p
          id="sample-data-error"
          className="text-sm text-red-600 dark:text-red-400"
          data-testid="sample-data-error"
        >
          {error}
        </p>
      ) : (
        <p id="sample-data-hint" className="text-xs text-slate-600 dark:text-slate-400">
          A JSON object whose values fill the merge tags in the preview and the test send.
        </p>
      )}
    </div>
  );
}
