import type { ReactNode } from 'react';
import { Badge } from '../../components/ui/badge.tsx';
import {
  limitsOf,
  refName,
  resolveRef,
  typeLabel,
  type JsonSchema,
  type OpenApiDocument,
} from './openapi-model.ts';

/** How deep nested objects are shown before the page says "…" (recursive schemas end there). */
const MAX_DEPTH = 6;

interface Ctx {
  root: JsonSchema;
  doc?: OpenApiDocument;
  depth: number;
  seen: string[];
}

/** Follows `$ref`s; `name` is the last definition followed, `cycle` when it points back. */
function deref(schema: JsonSchema, ctx: Ctx): { schema: JsonSchema; name?: string; cycle?: boolean } {
  let s = schema;
  let name: string | undefined;
  for (let i = 0; i < 8 && typeof s.$ref === 'string'; i++) {
    const ref = s.$ref;
    if (ctx.seen.includes(ref)) return { schema: s, name: refName(ref), cycle: true };
    const target = resolveRef(ref, ctx.root, ctx.doc);
    if (!target) return { schema: s, name: refName(ref) };
    name = refName(ref);
    const { $ref: _ref, ...rest } = s;
    s = { ...target, ...rest };
  }
  return { schema: s, name };
}

/** `oneOf`/`anyOf` without its `{ type: 'null' }` branch, and whether that branch was there. */
function variantsOf(schema: JsonSchema): { variants: JsonSchema[]; nullable: boolean } {
  const list = (schema.oneOf ?? schema.anyOf ?? []) as JsonSchema[];
  const isNull = (v: JsonSchema) => v.type === 'null';
  return { variants: list.filter((v) => !isNull(v)), nullable: list.some(isNull) };
}

function Enum({ values }: { values: unknown[] }) {
  return (
    <span className="text-slate-600 dark:text-slate-400">
      one of{' '}
      {values.map((v, i) => (
        <span key={i}>
          {i > 0 ? ', ' : null}
          <code className="rounded bg-slate-100 px-1 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-200">
            {JSON.stringify(v)}
          </code>
        </span>
      ))}
    </span>
  );
}

/** The line under a property or a schema: type, required, enum, limits, description. */
function Facts({
  schema,
  ctx,
  required,
  name,
}: {
  schema: JsonSchema;
  ctx: Ctx;
  required?: boolean;
  name?: ReactNode;
}) {
  const { schema: s, name: defName } = deref(schema, ctx);
  const { variants, nullable } = variantsOf(s);
  let type = variants.length === 1 ? typeLabel(deref(variants[0]!, ctx).schema) : typeLabel(s);
  if (defName && !s.type) type = defName;
  if (nullable && !type.includes('null')) type += ' | null';
  const values = Array.isArray(s.enum) ? (s.enum as unknown[]) : undefined;
  const limits = limitsOf(s);
  return (
    <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1 text-sm">
      {name}
      <span className="font-mono text-xs text-brand-700 dark:text-brand-300" data-type>
        {type}
      </span>
      {required ? (
        <Badge color="orange" className="py-0 text-[11px]">
          required
        </Badge>
      ) : null}
      {values ? <Enum values={values} /> : null}
      {limits.length ? (
        <span className="text-xs text-slate-500 dark:text-slate-400">{limits.join(' · ')}</span>
      ) : null}
      {typeof s.description === 'string' ? (
        <p className="basis-full text-slate-600 dark:text-slate-400">{s.description}</p>
      ) : null}
    </div>
  );
}

/** What is inside a schema: its properties, array items or variants; nothing for a plain value. */
function Children({ schema, ctx }: { schema: JsonSchema; ctx: Ctx }): ReactNode {
  const { schema: s, name, cycle } = deref(schema, ctx);
  if (cycle) return <p className="text-xs text-slate-500 dark:text-slate-400">{name} (as above)</p>;
  const next: Ctx = {
    ...ctx,
    depth: ctx.depth + 1,
    seen: typeof schema.$ref === 'string' ? [...ctx.seen, schema.$ref] : ctx.seen,
  };
  const { variants } = variantsOf(s);
  const hasInside =
    s.properties || (s.items && typeof s.items === 'object') || variants.length > 0 || s.additionalProperties;
  if (!hasInside) return null;
  if (ctx.depth >= MAX_DEPTH) return <p className="text-xs text-slate-500 dark:text-slate-400">…</p>;

  if (variants.length === 1) return <Children schema={variants[0]!} ctx={next} />;
  if (variants.length > 1) {
    return (
      <div className="space-y-2">
        <p className="text-xs font-medium text-slate-500 uppercase dark:text-slate-400">One of</p>
        <ol className="space-y-2">
          {variants.map((v, i) => (
            <li key={i} className="rounded-lg border border-slate-200 p-3 dark:border-slate-800">
              <Facts schema={v} ctx={next} />
              <div className="mt-2">
                <Children schema={v} ctx={next} />
              </div>
            </li>
          ))}
        </ol>
      </div>
    );
  }
  if (s.properties && typeof s.properties === 'object') {
    const required = new Set((s.required as string[] | undefined) ?? []);
    return (
      <ul className="divide-y divide-slate-100 dark:divide-slate-800" data-schema-properties>
        {Object.entries(s.properties as Record<string, JsonSchema>).map(([prop, child]) => (
          <li key={prop} className="py-2.5" data-property={prop}>
            <Facts
              schema={child}
              ctx={next}
              required={required.has(prop)}
              name={
                <code className="font-mono text-sm font-semibold text-slate-900 dark:text-white">{prop}</code>
              }
            />
            <Nested schema={child} ctx={next} />
          </li>
        ))}
      </ul>
    );
  }
  if (s.items && typeof s.items === 'object') return <Children schema={s.items as JsonSchema} ctx={next} />;
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    return (
      <div>
        <p className="text-xs text-slate-500 dark:text-slate-400">Each value:</p>
        <Facts schema={s.additionalProperties as JsonSchema} ctx={next} />
        <Nested schema={s.additionalProperties as JsonSchema} ctx={next} />
      </div>
    );
  }
  return null;
}

/** A property's own children, indented under it. */
function Nested({ schema, ctx }: { schema: JsonSchema; ctx: Ctx }) {
  const inside = <Children schema={schema} ctx={ctx} />;
  return (
    <div className="mt-1 border-l-2 border-slate-100 pl-4 empty:hidden dark:border-slate-800">{inside}</div>
  );
}

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) as a readable nested list of its properties. */
export function SchemaView({ schema, doc }: { schema: JsonSchema; doc?: OpenApiDocument }) {
  const ctx: Ctx = { root: schema, doc, depth: 0, seen: [] };
  const { schema: s } = deref(schema, ctx);
  const plain = !s.properties && !s.items && !s.oneOf && !s.anyOf && !s.additionalProperties;
  return (
    <div className="space-y-2">
      {plain || !s.properties ? <Facts schema={schema} ctx={ctx} /> : null}
      <Children schema={schema} ctx={ctx} />
    </div>
  );
}
