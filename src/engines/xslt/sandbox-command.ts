import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { NodeCommand } from '../pool/index.js';
import type { SandboxArgs } from './sandbox-protocol.js';
import { sandboxMain } from './sandbox-main.js';

/** Absolute path of SaxonJS2N.js; its folder is the only one a sandbox process may read. */
export const saxonPath = realpathSync(createRequire(import.meta.url).resolve('saxon-js'));
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** How a sandbox process is started; docs/transform.md explains each flag. */
export function sandboxCommand(args: Omit<SandboxArgs, 'saxonPath'>, maxMemoryMb: number): NodeCommand {
  const full: SandboxArgs = { ...args, saxonPath };
  // tsx (esbuild keepNames) wraps functions in __name(); outside tsx the shim is unused.
  const source = `const __name = (f, n) => Object.defineProperty(f, 'name', { value: n, configurable: true });
(${sandboxMain.toString()})(${JSON.stringify(full)});`;
  return {
    args: [
      nodeMajor >= 22 ? '--permission' : '--experimental-permission',
      `--allow-fs-read=${dirname(saxonPath)}`,
      '--disallow-code-generation-from-strings',
      `--max-old-space-size=${maxMemoryMb}`,
      '--disable-warning=ExperimentalWarning',
      '--input-type=module',
      '-e',
      source,
    ],
    env: {},
    cwd: dirname(saxonPath),
  };
}
