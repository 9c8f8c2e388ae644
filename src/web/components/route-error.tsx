import { isRouteErrorResponse, useRouteError } from 'react-router';

/** Shown when a route fails to load (e.g. a chunk is gone after a deploy) or throws. */
export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : 'Something Went Wrong';
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col items-center justify-center gap-4 p-6 text-center">
      <h1 className="text-2xl font-semibold">{message}</h1>
      <p className="text-slate-600 dark:text-slate-400">Reload the page to try again.</p>
      <button
        type="button"
        className="rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
        onClick={() => window.location.reload()}
      >
        Reload
      </button>
    </main>
  );
}
