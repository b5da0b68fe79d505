import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterEach } from 'vitest';

/**
 * Every answer a test receives from one of our servers over HTTP is checked against the server's own
 * /openapi.json: the operation must document the status, and a JSON body must match the schema given
 * for it. A response the document does not allow fails the test that received it, so the document
 * cannot drift from what clients are actually sent (a validating proxy such as Prism would flag it).
 * Installed for every test file (vitest setupFiles); origins that do not serve our document (webhook
 * receivers, HAProxy's stats, Chromium) are left alone.
 */

interface Operation { pattern: RegExp; method: string; path: string; responses: Record<string, any>; doc: string }
interface Checker { operations: Operation[]; ajv: Ajv2020; validators: Map<object, ValidateFunction> }

const realFetch = globalThis.fetch;
const checkers = new Map<string, Promise<Checker | null>>();
const violations: string[] = [];

/** The operations of one of the server's documents, its components registered in `ajv` under `id`. */
function operationsOf(doc: any, id: string, ajv: Ajv2020): Operation[] {
  ajv.addSchema({ $id: id, components: doc.components ?? {} });
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries<any>(item)) {
      if (op?.responses) operations.push({ pattern, method: method.toUpperCase(), path, responses: op.responses, doc: id });
    }
  }
  return operations;
}

function checkerFor(origin: string): Promise<Checker | null> {
  let c = checkers.get(origin);
  if (!c) {
    c = (async () => {
      try {
        const res = await realFetch(`${origin}/openapi.json`);
        if (res.status !== 200) return null;
        const doc = await res.json() as any;
        if (doc?.info?.title !== 'Pix Payments API') return null;
        const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
        const operations = operationsOf(doc, 'openapi.json', ajv);
        // the API Pix's own document (/v2 and the payload locations), where the server serves one
        const v2 = await realFetch(`${origin}/v2/openapi.json`);
        const v2doc = v2.status === 200 ? await v2.json() as any : null;
        if (typeof v2doc?.info?.title === 'string' && v2doc.info.title.startsWith('API Pix')) operations.push(...operationsOf(v2doc, 'v2/openapi.json', ajv));
        return { operations, ajv, validators: new Map() };
      } catch {
        // a server that is gone or not ours: nothing to check against (retried on the next request)
        checkers.delete(origin);
        return null;
      }
    })();
    checkers.set(origin, c);
  }
  return c;
}

/** Rewrites a document's "#/components/…" references to the schema registered under its id. */
function rebase(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rebase(s, id));
  if (schema && typeof schema === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${id}${v}` : rebase(v, id);
    return out;
  }
  return schema;
}

async function check(method: string, url: URL, res: Response) {
  const checker = await checkerFor(url.origin);
  if (!checker) return;
  const op = checker.operations.find((o) => o.method === method && o.pattern.test(url.pathname));
  if (!op) return; // not a documented operation (a page, /healthz, an unknown path)
  const where = `${method} ${url.pathname} → ${res.status}`;
  const documented = op.responses[String(res.status)] ?? op.responses.default;
  if (!documented) {
    violations.push(`${where}: status not documented for ${op.path} (documented: ${Object.keys(op.responses).join(', ')})`);
    return;
  }
  const type = res.headers.get('content-type') ?? '';
  const schema = documented.content?.['application/json']?.schema;
  if (!type.includes('application/json') || !schema) return;
  const text = await res.text();
  if (text === '') return;
  let body: unknown;
  try { body = JSON.parse(text); } catch { violations.push(`${where}: body is not JSON`); return; }
  // compiled once per documented schema (ajv caches by object, and the rebased copy is new each time:
  // compiling it for every answer cost 3-10 ms of CPU per response)
  let validate = checker.validators.get(schema);
  if (!validate) checker.validators.set(schema, validate = checker.ajv.compile(rebase(schema, op.doc) as object));
  if (!validate(body)) {
    violations.push(`${where}: body does not match the document: ${checker.ajv.errorsText(validate.errors)}\n  body: ${text.slice(0, 400)}`);
  }
}

globalThis.fetch = async function checkedFetch(input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) {
  const res = await realFetch(input, init);
  const request = input instanceof Request ? input : null;
  const url = new URL(request ? request.url : String(input));
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') {
    try { await check(method, url, res.clone()); } catch (err) { violations.push(`${method} ${url.pathname}: could not check: ${String(err)}`); }
  }
  return res;
} as typeof fetch;

/** The violations found since the last call (the checker's own test reads them). */
export function takeOpenApiViolations(): string[] {
  return violations.splice(0);
}

afterEach(() => {
  if (violations.length === 0) return;
  const found = takeOpenApiViolations();
  throw new Error(`answers that /openapi.json does not allow:\n${found.join('\n')}`);
});
