import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { gzipSync } from 'node:zlib';
import { defineConfig, loadEnv, type Plugin } from 'vite';

/**
 * Prints the JavaScript the landing route needs on first load (the entry chunk, the landing
 * page's chunk and everything they import statically), gzipped, against its 130 KB budget.
 */
function landingBudget(limitKb = 130): Plugin {
  return {
    name: 'proofmail-landing-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const byName = new Map(chunks.map((c) => [c.fileName, c]));
      const roots = chunks.filter(
        (c) => c.isEntry || c.facadeModuleId?.endsWith('features/public/landing-page.tsx'),
      );
      const seen = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        for (const dep of byName.get(file)?.imports ?? []) visit(dep);
      };
      roots.forEach((c) => visit(c.fileName));
      const bytes = [...seen].reduce((sum, f) => sum + gzipSync(byName.get(f)!.code).length, 0);
      const kb = bytes / 1024;
      const verdict = kb <= limitKb ? 'within' : 'OVER';
      console.log(
        `\nLanding route initial JS: ${kb.toFixed(1)} KB gzip (${verdict} the ${limitKb} KB budget)`,
      );
    },
  };
}

// The dev server proxies to the API on PORT, from the environment or .env like the server reads it.
function apiTarget(mode: string): string {
  const port = process.env.PORT || loadEnv(mode, process.cwd(), '').PORT || '3000';
  return `http://127.0.0.1:${port}`;
}

// The SPA lives in src/web and builds to dist/web, which the server serves.
// VITE_API_URL (build time) points the SPA at a separate API origin; default: same origin.
export default defineConfig(({ mode }) => ({
  root: 'src/web',
  publicDir: 'public',
  envDir: '../..',
  plugins: [react(), tailwindcss(), landingBudget()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
    // Every browser of the es2022 target but Safari 15.4–16 preloads modules natively; there the
    // lazy chunks still load, only without the head start (docs/decisions/0087-no-modulepreload-polyfill.md).
    modulePreload: { polyfill: false },
  },
  server: {
    port: 5173,
    strictPort: false,
    // changeOrigin: the API answers only the Host of PUBLIC_URL or a loopback name with its port
    // (src/server/http/host-allowlist.ts), so the proxy names the API server, not Vite's port.
    proxy: {
      '/api': { target: apiTarget(mode), changeOrigin: true },
      '/dev/mailbox': { target: apiTarget(mode), changeOrigin: true },
    },
  },
}));
