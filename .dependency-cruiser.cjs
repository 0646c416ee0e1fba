// The floor plan of docs/architecture (DESIGN.md "Imports point down this list"), checked by
// `npm run lint`: a module may import modules of its own layer or of layers below it, never above.
// cli/ and server.ts wire everything and are not checked as importers.

/** Layers from the top of the request path down to the stores; one line of DESIGN.md each. */
const layers = [
  { name: 'wiring', path: '^src/(cli/|server\\.ts$)' },
  { name: 'http', path: '^src/http/' },
  { name: 'studio', path: '^src/studio/' },
  { name: 'intake', path: '^src/intake/' },
  // The Studio's preview: a request-path service over the engines, beside intake.
  { name: 'preview', path: '^src/preview/' },
  { name: 'steps', path: '^src/steps/' },
  { name: 'engines', path: '^src/engines/' },
  { name: 'tickets', path: '^src/tickets/' },
  { name: 'webhooks', path: '^src/webhooks/' },
  { name: 'repository', path: '^src/repository/' },
  { name: 'domain', path: '^src/(auth|tenants|stats|assets|net|zip|xml|metrics)/' },
  { name: 'config', path: '^src/config/(?!(settings|memory-ceiling)\\.ts$)' },
  { name: 'store', path: '^src/store/' },
  { name: 'blobs', path: '^src/blobs/' },
  // Leaves every layer reads: the settings (validated once, frozen; with the machine-derived
  // default of the memory ceiling) and the error catalogue.
  { name: 'leaves', path: '^src/(config/(settings|memory-ceiling)|errors)\\.ts$' },
];

/**
 * Imports that still cross the plan, each waiting for a move of issue 11 item 1. Delete an entry
 * when its move lands; lint then keeps the import from coming back.
 */
const allowed = [
  // Settings check PRESSROOM_BLOB_URL with the blob store's own parser, so a bad URL is reported
  // with every other setting problem at start (permanent: the parser imports only the port's key check).
  { from: '^src/config/settings\\.ts$', to: '^src/blobs/blob-(url|store)\\.ts$' },
];

/**
 * Drivers and the query builder (and their type packages), for the rule that only store/ imports
 * them; no exceptions left. Matched anywhere in the resolved path, because a worktree whose
 * node_modules is a link resolves them to e.g. `../main/node_modules/kysely/dist/cjs/index.js`.
 */
const drivers = '(^|/)node_modules/(@types/)?(kysely|pg|better-sqlite3)/|^(kysely|pg|better-sqlite3)(/|$)';

/** One rule, minus the allowed edges: their importers leave the rule and get a rule of their own. */
function withExceptions(rule, exceptions) {
  const mine = exceptions.filter((e) => new RegExp(rule.from.path).test(fileLike(e.from)));
  const byFrom = new Map();
  for (const e of mine) byFrom.set(e.from, [...(byFrom.get(e.from) ?? []), e.to]);
  const main = { ...rule, from: { ...rule.from, pathNot: [...list(rule.from.pathNot), ...byFrom.keys()] } };
  const extra = [...byFrom].map(([from, tos]) => ({ ...rule, from: { path: from }, to: { ...rule.to, pathNot: [...list(rule.to.pathNot), ...tos] } }));
  return [main, ...extra];
}
const list = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
/** A path an allow-list regex stands for (strip the anchors and escapes). */
const fileLike = (re) => re.replace(/^\^/, '').replace(/\$$/, '').replace(/\\\./g, '.');

const layerRules = layers.slice(1).flatMap((layer, i) => {
  const above = layers.slice(0, i + 1).filter((l) => l.name !== 'http');
  if (above.length === 0) return [];
  return withExceptions(
    {
      name: `layer-${layer.name}`,
      comment: `${layer.name} imports only its own layer and the ones below it (${above.map((l) => l.name).join(', ')} are above)`,
      severity: 'error',
      from: { path: layer.path },
      to: { path: above.map((l) => `(${l.path})`).join('|') },
    },
    allowed,
  );
});

module.exports = {
  forbidden: [
    {
      name: 'no-http-imports',
      comment: 'Nothing imports http/: it is the top of the request path (only cli/ and server.ts wire it).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(http/|cli/|server\\.ts$)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'engines-pure',
      comment: 'Engines are bytes in, bytes out: they import other engine modules and packages, no domain module (the ZIP reader, a bounded byte utility over yauzl, excepted).',
      severity: 'error',
      from: { path: '^src/engines/' },
      to: { path: '^src/', pathNot: ['^src/engines/', '^src/zip/reader\\.ts$'] },
    },
    {
      name: 'drivers-in-store-only',
      comment: 'Only store/ talks to the database: kysely, pg and better-sqlite3 are imported nowhere else.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: drivers },
    },
    ...withExceptions(
      {
        name: 'layer-context',
        comment: 'The Context every module is handed is importable from anywhere, so it wires nothing above the domain modules.',
        severity: 'error',
        from: { path: '^src/context\\.ts$' },
        to: { path: layers.slice(0, layers.findIndex((l) => l.name === 'domain')).map((l) => `(${l.path})`).join('|') },
      },
      allowed,
    ),
    ...layerRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
