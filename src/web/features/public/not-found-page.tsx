import { Home } from 'lucide-react';
import { Link } from 'react-router';
import { PageContainer } from '../../components/layout/page-container.tsx';
import { PublicLayout } from '../../components/layout/public-layout.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { buttonClasses } from '../../components/ui/button.tsx';

export function NotFoundPage() {
  useDocumentTitle('Page Not Found');
  return (
    <PublicLayout>
      <PageContainer className="flex flex-col items-center py-24 text-center sm:py-32">
        <p className="text-sm font-semibold tracking-wide text-brand-600 dark:text-brand-400">404</p>
        <h1 className="mt-3 text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
          Page Not Found
        </h1>
        <p className="mt-4 max-w-md text-lg leading-8 text-slate-600 dark:text-slate-400">
          The page you are looking for does not exist or has moved. Check the address, or start again from the
          home page.
        </p>
        <div className="mt-10 flex flex-col gap-3 sm:flex-row">
          <Link to="/" className={buttonClasses({ size: 'lg' })}>
            <Home aria-hidden="true" />
            Back to Home
          </Link>
          <Link to="/contact" className={buttonClasses({ variant: 'outline', size: 'lg' })}>
            Contact Support
          </Link>
        </div>
      </PageContainer>
    </PublicLayout>
  );
}
