import { FileQuestion } from 'lucide-react';
import { Link, useSearchParams } from 'react-router';
import { buttonClasses } from '../../components/ui/button.tsx';
import { Problem } from './page-shell.tsx';

/** `?v=` named a version this working link does not have (never existed, or deleted since). */
export function VersionNotAvailable({ slug, version }: { slug: string; version: number }) {
  const [params] = useSearchParams();
  const next = new URLSearchParams(params);
  next.delete('v');
  const search = next.toString();
  return (
    <Problem
      slug={slug}
      icon={<FileQuestion aria-hidden="true" />}
      title="Version Not Available"
      text={`This link has no version ${version}: it may have been deleted. The latest version is still here.`}
      action={
        <Link
          to={`/s/${encodeURIComponent(slug)}${search ? `?${search}` : ''}`}
          className={buttonClasses({ className: 'mt-6' })}
        >
          View the Latest Version
        </Link>
      }
    />
  );
}
