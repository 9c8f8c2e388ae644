import { Check, Copy, Download } from 'lucide-react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Email } from '../../../shared/contract/email.ts';
import { htmlFile } from '../../../shared/html-file.ts';
import { COPIED_INDICATOR_MS } from '../../../shared/plans.ts';
import { Button } from '../../components/ui/button.tsx';
import { SegmentedControl } from '../../components/ui/segmented-control.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { describeText } from '../../lib/format-size.ts';
import { useMessageSource } from './api.ts';
import { copyText } from '../../lib/copy-text.ts';
import { saveFile } from './save-file.ts';

/**
 * The detail page's text tabs (docs/spec.md §2, docs/architecture.md §9): the HTML as sent or as
 * written, the plain-text part, and the raw message; each read-only, with copy and download.
 */

/** Copies `text`: the button says "Copy {what}" in Title Case, the toasts name it in a sentence. */
function CopyButton({ text, what }: { text: string; what: 'HTML' | 'Text' | 'Message' }) {
  const inSentence = what === 'HTML' ? what : what.toLowerCase();
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await copyText(text);
      setCopied(true);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
      toast.success(`${what} copied to clipboard`);
    } catch (err) {
      toast.error(`Failed to copy ${inSentence}`, errorMessage(err));
    }
  };
  return (
    <Button variant="outline" size="sm" onClick={() => void copy()}>
      {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
      Copy {what}
    </Button>
  );
}

function DownloadButton({ onClick, children }: { onClick: () => void; children: ReactNode }) {
  return (
    <Button variant="outline" size="sm" onClick={onClick}>
      <Download aria-hidden="true" />
      {children}
    </Button>
  );
}

interface TextPanelProps {
  /** The text area's accessible name. */
  label: string;
  text: string;
  /** Shown above the text, before its size. */
  lead?: ReactNode;
  actions: ReactNode;
  testId?: string;
}

/** A read-only text with its size ("1 line · 12 bytes") and actions above it. */
function TextPanel({ label, text, lead, actions, testId }: TextPanelProps) {
  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 dark:border-slate-800">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2 border-b border-slate-200 bg-slate-50 px-4 py-2 dark:border-slate-800 dark:bg-slate-900">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          {lead}
          <p className="text-xs text-slate-500 tabular-nums dark:text-slate-400" data-testid={testId}>
            {describeText(text)}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">{actions}</div>
      </div>
      <textarea
        readOnly
        value={text}
        aria-label={label}
        spellCheck={false}
        wrap="off"
        className="block h-[600px] w-full resize-y bg-white p-4 font-mono text-xs leading-5 text-slate-800 outline-none focus-visible:ring-2 focus-visible:ring-brand-500/40 focus-visible:ring-inset dark:bg-slate-950 dark:text-slate-200"
      />
    </div>
  );
}

type SourceVersion = 'sent' | 'written';

/**
 * The HTML Source tab: the HTML part as sent (inlined, when Inline CSS was on) by default, the
 * HTML as the user wrote it on a switch. Download .html saves the part as sent, byte for byte.
 */
export function HtmlSourceTab({ email }: { email: Email }) {
  const [version, setVersion] = useState<SourceVersion>('sent');
  const html = version === 'sent' ? email.html : email.source.html;
  const same = email.source.html === email.html;
  return (
    <TextPanel
      label="HTML Source"
      text={html}
      testId="source-stats"
      lead={
        <SegmentedControl<SourceVersion>
          label="Which HTML"
          value={version}
          onChange={setVersion}
          options={[
            { value: 'sent', label: 'As Sent' },
            {
              value: 'written',
              label: email.source.format === 'mjml' ? 'Your MJML' : 'Your Source',
              title: same
                ? 'Identical to what was sent'
                : email.source.format === 'mjml' || email.source.template
                  ? 'Before merge tags, MJML and Inline CSS'
                  : 'Before Inline CSS',
            },
          ]}
        />
      }
      actions={
        <>
          <CopyButton text={html} what="HTML" />
          <DownloadButton
            onClick={() =>
              saveFile(new Blob([htmlFile(email.html)], { type: 'text/html' }), `email-${email.id}.html`)
            }
          >
            Download .html
          </DownloadButton>
        </>
      }
    />
  );
}

/** The Plain text tab: the text part as sent (the user's own, or generated from the HTML). */
export function PlainTextTab({ email }: { email: Email }) {
  return (
    <TextPanel
      label="Plain text"
      text={email.text}
      testId="text-stats"
      lead={
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {email.source.text !== null ? 'Written by you' : 'Generated from the HTML'}
        </p>
      }
      actions={<CopyButton text={email.text} what="Text" />}
    />
  );
}

/**
 * The Raw tab: the headers every recipient got alike, and the whole MIME message as it left for
 * the first recipient (GET /api/email/{id}/message.eml), to read or download as .eml.
 */
/** `email-{id}.eml`, or with the recipient's address when there are several. */
function emlName(id: string, recipient: string | undefined): string {
  return recipient ? `email-${id}-${recipient.replace(/[^A-Za-z0-9@._-]/g, '_')}.eml` : `email-${id}.eml`;
}

export function RawTab({ email }: { email: Email }) {
  const [deliveryId, setDeliveryId] = useState(email.deliveries[0]?.id);
  const message = useMessageSource(email.id, deliveryId);
  const recipient =
    email.deliveries.length > 1 ? email.deliveries.find((d) => d.id === deliveryId)?.to : undefined;
  return (
    <div className="space-y-4">
      {email.deliveries.length > 1 ? (
        <label className="flex flex-wrap items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
          Message to
          <select
            value={deliveryId}
            onChange={(e) => setDeliveryId(e.target.value)}
            className="h-9 max-w-full min-w-0 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
          >
            {email.deliveries.map((d) => (
              <option key={d.id} value={d.id}>
                {d.to}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <section
        aria-labelledby="raw-headers-title"
        className="rounded-xl border border-slate-200 dark:border-slate-800"
      >
        <h2
          id="raw-headers-title"
          className="border-b border-slate-200 bg-slate-50 px-4 py-2 text-xs font-medium text-slate-700 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300"
        >
          Headers
        </h2>
        <dl
          className="grid grid-cols-1 gap-x-4 px-4 py-3 font-mono text-xs sm:grid-cols-[max-content_minmax(0,1fr)]"
          data-testid="raw-headers"
        >
          {email.headers.map((h, i) => (
            <div key={`${h.name}-${i}`} className="contents">
              <dt className="pt-1 text-slate-500 dark:text-slate-400">{h.name}:</dt>
              <dd className="pb-1 break-all text-slate-900 sm:pt-1 dark:text-slate-100">{h.value}</dd>
            </div>
          ))}
        </dl>
        <p className="border-t border-slate-200 px-4 py-2 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
          To, Message-ID and Date differ per recipient: they are in each recipient’s message.
        </p>
      </section>
      {message.data ? (
        <TextPanel
          label="MIME source"
          text={message.data.text}
          testId="mime-stats"
          lead={<p className="text-xs font-medium text-slate-700 dark:text-slate-300">MIME source</p>}
          actions={
            <>
              <CopyButton text={message.data.text} what="Message" />
              <DownloadButton onClick={() => saveFile(message.data.blob, emlName(email.id, recipient))}>
                Download .eml
              </DownloadButton>
            </>
          }
        />
      ) : message.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          The message could not be loaded: {errorMessage(message.error)}
        </p>
      ) : (
        <div aria-busy="true" aria-label="Loading the message">
          <Skeleton className="block h-[600px] w-full rounded-xl" />
        </div>
      )}
    </div>
  );
}
