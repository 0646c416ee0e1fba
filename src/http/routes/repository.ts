import type { FastifyInstance } from 'fastify';
import type { Context } from '../../context.js';

/** Repository files and trees. */
export async function repositoryRoutes(_app: FastifyInstance, _ctx: Context): Promise<void> {}
