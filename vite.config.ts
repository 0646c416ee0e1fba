// Builds the Studio (src/studio) into dist/studio, served by the service at /studio.
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('./src/studio', import.meta.url));

export default defineConfig({
  root,
  base: '/studio/',
  plugins: [preact({ prefreshEnabled: false })],
  // The default template and its sample are read from templates/ at build time.
  server: { fs: { allow: [fileURLToPath(new URL('.', import.meta.url))] } },
  build: {
    outDir: fileURLToPath(new URL('./dist/studio', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
    // Fonts and the PDF worker stay separate files (cached, loaded on demand), never inlined.
    assetsInlineLimit: 0,
  },
});
