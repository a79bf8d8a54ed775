/**
 * The web app's build (npm run build:web): React with the automatic JSX runtime, two pages (the dashboard at /app,
 * the public home page at /), every asset under /app/assets/ with a content hash. The output, web/dist/, is committed
 * so that `npm ci && npm start` serves the app without a build step (and the production image needs no devDependency);
 * test/web/build.test.ts fails when it is stale against web/src.
 */
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  mode: "production",
  root: here("."),
  base: "/app/",
  plugins: [react()],
  build: {
    outDir: here("dist"),
    emptyOutDir: true,
    assetsDir: "assets",
    // No inline scripts or data URLs: the pages' Content-Security-Policy allows scripts from 'self' only.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: { input: { app: here("index.html"), home: here("home.html") } },
  },
});
