import { parseArgs } from 'node:util';
import { loadSettings } from '../config/settings.js';
import { startServer } from '../server.js';
import { setServingHeapGrowth } from './heap-growth.js';

/** `pressroom serve`: runs until SIGTERM or SIGINT, then stops cleanly. */
export async function serveCommand(args: string[]): Promise<number> {
  let role: string | undefined;
  try {
    role = parseArgs({ args, options: { role: { type: 'string' } } }).values.role;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\nusage: pressroom serve [--role all|api|worker]\n`);
    return 2;
  }
  if (role !== undefined && role !== 'all' && role !== 'api' && role !== 'worker') {
    process.stderr.write('--role must be all, api or worker\nusage: pressroom serve [--role all|api|worker]\n');
    return 2;
  }
  const settings = loadSettings(process.env, role ? { role } : {});
  setServingHeapGrowth();
  const server = await startServer(settings);
  server.ctx.logger.info({ url: server.url, metricsUrl: server.metricsUrl, role: settings.role, database: settings.databaseUrl ? 'postgres' : 'sqlite', data: settings.dataDir, renderThreads: settings.renderThreads, renderMaxMemoryMb: settings.renderMaxMemoryMb }, 'pressroom started');
  if (server.url) process.stdout.write(`pressroom listening on ${server.url} (rendering ${server.url}/rest, tokens ${server.url}/auth)\n`);
  if (server.metricsUrl) process.stdout.write(`pressroom worker metrics on ${server.metricsUrl}/metrics\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      server.ctx.logger.info({ signal }, 'stopping');
      server.stop().then(resolve, (err: unknown) => {
        server.ctx.logger.error({ err }, 'error while stopping');
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}
