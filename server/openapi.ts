import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import type { Meta } from './trpc';

const PAYMENTS_ERROR = {
  type: 'object',
  required: ['statusCode', 'error', 'message', 'timestamp'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string', description: 'HTTP reason phrase' },
    message: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'A readable message; for 400 one string per problem, naming the field' },
    issues: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    timestamp: { type: 'string', format: 'date-time' },
  },
};

const WEBHOOKS_ERROR = {
  type: 'object',
  required: ['code', 'message', 'timestamp'],
  properties: {
    code: { type: 'integer' },
    message: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    timestamp: { type: 'string', format: 'date-time' },
  },
};

/** The 422 body docs/decisions.md "Withdrawals" fixes for POST /withdraw/pix when the balance does not cover it. */
const WITHDRAW_FAIL = {
  type: 'object',
  required: ['statusCode', 'message', 'data', 'error', 'timestamp'],
  properties: {
    statusCode: { type: 'integer', enum: [422] },
    message: { type: 'string', enum: ['WITHDRAW_FAIL'] },
    data: { type: 'array', maxItems: 0 },
    error: {
      type: 'object', required: ['code', 'detail'],
      properties: { code: { type: 'string', enum: ['INSUFFICIENT_FUNDS'] }, detail: { type: 'string' } },
    },
    timestamp: { type: 'string', format: 'date-time' },
  },
};

interface ProcedureInfo { path: string; method: string; meta: Meta }

export function restProcedures(router: AnyRouter): ProcedureInfo[] {
  const out: ProcedureInfo[] = [];
  for (const proc of Object.values(router._def.procedures as Record<string, { _def: { meta?: Meta } }>)) {
    const meta = proc._def.meta;
    if (meta?.openapi && meta.openapi.enabled !== false) out.push({ path: meta.openapi.path, method: meta.openapi.method.toLowerCase(), meta });
  }
  return out;
}

/**
 * The document trpc-to-openapi generates, corrected where it cannot know: success codes (it always
 * says 200), which of the two security schemes each path takes, and our error envelopes.
 */
export function buildOpenApiDocument(router: AnyRouter, baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(router, {
    title: 'Pix Payments API',
    description: 'Pix withdrawals, payment transactions (PIX, CARD, INVOICE) and signed webhooks. Amounts are integer cents; timestamps ISO 8601.',
    version: '1.0.0',
    baseUrl,
    // the Banco Central's API Pix (/v2) is its own document: server/openapi-pix-api.ts, /v2/openapi.json
    filter: ({ metadata }) => (metadata as Meta).envelope !== 'pix-api',
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'Access token from POST /auth/token' },
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Public project key of the account (webhook API)' },
      sessionToken: { type: 'apiKey', in: 'header', name: 'x-token', description: 'Access token from POST /auth/token (webhook API)' },
    },
  });
  doc.components ??= {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), PaymentsError: PAYMENTS_ERROR, WebhooksError: WEBHOOKS_ERROR, WithdrawFail: WITHDRAW_FAIL } as never;
  for (const p of restProcedures(router)) {
    if (p.meta.envelope === 'pix-api') continue;
    const templ = p.path.replace(/\{(\w+)\}/g, '{$1}');
    const op = (doc.paths?.[templ] as Record<string, any> | undefined)?.[p.method];
    if (!op) continue;
    const webhooks = p.meta.envelope === 'webhooks';
    const auth = p.meta.auth ?? (webhooks ? 'webhook-api' : 'bearer');
    op.security = auth === 'none' ? [] : auth === 'webhook-api' ? [{ apiKey: [], sessionToken: [] }] : [{ bearer: [] }];
    const success = p.meta.successStatus ?? 200;
    if (success !== 200 && op.responses?.['200']) {
      op.responses[String(success)] = op.responses['200'];
      delete op.responses['200'];
    }
    const ref = { $ref: webhooks ? '#/components/schemas/WebhooksError' : '#/components/schemas/PaymentsError' };
    for (const [code, resp] of Object.entries(op.responses ?? {}) as [string, any][]) {
      // trpc-to-openapi shares response objects between operations: replace, never mutate
      if (Number(code) < 400) continue;
      // a status whose body the contract fixes for this operation may also answer the envelope (422 of
      // POST /withdraw/pix: WITHDRAW_FAIL, or the envelope for an idempotency-key reused with another body)
      const fixed = p.meta.restErrorBodies?.[Number(code)];
      const schema = fixed ? { oneOf: [{ $ref: `#/components/schemas/${fixed}` }, ref] } : ref;
      op.responses[code] = { ...resp, content: { 'application/json': { schema } } };
    }
    // 503: the database is away (retry-after), or the server is at its connection limit
    const errors = ['400', '401', '403', '413', '415', '429', '500', '503'];
    for (const code of errors) {
      // 403: a dashboard session's cookie reaches these paths too, and without its CSRF token it is refused
      if ((code === '401' || code === '403') && auth === 'none') continue;
      if ((code === '413' || code === '415') && p.method === 'get') continue;
      op.responses[code] ??= { description: ({ 400: 'Invalid input', 401: 'Missing, invalid or expired credentials', 403: 'A dashboard session without its CSRF token', 413: 'Body over 64 KiB', 415: 'Body is not JSON', 429: 'Rate limited (see retry-after)', 500: 'Internal error', 503: 'The database is unavailable, or the server is at its connection limit (see retry-after)' } as Record<string, string>)[code], content: { 'application/json': { schema: ref } } };
    }
  }
  documentTransactionQueryAlias(doc);
  return doc;
}

/**
 * The published example labels the transaction query POST, and the REST adapter answers a
 * `POST /transaction` with no body and query parameters exactly as `GET /transaction`
 * (server/http/rest.ts): the document says so, with the GET's parameters and answers.
 */
function documentTransactionQueryAlias(doc: OpenAPIObject) {
  const item = doc.paths?.['/transaction'] as Record<string, any> | undefined;
  const get = item?.get;
  const post = item?.post;
  if (!get || !post) return;
  post.description = `${post.description ?? ''} With no body and any of the query parameters of GET /transaction, answers exactly as that GET (200, or 404).`.trim();
  post.parameters = [...(post.parameters ?? []), ...(get.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => ({ ...p, required: false }))];
  post.responses = { ...post.responses, 200: { ...get.responses['200'], description: 'The transaction (query alias of GET /transaction)' }, 404: get.responses['404'] };
}
