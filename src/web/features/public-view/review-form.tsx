import { MapPin, X } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import {
  REVIEW_COMMENT_MAX,
  REVIEW_MESSAGES,
  REVIEW_NAME_MAX,
  type ReviewDecision,
} from '../../../shared/contract/review.ts';
import type { PickedPin } from '../../components/review/pin-markers.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Field, fieldDescription, Input } from '../../components/ui/input.tsx';
import { SegmentedControl } from '../../components/ui/segmented-control.tsx';
import { Textarea } from '../../components/ui/textarea.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { usePostReview } from './api.ts';

const NAME_KEY = 'proofmail.reviewer-name';
const DECISIONS: { value: ReviewDecision; label: string }[] = [
  { value: 'approved', label: 'Approve' },
  { value: 'changes_requested', label: 'Request Changes' },
  { value: 'comment', label: 'Comment' },
];
const SENT: Record<ReviewDecision, string> = {
  approved: 'Approval sent',
  changes_requested: 'Change request sent',
  comment: 'Comment sent',
};

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
 */
export function ReviewForm({
  slug,
  token,
  version,
  pin,
  picking,
  onPickingChange,
  onClearPin,
}: {
  slug: string;
  token: string | null;
  version: number;
  pin: PickedPin | null;
  picking: boolean;
  onPickingChange: (picking: boolean) => void;
  onClearPin: () => void;
}) {
  const post = usePostReview(slug, token);
  const [name, setName] = useState(rememberedName);
  const [decision, setDecision] = useState<ReviewDecision>('approved');
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<{ name?: string; comment?: string; form?: string }>({});

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: typeof errors = {};
    if (!name.trim()) next.name = REVIEW_MESSAGES.nameRequired;
    else if (chars(name.trim()) > REVIEW_NAME_MAX) next.name = REVIEW_MESSAGES.nameTooLong;
    if (chars(comment.trim()) > REVIEW_COMMENT_MAX) next.comment = REVIEW_MESSAGES.commentTooLong;
    else if (decision === 'comment' && !comment.trim()) next.comment = REVIEW_MESSAGES.commentRequired;
    setErrors(next);
    if (next.name || next.comment) return;
    post.mutate(
      {
        name,
        decision,
        comment: comment.trim() ? comment : null,
        version,
        pin: pin ? { x: pin.x, y: pin.y, width: pin.width } : null,
      },
      {
        onSuccess: () => {
          try {
            sessionStorage.setItem(NAME_KEY, name.trim());
          } catch {
            // Storage off: the name is typed again next time.
          }
          setComment('');
          onClearPin();
          toast.success(SENT[decision], `Thank you, ${name.trim()}. The sender has been told.`);
        },
        onError: (err) => setErrors({ form: errorMessage(err) }),
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate className="space-y-4" aria-label="Review this email">
      <Field id="reviewer-name" label="Your Name" error={errors.name}>
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
      <div className="space-y-2">
        <p className="text-sm font-medium text-slate-800 dark:text-slate-200">Your Review of v{version}</p>
        <SegmentedControl
          label="Decision"
          options={DECISIONS}
          value={decision}
          onChange={setDecision}
          className="flex-wrap"
        />
      </div>
      <Field
        id="review-comment"
        label={decision === 'comment' ? 'Comment' : 'Comment (Optional)'}
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
            type="button"
            variant={picking ? 'secondary' : 'outline'}
            size="sm"
            aria-pressed={picking}
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
      <Button type="submit" busy={post.isPending} className="w-full sm:w-auto">
        Send Review
      </Button>
    </form>
  );
}
