// Writes templates/pptx/default.pptx, the built-in master deck, from the code in
// src/engines/pptx/default-master. Run: node --import tsx scripts/build-default-pptx.ts
// test/pptx-default-master.test.ts fails when the committed file and the code disagree.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDefaultMaster } from '../src/engines/pptx/default-master/index.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'templates', 'pptx', 'default.pptx');
mkdirSync(dirname(target), { recursive: true });
const deck = await buildDefaultMaster();
writeFileSync(target, deck);
console.log(`wrote ${target} (${deck.length} bytes)`);
