import type { Migration } from 'kysely';
import { foundation } from './001-foundation.js';
import { tickets } from './002-tickets.js';
import { webhooks } from './003-webhooks.js';
import { statistics } from './004-statistics.js';
import { fanoutPriority } from './005-fanout-priority.js';
import { authGuards } from './006-auth-guards.js';
import { tokenIdentity } from './006-token-identity.js';
import { stepEvents } from './009-step-events.js';
import { idempotency } from './010-idempotency.js';
import { hotPathIndexes } from './011-hot-path-indexes.js';
import { artifactData } from './012-artifact-data.js';
import { artifactDataUncompressed } from './013-artifact-data-uncompressed.js';
import { dropRedundantIndexes } from './014-drop-redundant-indexes.js';
import { partialTicketIndexes } from './015-partial-ticket-indexes.js';
import { partialCompleteIndexes } from './016-partial-complete-indexes.js';

/** Every migration for one engine, in order. Names sort lexically; never rename one that shipped. */
export const migrationsFor = (kind: 'sqlite' | 'postgres'): Record<string, Migration> => ({
  '001-foundation': foundation,
  '002-tickets': tickets,
  '003-webhooks': webhooks,
  '004-statistics': statistics,
  '005-fanout-priority': fanoutPriority,
  '006-auth-guards': authGuards,
  '006-token-identity': tokenIdentity,
  '009-step-events': stepEvents,
  '010-idempotency': idempotency,
  '011-hot-path-indexes': hotPathIndexes,
  '012-artifact-data': artifactData,
  '013-artifact-data-uncompressed': artifactDataUncompressed(kind),
  '014-drop-redundant-indexes': dropRedundantIndexes,
  '015-partial-ticket-indexes': partialTicketIndexes,
  '016-partial-complete-indexes': partialCompleteIndexes,
});
