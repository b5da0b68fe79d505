/** @type {import('next').NextConfig} */
const nextConfig = {
  // trpc-to-openapi must stay a plain node module under webpack (see STYLE.md)
  serverExternalPackages: ['trpc-to-openapi', 'better-sqlite3'],
  poweredByHeader: false,
  reactStrictMode: true,
};
export default nextConfig;
