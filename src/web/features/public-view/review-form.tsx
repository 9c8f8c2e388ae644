import { MapPin, X } from 'lucide-react';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import {
  REVIEW_COMMENT_MAX,
  REVIEW_MESSAGES,
  REVIEW_NAME_MAX,
  type ReviewDecision,
} from '../../../shared/review-rules.ts';
import type { PickedPin } from '../../components/review/pin-markers.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Field, FieldError, fieldDescription, Input } from '../../components/ui/input.tsx';
import { SegmentedControl } from '../../components/ui/segmented-control.tsx';
import { Textarea } from '../../components/ui/textarea.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { usePostReview } from './mutations.ts';

const NAME_KEY = 'proofmail.reviewer-name';
const DECISIONS: { value: ReviewDecision; label: string }[] = [
  { value: 'approved', label: 'Approve' },
  { value: 'changes_requested', label: 'Request Changes' },
  { value: 'comment', label: 'Comment' },
];
const NOUN: Record<ReviewDecision, string> = {
  approved: 'Approval',
  changes_requested: 'Change request',
  comment: 'Comment',
};

/**
 * What the reviewer is told once the review is in, true in every case: "sent" and "the sender has
 * been told" only when the server queued a mail to the owner (`notified`); otherwise it is saved,
 * and the owner sees it with the email (a plain comment, notifications off, a review sent twice).
 * A reviewer who judged an older round is told a newer one exists.
 */
function reviewedToast(
  decision: ReviewDecision,
  name: string,
  answer: { notified: boolean; newerVersion: number | null },
): [title: string, description: string] {
  const title = `${NOUN[decision]} ${answer.notified ? 'sent' : 'saved'}`;
  const told = answer.notified ? 'The sender has been told.' : 'The sender will see it with the email.';
  const newer =
    answer.newerVersion === null ? '' : ` A newer version, version ${answer.newerVersion}, is now available.`;
  return [title, `Thank you, ${name}. ${told}${newer}`];
}

/** Nothing is chosen for the reviewer: an approval is never sent by default. */
const DECISION_REQUIRED = 'Choose Approve, Request Changes or Comment';
const DECISION_ERROR_ID = 'review-decision-error';

const chars = (s: string) => [...s].length;

