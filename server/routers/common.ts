import { z } from 'zod';

const required = (otherwise: string) => (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : otherwise);

/**
 * trpc-to-openapi turns on `coerce` for every number/boolean it finds in an input schema (bodies
 * included, and it mutates the shared schema). A pipe hides the field from it, so "250" stays a 400
 * on REST and tRPC alike. Every number and boolean in an input goes through these.
 */
export const cents = (max = 100_000_000_000) =>
  z.number({ error: required('must be an integer number of cents') })
    .int('must be an integer number of cents')
    .min(1, 'must be at least 1 cent')
    .max(max, `must be at most ${max} cents`)
    .pipe(z.number());

export const strictInt = (min: number, max: number) =>
  z.number({ error: required('must be an integer') }).int('must be an integer').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`).pipe(z.number());

/**
 * A whole number that may arrive from a query string: "20" over REST, 20 over tRPC. Only digits pass
 * (no "2.5", "1e3", " 7"); the range is then checked as strictInt does.
 */
export const queryInt = (min: number, max: number) =>
  z.union([z.number(), z.string().regex(/^\d{1,9}$/, 'must be an integer').transform(Number)], { error: 'must be an integer' }).pipe(strictInt(min, max));

export const strictBool = () => z.boolean({ error: required('must be true or false') }).pipe(z.boolean());

export const boundedString = (max: number, min = 1) =>
  z.string({ error: required('must be a string') }).trim().min(min, min === 1 ? 'must not be empty' : `at least ${min} characters`).max(max, `at most ${max} characters`);

export const isoTimestamp = z.string().describe('ISO 8601 timestamp');

/** Cursor pagination shared by the dashboard lists. */
export const listInput = z.strictObject({
  cursor: z.string().max(200).nullish(),
  limit: strictInt(1, 100).optional(),
});

/**
 * A schema of a type the domain owns (the view types of server/domain), checked at compile time in both
 * directions: what it parses is a `T` (as `satisfies z.ZodType<T>` alone checks) and every `T` is what
 * it parses, so a field the domain adds, drops, widens or makes nullable fails here until the schema
 * (and so the OpenAPI document) says the same.
 */
export function describes<T>() {
  return <S extends z.ZodType<T>>(schema: S & ([T] extends [z.output<S>] ? unknown : { error: 'the domain type has values the schema refuses' })): S => schema;
}
