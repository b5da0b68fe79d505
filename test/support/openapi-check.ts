import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach } from 'vitest';

/**
 * Every answer a test receives from one of our servers over HTTP is checked against the server's own
 * /openapi.json: the operation must document the status, and a JSON body must match the schema given
 * for it. A response the document does not allow fails the test that received it, so the document
 * cannot drift from what clients are actually sent (a validating proxy such as Prism would flag it).
 * Installed for every test file (vitest setupFiles); origins that do not serve our document (webhook
 * receivers, HAProxy's stats, Chromium) are left alone.
 */

interface Operation { pattern: RegExp; method: string; path: string; responses: Record<string, any> }
interface Checker { operations: Operation[]; ajv: Ajv2020 }

const realFetch = globalThis.fetch;
const checkers = new Map<string, Promise<Checker | null>>();
const violations: string[] = [];

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
        ajv.addSchema({ $id: 'openapi.json', components: doc.components ?? {} });
        const operations: Operation[] = [];
        for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
          const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
          for (const [method, op] of Object.entries<any>(item)) {
            if (op?.responses) operations.push({ pattern, method: method.toUpperCase(), path, responses: op.responses });
          }
        }
        return { operations, ajv };
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

/** Rewrites the document's "#/components/…" references to the schema registered under "openapi.json". */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi.json${v}` : rebase(v);
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
  const validate = checker.ajv.compile(rebase(schema) as object);
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
