import { useQuery } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { PageContainer } from '../../components/layout/page-container.tsx';
import { PublicLayout } from '../../components/layout/public-layout.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { Badge, type BadgeColor } from '../../components/ui/badge.tsx';
import { cx, focusRing } from '../../components/ui/cx.ts';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { api } from '../../lib/api.ts';
import { OPENAPI_KEY } from '../../lib/query-keys.ts';
import {
  accessOf,
  groupOperations,
  typeLabel,
  type OpenApiDocument,
  type Operation,
  type OperationGroup,
} from './openapi-model.ts';
import { SchemaView } from './schema-view.tsx';

const METHOD_COLOR: Record<string, BadgeColor> = {
  get: 'blue',
  post: 'green',
  put: 'yellow',
  patch: 'yellow',
  delete: 'red',
};

const proseLink = cx(
  'rounded-sm font-medium text-brand-600 underline underline-offset-4 hover:text-brand-700 dark:text-brand-400 dark:hover:text-brand-300',
  focusRing,
);

const codeClass =
  'rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.85em] text-slate-800 dark:bg-slate-800 dark:text-slate-200';

/** Text from the document with its `backticked` parts as code. */
function Markdownish({ text }: { text: string }) {
  return (
    <>
      {text.split(/(`[^`]+`)/).map((part, i) =>
        part.startsWith('`') && part.endsWith('`') && part.length > 1 ? (
          <code key={i} className={codeClass}>
            {part.slice(1, -1)}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

/** A path that may wrap after a slash, never inside a segment. */
function PathText({ path }: { path: string }) {
  return (
    <>
      {path.split(/(?<=\/)/).map((part, i) => (
        <span key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </span>
      ))}
    </>
  );
}

function MethodBadge({ method, className }: { method: string; className?: string }) {
  return (
    <Badge
      color={METHOD_COLOR[method] ?? 'gray'}
      className={cx('justify-center rounded-md font-mono text-[11px] font-semibold uppercase', className)}
    >
      {method}
    </Badge>
  );
}

function Access({ op }: { op: Operation }) {
  const access = accessOf(op);
  if (access === 'apiKey') {
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-access="apiKey">
        <Badge color="green">API key accepted</Badge> Call it with an API key or a session token.
      </p>
    );
  }
  if (access === 'session') {
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-access="session">
        <Badge color="gray">Session only</Badge> An API key is refused here: it cannot read or change the
        account settings.
      </p>
    );
  }
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-access="public">
      <Badge color="blue">Public</Badge> No authentication needed.
    </p>
  );
}

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="mt-6">
      <h4 className="text-sm font-semibold text-slate-900 dark:text-white">{title}</h4>
      <div className="mt-2">{children}</div>
    </div>
  );
}

function OperationSection({ op, doc }: { op: Operation; doc: OpenApiDocument }) {
  const body = Object.entries(op.requestBody?.content ?? {})[0];
  const responses = Object.entries(op.responses ?? {});
  return (
    <section
      id={op.anchor}
      aria-labelledby={`${op.anchor}-title`}
      data-operation={`${op.method.toUpperCase()} ${op.path}`}
      className="scroll-mt-20 rounded-xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6 dark:border-slate-800 dark:bg-slate-900"
    >
      <h3 id={`${op.anchor}-title`} className="flex flex-wrap items-center gap-2.5">
        <MethodBadge method={op.method} className="min-w-16 py-1" />
        <a
          href={`#${op.anchor}`}
          className={cx('rounded-sm hover:underline hover:underline-offset-4', focusRing)}
          aria-label={`${op.method.toUpperCase()} ${op.path}`}
        >
          <code className="font-mono text-base font-semibold text-slate-900 dark:text-white">
            <PathText path={op.path} />
          </code>
        </a>
      </h3>
      {op.summary ? (
        <p className="mt-3 text-base text-slate-800 dark:text-slate-200">
          <Markdownish text={op.summary} />
        </p>
      ) : null}
      {op.description ? (
        <p className="mt-2 text-sm leading-6 text-slate-600 dark:text-slate-400">
          <Markdownish text={op.description} />
        </p>
      ) : null}
      <div className="mt-3">
        <Access op={op} />
      </div>

      {op.parameters?.length ? (
        <Block title="Parameters">
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {op.parameters.map((p) => (
              <li
                key={`${p.in}-${p.name}`}
                className="flex flex-wrap items-baseline gap-x-2 gap-y-1 py-2.5 text-sm"
              >
                <code className="font-mono font-semibold text-slate-900 dark:text-white">{p.name}</code>
                <span className="text-xs text-slate-500 dark:text-slate-400">in {p.in}</span>
                {p.schema ? (
                  <span className="font-mono text-xs text-brand-700 dark:text-brand-300">
                    {typeLabel(p.schema)}
                  </span>
                ) : null}
                {p.required ? (
                  <Badge color="orange" className="py-0 text-[11px]">
                    required
                  </Badge>
                ) : null}
                {p.schema ? <ParameterDetail schema={p.schema} doc={doc} /> : null}
              </li>
            ))}
          </ul>
        </Block>
      ) : null}

      {body ? (
        <Block title="Request Body">
          <p className="mb-1 text-xs text-slate-500 dark:text-slate-400">
            <code className="font-mono">{body[0]}</code>
          </p>
          <div data-request-body>
            {body[1].schema ? <SchemaView schema={body[1].schema} doc={doc} /> : null}
          </div>
        </Block>
      ) : null}

      <Block title="Responses">
        <div className="space-y-2">
          {responses.map(([status, res]) => {
            const content = Object.entries(res.content ?? {})[0];
            const ok = /^2/.test(status);
            return (
              <details
                key={status}
                open={ok}
                data-response={status}
                className="group rounded-lg border border-slate-200 dark:border-slate-800"
              >
                <summary
                  className={cx(
                    'flex cursor-pointer list-none flex-wrap items-center gap-2 rounded-lg px-3 py-2 text-sm [&::-webkit-details-marker]:hidden',
                    focusRing,
                  )}
                >
                  <Badge color={ok ? 'green' : status === 'default' ? 'red' : 'yellow'} className="font-mono">
                    {status === 'default' ? '4xx/5xx' : status}
                  </Badge>
                  <span className="min-w-0 flex-1 text-slate-700 dark:text-slate-300">
                    {res.description ? <Markdownish text={res.description} /> : null}
                  </span>
                  {content ? (
                    <code className="font-mono text-xs text-slate-500 dark:text-slate-400">{content[0]}</code>
                  ) : null}
                </summary>
                {content?.[1].schema ? (
                  <div className="border-t border-slate-200 px-3 py-2 dark:border-slate-800">
                    <SchemaView schema={content[1].schema} doc={doc} />
                  </div>
                ) : null}
              </details>
            );
          })}
        </div>
      </Block>
    </section>
  );
}

/** A parameter's enum, limits and description (its name and type are on the line already). */
function ParameterDetail({ schema, doc }: { schema: Record<string, unknown>; doc: OpenApiDocument }) {
  const plain = !schema.enum && !schema.description && !schema.maxLength && !schema.minimum && !schema.format;
  if (plain) return null;
  const { type: _type, ...rest } = schema;
  return (
    <div className="basis-full">
      <SchemaView schema={rest} doc={doc} />
    </div>
  );
}

const tocLink = cx(
  'flex items-center gap-2 rounded-md px-2 py-1 text-slate-700 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white',
  focusRing,
);

function Contents({ groups }: { groups: OperationGroup[] }) {
  return (
    <nav
      aria-labelledby="api-toc-title"
      className="rounded-xl border border-slate-200 bg-slate-50 p-4 lg:sticky lg:top-20 lg:max-h-[calc(100dvh-6rem)] lg:overflow-y-auto dark:border-slate-800 dark:bg-slate-900/60"
    >
      <h2 id="api-toc-title" className="px-2 text-sm font-semibold text-slate-900 dark:text-white">
        Endpoints
      </h2>
      <ul className="mt-2 max-h-72 space-y-3 overflow-y-auto text-sm lg:max-h-none lg:overflow-visible">
        {groups.map((g) => (
          <li key={g.name}>
            <a href={`#${g.anchor}`} className={cx(tocLink, 'font-medium')}>
              {g.name}
            </a>
            <ul className="mt-0.5 space-y-0.5">
              {g.operations.map((op) => (
                <li key={op.anchor}>
                  <a href={`#${op.anchor}`} className={tocLink}>
                    <MethodBadge method={op.method} className="w-14 shrink-0 px-0" />
                    <code className="min-w-0 font-mono text-xs">
                      <PathText path={op.path.replace(/^\/api/, '')} />
                    </code>
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Once the document has rendered, scroll to the operation the address names (#post-api-email-send). */
function useScrollToHash(ready: boolean) {
  useEffect(() => {
    if (!ready || !window.location.hash) return;
    document.getElementById(decodeURIComponent(window.location.hash.slice(1)))?.scrollIntoView();
  }, [ready]);
}

/** /docs/api: the API Reference, rendered from the OpenAPI document the server builds from the contract. */
export function ApiReferencePage() {
  useDocumentTitle('API Reference');
  const query = useQuery({
    queryKey: OPENAPI_KEY,
    queryFn: () => api<OpenApiDocument>('/api/openapi.json'),
    staleTime: 10 * 60_000,
  });
  const doc = query.data;
  const groups = doc ? groupOperations(doc) : [];
  useScrollToHash(Boolean(doc));
  const server = doc?.servers?.[0]?.url ?? window.location.origin;

  return (
    <PublicLayout>
      <PageContainer className="py-12 sm:py-16">
        <header className="max-w-3xl">
          <h1 className="text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
            API Reference
          </h1>
          <div className="mt-6 space-y-4 text-base leading-7 text-slate-700 dark:text-slate-300">
            <p>
              Everything the web app does with an email you can do from a script: send, preview, read, share
              and delete. Every answer is JSON but the exported files (.eml, PNG, PDF, HTML); every error is{' '}
              <code className={codeClass}>{'{ error, code? }'}</code> with a status saying which kind.
            </p>
            <p>
              Authenticate with a personal API key,{' '}
              <code className={codeClass}>Authorization: Bearer pm_…</code>, created in{' '}
              <Link to="/app/account#api-keys" className={proseLink}>
                Account → API Keys
              </Link>
              , or with the session token the web app uses. A key acts as you within your plan but cannot
              change your account.
            </p>
            <p>
              From a terminal or CI, the <code className={codeClass}>proofmail</code> command wraps it:
            </p>
            <pre className="overflow-x-auto rounded-lg bg-slate-900 px-4 py-3 font-mono text-sm text-slate-100 dark:bg-slate-800/70">
              npx proofmail send email.html --to you@example.com --share
            </pre>
            <p className="text-sm text-slate-500 dark:text-slate-400">
              Base URL <code className={cx(codeClass, 'break-all')}>{server}</code> · the OpenAPI 3.1 document
              is at{' '}
              <a href="/api/openapi.json" className={proseLink}>
                /api/openapi.json
              </a>
              {doc ? ` (version ${doc.info.version})` : null}.
            </p>
          </div>
        </header>

        {query.isError ? (
          <FormAlert className="mt-10 max-w-3xl">
            The API description could not be loaded. Reload the page to try again.
          </FormAlert>
        ) : null}

        {query.isPending ? (
          <div className="mt-12 grid gap-8 lg:grid-cols-[260px_minmax(0,1fr)]" aria-busy="true">
            <Skeleton className="hidden h-96 lg:block" />
            <div className="space-y-4">
              <Skeleton className="block h-40" />
              <Skeleton className="block h-40" />
            </div>
          </div>
        ) : null}

        {doc ? (
          <div className="mt-12 grid items-start gap-8 lg:grid-cols-[260px_minmax(0,1fr)]">
            <Contents groups={groups} />
            <div className="min-w-0 space-y-14">
              {groups.map((g) => (
                <section
                  key={g.name}
                  id={g.anchor}
                  aria-labelledby={`${g.anchor}-title`}
                  className="scroll-mt-20"
                >
                  <h2
                    id={`${g.anchor}-title`}
                    className="text-2xl font-semibold tracking-tight text-slate-900 dark:text-white"
                  >
                    {g.name}
                  </h2>
                  {g.description ? (
                    <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{g.description}</p>
                  ) : null}
                  <div className="mt-5 space-y-6">
                    {g.operations.map((op) => (
                      <OperationSection key={op.anchor} op={op} doc={doc} />
                    ))}
                  </div>
                </section>
              ))}
            </div>
          </div>
        ) : null}
      </PageContainer>
    </PublicLayout>
  );
}