function rememberedName(): string {
  try {
    return sessionStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

/**
 * A review without an account (docs/decisions/0085-reviews-throttled-and-notified.md): a name,
 * Approve / Request Changes / Comment, an optional comment, and an optional pin on the preview.
 * The decision starts unchosen, and again after each send: reviews cannot be withdrawn, and the
 * owner is mailed an approval, so Send Review without a choice says what is missing instead.
 */
export function ReviewForm({
  slug,
  token,
  version,
  pin,
  picking,
  onPickingChange,
  onClearPin,
  notice,
}: {
  slug: string;
  token: string | null;
  version: number;
  pin: PickedPin | null;
  picking: boolean;
  onPickingChange: (picking: boolean) => void;
  onClearPin: () => void;
  /** Shown with the decision (e.g. that a newer version exists). */
  notice?: ReactNode;
}) {
  const post = usePostReview(slug, token);
  const form = useRef<HTMLFormElement>(null);
  const [name, setName] = useState(rememberedName);
  const [decision, setDecision] = useState<ReviewDecision | null>(null);
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<{ name?: string; decision?: string; comment?: string; form?: string }>(
    {},
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: typeof errors = {};
    if (!name.trim()) next.name = REVIEW_MESSAGES.nameRequired;
    else if (chars(name.trim()) > REVIEW_NAME_MAX) next.name = REVIEW_MESSAGES.nameTooLong;
    if (!decision) next.decision = DECISION_REQUIRED;
    if (chars(comment.trim()) > REVIEW_COMMENT_MAX) next.comment = REVIEW_MESSAGES.commentTooLong;
    else if (decision === 'comment' && !comment.trim()) next.comment = REVIEW_MESSAGES.commentRequired;
    setErrors(next);
    if (next.name || next.decision || next.comment) {
      // Focus goes to the first thing to fix, where its message is read out with it.
      const first = next.name
        ? '#reviewer-name'
        : next.decision
          ? '[role="radio"][tabindex="0"]'
          : '#review-comment';
      form.current?.querySelector<HTMLElement>(first)?.focus();
      return;
    }
    if (!decision) return;
    post.mutate(
      {
        name,
        decision,
        comment: comment.trim() ? comment : null,
        version,
        pin: pin ? { x: pin.x, y: pin.y, width: pin.width } : null,
      },
      {
        onSuccess: (answer) => {
          try {
            sessionStorage.setItem(NAME_KEY, name.trim());
          } catch {
            // Storage off: the name is typed again next time.
          }
          setComment('');
          setDecision(null);
          onClearPin();
          toast.success(...reviewedToast(decision, name.trim(), answer));
        },
        onError: (err) => setErrors({ form: errorMessage(err) }),
      },
    );
  };

  return (
    <form ref={form} onSubmit={submit} noValidate className="space-y-4" aria-label="Review this email">
      <Field id="reviewer-name" label="Your name" error={errors.name}>
        <Input
          id="reviewer-name"
          autoComplete="name"
          value={name}
          maxLength={REVIEW_NAME_MAX * 2}
          invalid={Boolean(errors.name)}
          aria-describedby={fieldDescription('reviewer-name', { error: errors.name }).describedBy}
          onChange={(e) => setName(e.target.value)}
        />
      </Field>
      <fieldset className="min-w-0" aria-describedby={errors.decision ? DECISION_ERROR_ID : undefined}>
        <legend className="mb-2 text-sm font-medium text-slate-800 dark:text-slate-200">
          Your review of v{version}
        </legend>
        {/* Always there (the notice brings its own space below), so a notice that appears while
            the reviewer is here, a newer version found by a refetch, is read out. */}
        <div aria-live="polite">{notice}</div>
        <SegmentedControl
          label="Decision"
          options={DECISIONS}
          value={decision}
          onChange={(value) => {
            setDecision(value);
            setErrors(({ decision: _, ...rest }) => rest);
          }}
          className="flex-wrap"
        />
        <FieldError id={DECISION_ERROR_ID} className="mt-2">
          {errors.decision}
        </FieldError>
      </fieldset>
      <Field
        id="review-comment"
        label={decision === 'comment' ? 'Comment' : 'Comment (optional)'}
        error={errors.comment}
      >
        <Textarea
          id="review-comment"
          rows={3}
          value={comment}
          invalid={Boolean(errors.comment)}
          aria-describedby={fieldDescription('review-comment', { error: errors.comment }).describedBy}
          onChange={(e) => setComment(e.target.value)}
          placeholder={decision === 'changes_requested' ? 'What should change?' : 'Anything to add?'}
        />
      </Field>
      <div className="flex flex-wrap items-center gap-2">
        {pin ? (
          <Button type="button" variant="outline" size="sm" onClick={onClearPin}>
            <X aria-hidden="true" />
            Remove Pin
          </Button>
        ) : (
          <Button
            id="review-pin"
            type="button"
            variant={picking ? 'secondary' : 'outline'}
            size="sm"
            aria-pressed={picking}
            // On, the pins (src/web/components/review/pin-markers.tsx) bring the email into view and
            // focus a cursor in it: a click or the arrow keys and Enter place the pin.
            onClick={() => onPickingChange(!picking)}
          >
            <MapPin aria-hidden="true" />
            {picking ? 'Click the Email to Pin' : 'Pin to the Email'}
          </Button>
        )}
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {pin
            ? 'Pinned: your comment points at the marked spot.'
            : 'Optional: point at a spot in the email.'}
        </p>
      </div>
      {errors.form ? (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {errors.form}
        </p>
      ) : null}
      <Button
        type="submit"
        busy={post.isPending}
        className="w-full sm:w-auto"
        aria-describedby={errors.decision ? DECISION_ERROR_ID : undefined}
      >
        Send Review
      </Button>
    </form>
  );
}
