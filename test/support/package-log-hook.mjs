// `node --import` hook of a child process in tests: appends the URL of every file it resolves
// under node_modules to the file PACKAGE_LOG names, so a test can tell which packages the
// process has loaded (test/sso-libraries-on-demand.e2e-spec.ts).
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const log = process.env.PACKAGE_LOG;
if (log) {
  registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      if (resolved.url.includes('/node_modules/')) appendFileSync(log, `${resolved.url}\n`);
      return resolved;
    },
  });
}
