import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A local stand-in for the Stripe API (no stripe-mock exists here), for API and browser tests.
 * It implements exactly the calls Proofmail makes, with Stripe's wire format (form-encoded
 * requests, JSON objects, `{ error }` answers, bearer secret key):
 *
 *   POST /v1/customers                 GET /v1/customers/:id     POST /v1/customers/:id (update)
 *   DELETE /v1/customers/:id
 *   POST /v1/checkout/sessions         GET /v1/checkout/sessions (by customer and status)
 *   GET /v1/checkout/sessions/:id      POST /v1/checkout/sessions/:id/expire
 *   POST /v1/billing_portal/sessions
 *   GET  /v1/subscriptions?customer=   GET  /v1/subscriptions/:id
 *
 * plus the pages a browser visits: a checkout page (`/pay/:session`) whose Pay button creates the
 * subscription and redirects to success_url (optionally firing signed webhooks at the app), and a
 * billing portal page (`/portal/:session`). Tests steer it with the knobs below and send
 * webhooks signed by the stripe package's own `generateTestHeaderString`.
 */

export const FAKE_STRIPE_SECRET_KEY = 'sk_test_proofmail_fake';
export const FAKE_STRIPE_WEBHOOK_SECRET = 'whsec_proofmail_fake';
export const FAKE_STRIPE_PRICE = 'price_pro_monthly_fake';

const DAY_S = 24 * 3600;

export type FakeSubscriptionStatus =
  'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';

export interface FakeCustomer {
  id: string;
  object: 'customer';
  email: string | null;
  metadata: Record<string, string>;
  created: number;
  livemode: false;
  deleted?: true;
}

export interface FakeSubscription {
  id: string;
  object: 'subscription';
  customer: string;
  status: FakeSubscriptionStatus;
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  canceled_at: number | null;
  created: number;
  metadata: Record<string, string>;
  items: {
    object: 'list';
    data: {
      id: string;
      object: 'subscription_item';
      price: { id: string; object: 'price' };
      quantity: number;
      current_period_start: number;
      current_period_end: number;
    }[];
    has_more: false;
    url: string;
  };
  livemode: false;
}

export interface FakeCheckoutSession {
  id: string;
  object: 'checkout.session';
  url: string | null;
  mode: string;
  customer: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  subscription: string | null;
  success_url: string;
  cancel_url: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  line_items: { price: string; quantity: number }[];
  subscription_metadata: Record<string, string>;
  created: number;
  livemode: false;
}

export interface FakePortalSession {
  id: string;
  object: 'billing_portal.session';
  url: string;
  customer: string;
  return_url: string | null;
  created: number;
  livemode: false;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

export interface SubscriptionChanges {
  status?: FakeSubscriptionStatus;
  cancelAtPeriodEnd?: boolean;
  /** Unix seconds, or a Date. */
  currentPeriodEnd?: number | Date;
}

export interface SignedWebhook {
  payload: string;
  headers: Record<string, string>;
  event: { id: string; type: string };
}

export interface FakeStripe {
  /** Base URL, e.g. http://127.0.0.1:41234 (STRIPE_API_URL). */
  url: string;
  /** The variables that turn billing on and point the app here. */
  env: Record<string, string>;
  /** Every API call (not page visits), oldest first. */
  requests: RecordedRequest[];
  customers: Map<string, FakeCustomer>;
  subscriptions: Map<string, FakeSubscription>;
  checkoutSessions: Map<string, FakeCheckoutSession>;
  portalSessions: Map<string, FakePortalSession>;
  /** Status of the subscription the checkout page's Pay button creates (default active). */
  setCheckoutOutcome: (status: FakeSubscriptionStatus) => void;
  /** Where Pay and the portal send signed webhooks (the app's /api/billing/webhook); null: none. */
  setWebhookTarget: (url: string | null) => void;
  /** Creates a subscription for a customer, as Checkout would (returns it). */
  createSubscription: (customerId: string, changes?: SubscriptionChanges) => FakeSubscription;
  /** Changes a subscription in place (status, cancel at period end, period end). */
  updateSubscription: (subscriptionId: string, changes: SubscriptionChanges) => FakeSubscription;
  subscriptionsOf: (customerId: string) => FakeSubscription[];
  /** Marks a customer deleted (as the dashboard would). */
  deleteCustomer: (customerId: string) => void;
  /** Every API call from now on answers after `ms` (0: at once), as a slow Stripe would. */
  delayCalls: (ms: number) => void;
  /** API calls that have arrived and wait out that delay. */
  delayedCalls: () => number;
  /** The next `count` API calls to a matching path answer 500 (Stripe's client retries twice). */
  failCalls: (path: string | RegExp, count: number) => void;
  /** The API calls to one path (optionally one method). */
  callsTo: (path: string | RegExp, method?: string) => RecordedRequest[];
  /** A webhook event with the given object, signed like Stripe signs it (or with a wrong secret). */
  signedEvent: (type: string, object: object, options?: { id?: string; secret?: string }) => SignedWebhook;
  /** Signs and POSTs an event to `target` (default: the webhook target); resolves to the status. */
  deliver: (type: string, object: object, options?: { id?: string; target?: string }) => Promise<number>;
  stop: () => Promise<void>;
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}

function nowS(): number {
  return Math.floor(Date.now() / 1000);
}

/** Parses Stripe's form encoding (`a[b][0][c]=v`) into nested objects and arrays. */
export function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [fullKey, value] of new URLSearchParams(text)) {
    const parts = fullKey.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]!);
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
      } else {
        container[part] ??= nextIsIndex ? [] : {};
        node = container[part] as Record<string, unknown>;
      }
    });
  }
  return root;
}

class StripeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

const missing = (what: string, id: string, param?: string) =>
  new StripeHttpError(404, 'invalid_request_error', `No such ${what}: '${id}'`, 'resource_missing', param);

function html(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1f36}
button,a.button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#635bff;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
a.secondary,button.secondary{background:#e3e8ee;color:#1a1f36}</style></head><body>${body}</body></html>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function startFakeStripe(
  options: { price?: string; webhookSecret?: string } = {},
): Promise<FakeStripe> {
  const price = options.price ?? FAKE_STRIPE_PRICE;
  const webhookSecret = options.webhookSecret ?? FAKE_STRIPE_WEBHOOK_SECRET;
  const customers = new Map<string, FakeCustomer>();
  const subscriptions = new Map<string, FakeSubscription>();
  const checkoutSessions = new Map<string, FakeCheckoutSession>();
  const portalSessions = new Map<string, FakePortalSession>();
  const requests: RecordedRequest[] = [];
  let checkoutOutcome: FakeSubscriptionStatus = 'active';
  let webhookTarget: string | null = null;
  let failures: { path: string | RegExp; left: number } | null = null;
  let delayMs = 0;
  let delayed = 0;
  let base = '';

  const createSubscription = (
    customerId: string,
    changes: SubscriptionChanges = {},
    metadata: Record<string, string> = {},
  ) => {
    if (!customers.has(customerId)) throw new Error(`fake-stripe: no customer ${customerId}`);
    const created = nowS();
    const sub: FakeSubscription = {
      id: newId('sub'),
      object: 'subscription',
      customer: customerId,
      status: 'active',
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      created,
      metadata,
      items: {
        object: 'list',
        data: [
          {
            id: newId('si'),
            object: 'subscription_item',
            price: { id: price, object: 'price' },
            quantity: 1,
            current_period_start: created,
            current_period_end: created + 30 * DAY_S,
          },
        ],
        has_more: false,
        url: '/v1/subscription_items',
      },
      livemode: false,
    };
    subscriptions.set(sub.id, sub);
    return updateSubscription(sub.id, changes);
  };

  const updateSubscription = (id: string, changes: SubscriptionChanges) => {
    const sub = subscriptions.get(id);
    if (!sub) throw new Error(`fake-stripe: no subscription ${id}`);
    if (changes.status !== undefined) {
      sub.status = changes.status;
      if (changes.status === 'canceled') sub.canceled_at = nowS();
    }
    if (changes.cancelAtPeriodEnd !== undefined) sub.cancel_at_period_end = changes.cancelAtPeriodEnd;
    if (changes.currentPeriodEnd !== undefined) {
      const end =
        changes.currentPeriodEnd instanceof Date
          ? Math.floor(changes.currentPeriodEnd.getTime() / 1000)
          : changes.currentPeriodEnd;
      for (const item of sub.items.data) item.current_period_end = end;
    }
    return sub;
  };

  const signedEvent = (
    type: string,
    object: object,
    opts: { id?: string; secret?: string } = {},
  ): SignedWebhook => {
    const event = {
      id: opts.id ?? newId('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: nowS(),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object },
    };
    const payload = JSON.stringify(event);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: opts.secret ?? webhookSecret,
    });
    return {
      payload,
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header },
      event: { id: event.id, type },
    };
  };

  const deliver = async (type: string, object: object, opts: { id?: string; target?: string } = {}) => {
    const target = opts.target ?? webhookTarget;
    if (!target) throw new Error('fake-stripe: no webhook target');
    const signed = signedEvent(type, object, { id: opts.id });
    const res = await fetch(target, { method: 'POST', headers: signed.headers, body: signed.payload });
    await res.arrayBuffer();
    return res.status;
  };

  /** Sends webhooks without blocking the browser's redirect; failures are the app's to report. */
  const fireAndForget = (events: [string, object][]) => {
    if (!webhookTarget) return;
    void (async () => {
      for (const [type, object] of events) {
        try {
          await deliver(type, object);
        } catch {
          // the app may already be shutting down
        }
      }
    })();
  };

  // ---------- API ----------

  function api(
    method: string,
    path: string,
    query: Record<string, unknown>,
    body: Record<string, unknown>,
  ): unknown {
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const meta = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, string>) : {});
    let m: RegExpExecArray | null;

    if (method === 'POST' && path === '/v1/customers') {
      const customer: FakeCustomer = {
        id: newId('cus'),
        object: 'customer',
        email: str(body.email) ?? null,
        metadata: meta(body.metadata),
        created: nowS(),
        livemode: false,
      };
      customers.set(customer.id, customer);
      return customer;
    }
    if (method === 'POST' && (m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const customer = customers.get(m[1]!);
      if (!customer || customer.deleted) throw missing('customer', m[1]!, 'id');
      if (str(body.email) !== undefined) customer.email = str(body.email)!;
      if (body.metadata) customer.metadata = { ...customer.metadata, ...meta(body.metadata) };
      return customer;
    }
    if (method === 'DELETE' && (m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const customer = customers.get(m[1]!);
      if (!customer || customer.deleted) throw missing('customer', m[1]!, 'id');
      customer.deleted = true;
      return { id: customer.id, object: 'customer', deleted: true };
    }
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const session = checkoutSessions.get(m[1]!);
      if (!session) throw missing('checkout.session', m[1]!, 'session');
      return session;
    }
    if (method === 'GET' && path === '/v1/checkout/sessions') {
      const customerId = str(query.customer);
      const status = str(query.status);
      const data = [...checkoutSessions.values()]
        .filter((s) => (!customerId || s.customer === customerId) && (!status || s.status === status))
        .sort((a, b) => b.created - a.created);
      return { object: 'list', data, has_more: false, url: '/v1/checkout/sessions' };
    }
    if (method === 'POST' && (m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path))) {
      const session = checkoutSessions.get(m[1]!);
      if (!session) throw missing('checkout.session', m[1]!, 'session');
      if (session.status !== 'open') {
        throw new StripeHttpError(
          400,
          'invalid_request_error',
          `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
        );
      }
      session.status = 'expired';
      session.url = null;
      return session;
    }
    if (method === 'GET' && (m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const customer = customers.get(m[1]!);
      if (!customer) throw missing('customer', m[1]!, 'id');
      return customer.deleted ? { id: customer.id, object: 'customer', deleted: true } : customer;
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const customerId = str(body.customer);
      if (!customerId || !customers.get(customerId) || customers.get(customerId)!.deleted) {
        throw missing('customer', customerId ?? '', 'customer');
      }
      if (body.mode !== 'subscription') {
        throw new StripeHttpError(
          400,
          'invalid_request_error',
          'fake-stripe: only mode=subscription is implemented',
          undefined,
          'mode',
        );
      }
      const items = Array.isArray(body.line_items) ? (body.line_items as Record<string, unknown>[]) : [];
      for (const item of items) {
        if (item.price !== price) throw missing('price', str(item.price) ?? '', 'line_items[0][price]');
      }
      if (items.length !== 1) {
        throw new StripeHttpError(
          400,
          'invalid_request_error',
          'fake-stripe: expected exactly one line item',
          undefined,
          'line_items',
        );
      }
      const success = str(body.success_url);
      const cancel = str(body.cancel_url);
      if (!success || !cancel) {
        throw new StripeHttpError(
          400,
          'invalid_request_error',
          'Missing success_url or cancel_url',
          'parameter_missing',
        );
      }
      const id = newId('cs_test');
      const session: FakeCheckoutSession = {
        id,
        object: 'checkout.session',
        url: `${base}/pay/${id}`,
        mode: 'subscription',
        customer: customerId,
        client_reference_id: str(body.client_reference_id) ?? null,
        metadata: meta(body.metadata),
        subscription: null,
        success_url: success,
        cancel_url: cancel,
        status: 'open',
        payment_status: 'unpaid',
        line_items: items.map((i) => ({ price: String(i.price), quantity: Number(i.quantity ?? 1) })),
        subscription_metadata: meta(
          (body.subscription_data as Record<string, unknown> | undefined)?.metadata,
        ),
        created: nowS(),
        livemode: false,
      };
      checkoutSessions.set(id, session);
      return session;
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      const customerId = str(body.customer);
      if (!customerId || !customers.get(customerId) || customers.get(customerId)!.deleted) {
        throw missing('customer', customerId ?? '', 'customer');
      }
      const id = newId('bps');
      const session: FakePortalSession = {
        id,
        object: 'billing_portal.session',
        url: `${base}/portal/${id}`,
        customer: customerId,
        return_url: str(body.return_url) ?? null,
        created: nowS(),
        livemode: false,
      };
      portalSessions.set(id, session);
      return session;
    }
    if (method === 'GET' && path === '/v1/subscriptions') {
      const customerId = str(query.customer);
      const status = str(query.status);
      const limit = Math.min(100, Number(query.limit ?? 10));
      let data = [...subscriptions.values()].filter((s) => !customerId || s.customer === customerId);
      // Stripe's default list leaves out canceled subscriptions; status=all includes them.
      if (status === undefined) data = data.filter((s) => s.status !== 'canceled');
      else if (status !== 'all') data = data.filter((s) => s.status === status);
      data.sort((a, b) => b.created - a.created);
      return {
        object: 'list',
        data: data.slice(0, limit),
        has_more: data.length > limit,
        url: '/v1/subscriptions',
      };
    }
    if (method === 'GET' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = subscriptions.get(m[1]!);
      if (!sub) throw missing('subscription', m[1]!, 'id');
      return sub;
    }
    throw new StripeHttpError(
      404,
      'invalid_request_error',
      `fake-stripe: ${method} ${path} is not implemented`,
    );
  }

  // ---------- pages ----------

  function checkoutPage(session: FakeCheckoutSession): string {
    if (session.status === 'expired') {
      return html('Checkout expired', '<h1>This checkout session has expired</h1>');
    }
    if (session.status === 'complete') {
      return html(
        'Checkout complete',
        `<h1>This checkout is already complete</h1><p><a href="${escape(session.success_url)}">Continue</a></p>`,
      );
    }
    const customer = customers.get(session.customer);
    return html(
      'Fake Stripe Checkout',
      `<h1>Fake Stripe Checkout</h1>
<p>Subscribe to <strong>Proofmail Pro</strong> (${escape(session.line_items[0]?.price ?? '')}) as
<span data-testid="checkout-email">${escape(customer?.email ?? '')}</span>.</p>
<form method="post" action="/pay/${session.id}"><button type="submit">Pay</button></form>
<p><a class="button secondary" href="${escape(session.cancel_url)}">Cancel</a></p>`,
    );
  }

  function pay(session: FakeCheckoutSession): void {
    const sub = createSubscription(
      session.customer,
      { status: checkoutOutcome },
      session.subscription_metadata,
    );
    session.status = 'complete';
    session.payment_status =
      checkoutOutcome === 'active' || checkoutOutcome === 'trialing' ? 'paid' : 'unpaid';
    session.subscription = sub.id;
    const events: [string, object][] = [['customer.subscription.created', { ...sub }]];
    if (session.payment_status === 'paid') events.push(['checkout.session.completed', { ...session }]);
    fireAndForget(events);
  }

  function portalPage(session: FakePortalSession): string {
    const customer = customers.get(session.customer);
    const subs = [...subscriptions.values()].filter((s) => s.customer === session.customer);
    const list = subs
      .map(
        (s) =>
          `<li data-subscription="${s.id}">${s.id}: ${s.status}${s.cancel_at_period_end ? ' (cancels at period end)' : ''}</li>`,
      )
      .join('');
    const back = session.return_url
      ? `<p><a class="button secondary" href="${escape(session.return_url)}">Return to Proofmail</a></p>`
      : '';
    return html(
      'Fake Stripe Billing Portal',
      `<h1>Fake Stripe Billing Portal</h1>
<p>Customer <span data-testid="portal-customer">${escape(session.customer)}</span>
(<span data-testid="portal-email">${escape(customer?.email ?? '')}</span>)</p>
<ul>${list || '<li>No subscriptions</li>'}</ul>${back}`,
    );
  }

  // ---------- server ----------

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (delayMs > 0 && req.url?.startsWith('/v1/')) {
        delayed += 1;
        setTimeout(() => {
          delayed -= 1;
          answer();
        }, delayMs);
      } else answer();
    });
    const answer = () => {
      const url = new URL(req.url ?? '/', 'http://fake-stripe');
      const method = req.method ?? 'GET';
      const path = url.pathname;
      const sendJson = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
        res.end(JSON.stringify(value));
      };
      const sendHtml = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
        res.end(body);
      };
      let m: RegExpExecArray | null;

      if (path.startsWith('/v1/')) {
        const body = parseStripeForm(Buffer.concat(chunks).toString('utf8'));
        const query = parseStripeForm(url.search.slice(1));
        requests.push({ method, path, query, body });
        if (req.headers.authorization !== `Bearer ${FAKE_STRIPE_SECRET_KEY}`) {
          sendJson(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
          return;
        }
        if (
          failures &&
          failures.left > 0 &&
          (typeof failures.path === 'string' ? failures.path === path : failures.path.test(path))
        ) {
          failures.left -= 1;
          sendJson(500, { error: { type: 'api_error', message: 'fake-stripe: injected failure' } });
          return;
        }
        try {
          sendJson(200, api(method, path, query, body));
        } catch (err) {
          if (err instanceof StripeHttpError) {
            sendJson(err.status, {
              error: { type: err.type, message: err.message, code: err.code, param: err.param },
            });
          } else {
            sendJson(500, { error: { type: 'api_error', message: String(err) } });
          }
        }
        return;
      }
      if ((m = /^\/pay\/([^/]+)$/.exec(path))) {
        const session = checkoutSessions.get(m[1]!);
        if (!session) return sendHtml(404, html('Not found', '<h1>Checkout session not found</h1>'));
        if (method === 'POST') {
          if (session.status === 'open') pay(session);
          res.writeHead(303, { location: session.success_url });
          res.end();
          return;
        }
        return sendHtml(200, checkoutPage(session));
      }
      if ((m = /^\/portal\/([^/]+)$/.exec(path))) {
        const session = portalSessions.get(m[1]!);
        if (!session) return sendHtml(404, html('Not found', '<h1>Portal session not found</h1>'));
        return sendHtml(200, portalPage(session));
      }
      sendHtml(404, html('Not found', '<h1>Not found</h1>'));
    };
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    env: {
      STRIPE_SECRET_KEY: FAKE_STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PRICE_PRO_MONTHLY: price,
      STRIPE_API_URL: base,
    },
    requests,
    customers,
    subscriptions,
    checkoutSessions,
    portalSessions,
    setCheckoutOutcome: (status) => {
      checkoutOutcome = status;
    },
    setWebhookTarget: (url) => {
      webhookTarget = url;
    },
    createSubscription: (customerId, changes) => createSubscription(customerId, changes),
    updateSubscription,
    subscriptionsOf: (customerId) => [...subscriptions.values()].filter((s) => s.customer === customerId),
    deleteCustomer: (customerId) => {
      const c = customers.get(customerId);
      if (c) c.deleted = true;
    },
    delayCalls: (ms) => {
      delayMs = ms;
    },
    delayedCalls: () => delayed,
    failCalls: (path, count) => {
      failures = { path, left: count };
    },
    callsTo: (p, method) =>
      requests.filter(
        (r) => (typeof p === 'string' ? r.path === p : p.test(r.path)) && (!method || r.method === method),
      ),
    signedEvent,
    deliver,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
