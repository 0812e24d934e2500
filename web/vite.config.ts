/**
 * The branded trading page's build (issue 7): React and lightweight-charts, bundled by Vite into
 * `web/dist`, which the api serves on every tenant host (api/web.ts). `npm run build:web`.
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
});
