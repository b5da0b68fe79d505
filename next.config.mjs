import createNextIntlPlugin from 'next-intl/plugin';

// the dashboard's language comes from i18n/request.ts (the person's setting), not from the URL
const withNextIntl = createNextIntlPlugin('./i18n/request.ts');

/** @type {import('next').NextConfig} */
const nextConfig = {
  // trpc-to-openapi must stay a plain node module under webpack (see STYLE.md)
  serverExternalPackages: ['trpc-to-openapi', 'better-sqlite3'],
  poweredByHeader: false,
  reactStrictMode: true,
  // `npm run typecheck` (tsc over the whole repo, tests and server included) is the type check; the
  // build does not repeat it, so a type error in a test file cannot block packaging the pages.
  typescript: { ignoreBuildErrors: true },
};
export default withNextIntl(nextConfig);
