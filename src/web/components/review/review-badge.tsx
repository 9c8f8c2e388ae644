import { CheckCircle2, MessageSquare, PenLine } from 'lucide-react';
import type { ReviewDecision } from '../../../shared/contract/review.ts';
import { Badge } from '../ui/badge.tsx';

const LABELS: Record<ReviewDecision, string> = {
  approved: 'Approved',
  changes_requested: 'Changes requested',
  comment: 'Comment',
};

/** "Approved v3", "Changes requested v2": a reviewer's decision on one version of an email. */
export function ReviewBadge({ decision, version }: { decision: ReviewDecision; version?: number }) {
  const icon =
    decision === 'approved' ? (
      <CheckCircle2 aria-hidden="true" />
    ) : decision === 'changes_requested' ? (
      <PenLine aria-hidden="true" />
    ) : (
      <MessageSquare aria-hidden="true" />
    );
  return (
    <Badge
      color={decision === 'approved' ? 'green' : decision === 'changes_requested' ? 'orange' : 'gray'}
      data-testid="review-badge"
    >
      {icon}
      {LABELS[decision]}
      {version === undefined ? null : ` v${version}`}
    </Badge>
  );
}
