import { LockKeyhole } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { FieldError } from '../../components/ui/input.tsx';
import { PasswordInput } from '../../components/ui/password-input.tsx';
import { errorMessage } from '../../lib/api.ts';
import { useUnlock } from './api.ts';

/** A protected link asks for its password before the server sends any of the email. */
export function PasswordGate({ slug, onUnlocked }: { slug: string; onUnlocked: (token: string) => void }) {
  const unlock = useUnlock(slug);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!password) return setError('Enter the password');
    unlock.mutate(password, {
      onSuccess: (res) => onUnlocked(res.token),
      onError: (err) => setError(errorMessage(err)),
    });
  };
  return (
    <div className="mx-auto flex max-w-sm flex-col items-center px-6 py-20 text-center sm:py-28">
      <span className="flex size-14 items-center justify-center rounded-full bg-white text-brand-600 shadow-sm dark:bg-slate-900 dark:text-brand-400 [&_svg]:size-7">
        <LockKeyhole aria-hidden="true" />
      </span>
      <h1 className="mt-6 text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">
        Password Required
      </h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        The sender protected this email. Enter the password they gave you.
      </p>
      <form onSubmit={submit} noValidate className="mt-6 w-full space-y-3 text-left">
        <label
          htmlFor="viewer-password"
          className="block text-sm font-medium text-slate-800 dark:text-slate-200"
        >
          Password
        </label>
        <PasswordInput
          id="viewer-password"
          autoComplete="current-password"
          autoFocus
          value={password}
          invalid={Boolean(error)}
          aria-describedby={error ? 'viewer-password-error' : undefined}
          onChange={(e) => {
            setPassword(e.target.value);
            setError(null);
          }}
        />
        <FieldError id="viewer-password-error">{error}</FieldError>
        <Button type="submit" className="w-full" busy={unlock.isPending}>
          View Email
        </Button>
      </form>
    </div>
  );
}
