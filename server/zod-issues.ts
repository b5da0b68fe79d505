import type { z } from 'zod';

/** One problem with one field of a request: `path` is dotted (`details.document`, `items.0.quantity`). */
export interface FieldIssue { path: string; message: string }

/**
 * zod's issues as field problems, for the API's 400s and the dashboard's forms alike. A missing field
 * says "is required" rather than zod's "expected string, received undefined": mapped here, once, rather
 * than by changing zod's configuration for the whole process.
 */
export function zodIssues(err: { issues: z.core.$ZodIssue[] }): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of err.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) out.push({ path: base ? `${base}.${k}` : k, message: 'unknown field' });
      continue;
    }
    const missing = issue.code === 'invalid_type' && / received undefined$/.test(issue.message);
    out.push({ path: base, message: missing ? 'is required' : issue.message });
  }
  return out;
}
