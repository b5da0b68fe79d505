// Validators for the schemas of the Banco Central's API Pix (../shared/spec/bcb-pix-api-2.9.0.yaml), read
// from the yaml itself so a test checks against the published contract, not a copy of it. Two
// corrections, each where the yaml, read literally, refuses its own examples:
// - patterns written as JavaScript regex literals ("/^\d{11}$/"): read without the slashes (DECISIONS.md);
// - DadosRecebedor lists `required: [logradouro, cidade, uf, cep]` at its top level, beside the property
//   `recebedor`, so the whole payload would need those fields; the same list stands inside `recebedor`,
//   where the example cobPayload2 has them. The top-level copy is dropped.
import { parse } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ajv-formats is CommonJS: under ESM its function is the default export's default
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule);

/**
 * The yaml in ../shared/spec beside the project (DECISIONS.md and the issue name it there; CI lays a copy
 * of shared/ beside its clone): looked for in each folder above this one, so a worktree finds it too.
 */
export const BCB_PIX_YAML = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'shared', 'spec', 'bcb-pix-api-2.9.0.yaml');
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error('shared/spec/bcb-pix-api-2.9.0.yaml not found above the project');
    dir = up;
  }
})();

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function corrected(node: Json, name?: string): Json {
  if (Array.isArray(node)) return node.map((n) => corrected(n));
  if (node && typeof node === 'object') {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'pattern' && typeof v === 'string' && /^\/.*\/$/.test(v)) out[k] = v.slice(1, -1);
      else if (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) out[k] = `bcb-pix${v}`;
      else out[k] = corrected(v);
    }
    if (name === 'DadosRecebedor') delete out.required;
    return out;
  }
  return node;
}

export interface BcbPixSchemas {
  /** The raw document (for its examples). */
  doc: { components: { schemas: Record<string, Json>; examples: Record<string, { value: Json }> } };
  /** A validator for components.schemas[name]; `closed`: no properties at the top level beyond those the schema declares. */
  validator(name: string, opts?: { closed?: boolean }): ValidateFunction;
}

let loaded: Promise<BcbPixSchemas> | null = null;

export function loadBcbPixSchemas(): Promise<BcbPixSchemas> {
  loaded ??= (async () => {
    const doc = (await parse(BCB_PIX_YAML)) as unknown as BcbPixSchemas['doc'];
    const schemas: Record<string, Json> = {};
    for (const [name, schema] of Object.entries(doc.components.schemas)) schemas[name] = corrected(schema, name);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // OpenAPI's integer formats, which ajv-formats does not know
    ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    ajv.addSchema({ $id: 'bcb-pix', components: { schemas } });
    const cache = new Map<string, ValidateFunction>();
    return {
      doc,
      validator(name, opts = {}) {
        const id = `${name}:${opts.closed ? 'closed' : 'open'}`;
        let v = cache.get(id);
        if (!v) {
          if (!(name in schemas)) throw new Error(`the yaml has no schema ${name}`);
          // unevaluatedProperties sees through $ref and allOf (2020-12), so a misspelt field is caught
          v = ajv.compile(opts.closed ? { $ref: `bcb-pix#/components/schemas/${name}`, unevaluatedProperties: false } : { $ref: `bcb-pix#/components/schemas/${name}` });
          cache.set(id, v);
        }
        return v;
      },
    };
  })();
  return loaded;
}

/** Ajv's errors as one line each, for a failing expectation's message. */
export function schemaErrors(v: ValidateFunction): string[] {
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
