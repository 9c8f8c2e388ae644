import type { Review } from '../../../shared/contract/review.ts';

/** The number of each pinned review, in the order they were written (1, 2, 3…). */
export function pinNumbers(reviews: Review[]): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const r of reviews) if (r.pin) numbers.set(r.id, numbers.size + 1);
  return numbers;
}

/** The id of a review's entry in ReviewList: its pin marker (pin-markers.tsx) leads there. */
export const reviewElementId = (id: string) => `review-${id}`;
