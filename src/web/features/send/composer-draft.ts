import { useEffect, useRef } from 'react';
import type { SourceFormat } from '../../../shared/contract/email.ts';
import type { MergeSyntax } from './source-options.tsx';

/**
 * The composer's unsent work, kept in this tab's sessionStorage per user: a reload, or a visit to
 * another screen and back, finds it as it was. It lasts as long as the tab (not on a shared
 * computer's disk), and a send clears it with the form.
 */
export interface ComposerDraft {
  to: string;
  subject: string;
  html: string;
  inlineCss: boolean;
  text: string | null;
  format: SourceFormat;
  syntax: MergeSyntax;
  sampleData: string;
}

const keyOf = (userId: string) => `proofmail:composer-draft:${userId}`;
const SAVE_AFTER_MS = 300;

export function readDraft(userId: string | undefined): ComposerDraft | null {
  if (!userId) return null;
  try {
    const raw = sessionStorage.getItem(keyOf(userId));
    return raw ? (JSON.parse(raw) as ComposerDraft) : null;
  } catch {
    return null;
  }
}

const isEmpty = (d: ComposerDraft) => !d.to && !d.subject && !d.html && d.text === null && !d.sampleData;

function save(userId: string, serialised: string): void {
  try {
    if (isEmpty(JSON.parse(serialised) as ComposerDraft)) sessionStorage.removeItem(keyOf(userId));
    else sessionStorage.setItem(keyOf(userId), serialised);
  } catch {
    // Storage full or refused: the draft is only not kept.
  }
}

/**
 * Saves the draft a moment after it last changed, and at once when the composer goes away (a
 * link followed mid-word); an empty form removes it. Off while `paused`.
 */
export function useSavedDraft(userId: string | undefined, draft: ComposerDraft, paused: boolean): void {
  const serialised = JSON.stringify(draft);
  const latest = useRef<{ userId: string; serialised: string } | null>(null);
  latest.current = userId && !paused ? { userId, serialised } : null;
  useEffect(() => {
    if (!userId || paused) return;
    const timer = window.setTimeout(() => save(userId, serialised), SAVE_AFTER_MS);
    return () => window.clearTimeout(timer);
  }, [userId, serialised, paused]);
  useEffect(
    () => () => {
      if (latest.current) save(latest.current.userId, latest.current.serialised);
    },
    [],
  );
}
