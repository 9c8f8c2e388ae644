import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The SPA lives in src/web and builds to dist/web, which the server serves.
// VITE_API_URL (build time) points the SPA at a separate API origin; default: same origin.
export default defineConfig({
  root: 'src/web',
  publicDir: 'public',
  envDir: '../..',
  plugins: [react(), tailwindcss()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
  },
  server: {
    port: 5173,
    strictPort: false,
    proxy: {
      '/api': 'http://127.0.0.1:3000',
      '/dev/mailbox': 'http://127.0.0.1:3000',
    },
  },
});
