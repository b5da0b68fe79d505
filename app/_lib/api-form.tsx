'use client';
import { useTranslations } from 'next-intl';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { output, ZodType } from 'zod';
import { focusFirstInvalid, FormError } from '../_components/ui';
import { useDescribeApiError, useValidate, type FieldErrors } from './api-errors';

/**
 * What every dashboard form does the same way: validate with the API's own zod schema before sending
 * (field messages, focus on the first field to fix, nothing sent), and show the API's refusal in
 * place, by field where it names one, without touching what was typed (the inputs' state is the
 * form's own and is never reset here).
 */
export function useApiForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const [fields, setFields] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const t = useTranslations('errors');
  const validate = useValidate();
  const describeApiError = useDescribeApiError();

  const refuse = (problems: FieldErrors, message: string) => {
    setFields(problems);
    setError(message);
    focusFirstInvalid(formRef.current);
  };

  return {
    formRef,
    fields,
    error,
    /**
     * The schema's verdict on `input`, merged with problems only the form can see (`extra`, e.g. an
     * amount typed as "12,345"); `ignore` drops schema messages a form explains better itself.
     * Returns the parsed input to send, or null after showing the messages.
     */
    check<S extends ZodType>(schema: S, input: unknown, o: { extra?: FieldErrors; ignore?: string[] } = {}): output<S> | null {
      const v = validate(schema, input);
      const problems: FieldErrors = { ...(v.ok ? {} : v.fields), ...o.extra };
      for (const k of o.ignore ?? []) delete problems[k];
      if (!v.ok || Object.keys(problems).length) {
        // a schema failure hidden by `ignore` still blocks sending, with the form's own messages
        refuse(problems, t('fieldsNeedAttention'));
        return null;
      }
      setFields({});
      setError(null);
      return v.data;
    },
    /** For a mutation's onError: the API's messages, in place. */
    showApiError(err: unknown) {
      const d = describeApiError(err);
      refuse(d.fields, d.message);
    },
    /** Problems the form found itself after the schema passed (e.g. a key the directory does not know). */
    refuse,
    setError,
  };
}

export type ApiFormState = ReturnType<typeof useApiForm>;

/** The <form> around it: no browser bubbles (the schema speaks), the form-level message on top. */
export function ApiForm({ form, onSubmit, className, children, label }: {
  form: ApiFormState; onSubmit: () => void; className?: string; children: ReactNode; label?: string;
}) {
  return (
    <form ref={form.formRef} className={className ?? 'form'} aria-label={label} noValidate
      onSubmit={(e: FormEvent) => { e.preventDefault(); onSubmit(); }}>
      <FormError message={form.error} />
      {children}
    </form>
  );
}
