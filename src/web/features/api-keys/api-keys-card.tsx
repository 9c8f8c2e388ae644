import { Check, Copy, KeyRound } from 'lucide-react';
import { Link } from 'react-router';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../components/ui/card.tsx';
import { ConfirmDialog } from '../../components/ui/dialog.tsx';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { Field, fieldDescription, Input } from '../../components/ui/input.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { copyText } from '../../lib/copy-text.ts';
import { relativeTime } from '../../lib/relative-time.ts';
import {
  API_KEY_MESSAGES,
  MAX_API_KEYS,
  MAX_KEY_NAME_LENGTH,
  type ApiKey,
  type CreateApiKeyResponse,
} from '../../../shared/contract/api-keys.ts';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from './api.ts';

const COPIED_INDICATOR_MS = 2000;

/** The key just created: shown once, in a read-only field with Copy, until the user is done. */
function NewKey({ created, onDone }: { created: CreateApiKeyResponse; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await copyText(created.key);
      setCopied(true);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
      toast.success('Key copied to clipboard');
    } catch (err) {
      toast.error('Failed to copy key', errorMessage(err));
    }
  };
  return (
    <div className="space-y-3" data-new-key>
      <FormAlert tone="warning">
        Copy the key “{created.name}” now. It will not be shown again: Proofmail keeps only a fingerprint of
        it.
      </FormAlert>
      <label htmlFor="new-api-key" className="block text-sm font-medium text-slate-800 dark:text-slate-200">
        Your new API key
      </label>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          id="new-api-key"
          readOnly
          value={created.key}
          spellCheck={false}
          className="font-mono text-xs sm:text-sm"
          onFocus={(e) => e.currentTarget.select()}
        />
        <Button variant={copied ? 'secondary' : 'primary'} onClick={() => void copy()} className="sm:w-32">
          {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
          {copied ? 'Copied!' : 'Copy'}
        </Button>
      </div>
      <div className="flex justify-end">
        <Button variant="outline" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

function KeyRow({ item, now, onRevoke }: { item: ApiKey; now: Date; onRevoke: () => void }) {
  return (
    <li className="flex items-start justify-between gap-3 py-3 sm:items-center" data-api-key={item.id}>
      <div className="min-w-0 space-y-0.5">
        <p className="flex flex-wrap items-center gap-x-2 text-sm font-medium text-slate-900 dark:text-white">
          <span className="break-words">{item.name}</span>
          <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300">
            {item.prefix}…
          </code>
        </p>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Created {relativeTime(item.createdAt, now)} ·{' '}
          {item.lastUsedAt ? `last used ${relativeTime(item.lastUsedAt, now)}` : 'never used'}
        </p>
      </div>
      <Button
        variant="outline"
        size="sm"
        className="shrink-0"
        onClick={onRevoke}
        aria-label={`Revoke ${item.name}`}
      >
        Revoke
      </Button>
    </li>
  );
}

/**
 * API Keys on /app/account: create a key (shown once), list them with when they were last used,
 * revoke one. A key sends and reads emails as its owner and cannot read or change the account
 * settings. An account creates keys once its address is verified (the server refuses before).
 */
export function ApiKeysCard({ verified }: { verified: boolean }) {
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreateApiKeyResponse | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const items = keys.data?.items ?? [];
  const now = new Date();
  const full = items.length >= MAX_API_KEYS;
  const closed = full || !verified;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setNameError(API_KEY_MESSAGES.nameRequired);
    if (trimmed.length > MAX_KEY_NAME_LENGTH) return setNameError(API_KEY_MESSAGES.nameTooLong);
    setNameError(null);
    create.mutate(trimmed, {
      onSuccess: (res) => {
        setCreated(res);
        setName('');
      },
      onError: (err) => {
        if (err instanceof ApiError && err.status === 400) setNameError(err.message);
        else toast.error('Failed to create API key', errorMessage(err));
      },
    });
  };

  const { describedBy } = fieldDescription('api-key-name', { error: nameError });

  return (
    <Card role="region" id="api-keys" aria-labelledby="api-keys-title" data-section="api-keys">
      <CardHeader>
        <CardTitle as="h2" id="api-keys-title">
          API Keys
        </CardTitle>
        <CardDescription>
          Send tests from scripts and CI with the <code className="font-mono text-xs">proofmail</code> command
          or the API (see the{' '}
          <Link
            to="/docs/api"
            className="font-medium text-brand-600 underline underline-offset-4 hover:text-brand-700 dark:text-brand-400 dark:hover:text-brand-300"
          >
            API Reference
          </Link>
          ). A key sends and reads your emails, within your plan, but cannot change your account.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-5">
        {created ? (
          <NewKey created={created} onDone={() => setCreated(null)} />
        ) : (
          <form noValidate onSubmit={onSubmit} className="flex flex-col gap-2 sm:flex-row sm:items-start">
            <Field id="api-key-name" label="Key name" error={nameError} className="flex-1">
              <Input
                id="api-key-name"
                name="api-key-name"
                placeholder="e.g. GitHub Actions"
                maxLength={MAX_KEY_NAME_LENGTH * 2}
                value={name}
                invalid={!!nameError}
                aria-describedby={describedBy}
                disabled={closed}
                onChange={(e) => setName(e.target.value)}
              />
            </Field>
            <Button type="submit" busy={create.isPending} disabled={closed} className="sm:mt-7">
              <KeyRound aria-hidden="true" />
              Create Key
            </Button>
          </form>
        )}
        {!verified ? <FormAlert tone="info">{API_KEY_MESSAGES.verifyFirst}</FormAlert> : null}
        {full && verified && !created ? <FormAlert tone="info">{API_KEY_MESSAGES.tooMany}</FormAlert> : null}

        {keys.isPending ? (
          <div className="space-y-2" aria-hidden="true">
            <Skeleton className="block h-5 w-2/3" />
            <Skeleton className="block h-5 w-1/2" />
          </div>
        ) : keys.isError ? (
          <FormAlert>Failed to load API keys: {errorMessage(keys.error)}</FormAlert>
        ) : items.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400" data-message>
            No API keys yet.
          </p>
        ) : (
          <ul className="divide-y divide-slate-200 border-t border-slate-200 dark:divide-slate-800 dark:border-slate-800">
            {items.map((item) => (
              <KeyRow key={item.id} item={item} now={now} onRevoke={() => setRevoking(item)} />
            ))}
          </ul>
        )}
      </CardContent>
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => {
          if (!open) setRevoking(null);
        }}
        title="Revoke API Key?"
        description={`Scripts and CI jobs using “${revoking?.name ?? ''}” stop working at once. This cannot be undone.`}
        confirmLabel="Revoke Key"
        destructive
        busy={revoke.isPending}
        onConfirm={() => {
          if (!revoking) return;
          revoke.mutate(revoking.id, {
            onSuccess: () => {
              toast.success('API key revoked', `“${revoking.name}” no longer works.`);
              setRevoking(null);
            },
            onError: (err) => toast.error('Failed to revoke API key', errorMessage(err)),
          });
        }}
      />
    </Card>
  );
}
