import { Link } from 'react-router';
import { Card, CardContent } from '../components/ui/card.tsx';
import { AppPageHeader } from '../components/layout/app-page-header.tsx';

/** /app/about: a placeholder page (docs/spec.md §2). */
export function AboutPage() {
  return (
    <>
      <AppPageHeader title="About Proofmail" />
      <Card>
        <CardContent className="space-y-3 text-sm leading-6 text-slate-600 dark:text-slate-400">
          <p>
            Proofmail sends your HTML email to real inboxes, keeps every version you sent, and gives your
            clients a link to see it in any browser.
          </p>
          <p>
            Questions or ideas?{' '}
            <Link to="/contact" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
              Get in touch
            </Link>
            .
          </p>
        </CardContent>
      </Card>
    </>
  );
}
