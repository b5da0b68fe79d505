'use client';
import { useEffect, useRef, useState } from 'react';
import 'swagger-ui-react/swagger-ui.css';
import { ErrorState, Loading } from '../_components/ui';

/**
 * Swagger UI, bundled with the app (no CDN at run time). We load swagger-ui-react's prebuilt,
 * self-contained bundle rather than its React component: Turbopack mis-bundles the component's
 * ApiDOM dependencies and OpenAPI 3.1 operations then fail to expand ("refract is not a function",
 * vercel/next.js#86507, swagger-api/swagger-ui#10599). The bundle renders into its own DOM node.
 */
type SwaggerUIBundle = ((options: Record<string, unknown>) => unknown) & { presets: { apis: unknown } };

function csrfToken(): string | undefined {
  const m = /(?:^|;\s*)pp_csrf=([^;]*)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]) : undefined;
}

/** `url`: the OpenAPI document to render (/openapi.json or /v2/openapi.json). */
export function ApiReference({ url }: { url: string }) {
  const node = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | { error: unknown }>('loading');
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const [doc, mod] = await Promise.all([
        fetch(url).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${url} answered ${r.status}`)))),
        // @ts-expect-error the prebuilt bundle ships no type declarations
        import('../../node_modules/swagger-ui-react/swagger-ui-bundle.js'),
      ]);
      if (cancelled || !node.current) return;
      const SwaggerUI = ((mod as { default?: SwaggerUIBundle }).default ?? mod) as SwaggerUIBundle;
      SwaggerUI({
        domNode: node.current,
        // "Try it out" calls this very server, wherever it runs
        spec: { ...doc, servers: [{ url: window.location.origin, description: 'This server' }] },
        presets: [SwaggerUI.presets.apis],
        layout: 'BaseLayout',
        deepLinking: true,
        docExpansion: 'list',
        defaultModelsExpandDepth: 0,
        // from a signed-in browser the session cookie goes along; echo the CSRF token so mutations pass
        requestInterceptor: (req: { headers: Record<string, string> }) => {
          const t = csrfToken();
          if (t) req.headers['x-csrf-token'] = t;
          return req;
        },
      });
      setState('ready');
    })().catch((error: unknown) => { if (!cancelled) setState({ error }); });
    return () => { cancelled = true; };
  }, [url]);
  return (
    <>
      {state === 'loading' ? <div className="content"><Loading label="Loading the API reference…" /></div> : null}
      {typeof state === 'object' ? <div className="content"><ErrorState error={state.error} /></div> : null}
      <div ref={node} />
    </>
  );
}
