import { useEffect, useState } from 'react';

/**
 * True once the element comes within 100 px of the viewport (and from then on): what sits below
 * the fold loads when the reader heads for it. Pass the returned callback as the `ref`.
 */
export function useNearViewport<T extends Element>() {
  const [el, setEl] = useState<T | null>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    if (near || !el) return;
    const observer = new IntersectionObserver((entries) => entries[0]?.isIntersecting && setNear(true), {
      rootMargin: '100px',
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [el, near]);
  return [setEl, near] as const;
}
