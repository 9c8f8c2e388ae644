import type { TestProject } from 'vitest/node';
import { launchBrowserServer } from './chromium.ts';
import { webAppBuild } from './web-build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Directory of the web build the browser tests serve (index.html + assets). */
    webRoot: string;
  }
}

/**
 * Once per browser-test run: the web app's production build (from the build cache when the
 * sources are unchanged, see web-build.ts) and one Chromium that every test file connects to
 * (each test still gets fresh contexts). Cached builds are never modified, so a concurrent
 * `npm start` or another run cannot pull files from under a running test.
 */
export default async function setup(project: TestProject) {
  const build = await webAppBuild();
  const seconds = (build.ms / 1000).toFixed(1);
  console.log(
    build.built
      ? `[e2e] web app built in ${seconds}s → ${build.dir}`
      : `[e2e] web app unchanged since its last build: ${build.dir} (${seconds}s to check)`,
  );
  project.provide('webRoot', build.dir);

  const chromium = await launchBrowserServer();
  project.provide('chromiumEndpoint', chromium.wsEndpoint());
  return async () => {
    await chromium.close();
  };
}
