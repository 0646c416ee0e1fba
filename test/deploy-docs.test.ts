// The deployment documentation's artifacts agree with the code: the Kubernetes manifests in
// docs/deploy/kubernetes/ (structure, labels, ports, probes, settings, secret keys) and the
// Grafana dashboard in docs/grafana-dashboard.json (panels, metric names, labels).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { parseAllDocuments } from 'yaml';
import { definitions, InvalidSettingsError, loadSettings } from '../src/config/settings.js';
import { installMetrics } from '../src/http/metrics.js';
import { ServiceMetrics } from '../src/metrics/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifestDir = 'docs/deploy/kubernetes';
const read = (path: string) => readFileSync(join(root, path), 'utf8');

type Obj = Record<string, unknown>;

function obj(value: unknown, what: string): Obj {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${what} must be a mapping`);
  return value as Obj;
}
function list(value: unknown, what: string): unknown[] {
  assert.ok(Array.isArray(value), `${what} must be a list`);
  return value;
}
function text(value: unknown, what: string): string {
  assert.ok(typeof value === 'string' && value.length > 0, `${what} must be a non-empty string`);
  return value;
}
const optionalList = (value: unknown, what: string): unknown[] => (value === undefined ? [] : list(value, what));

interface Manifest {
  file: string;
  kind: string;
  name: string;
  body: Obj;
}

const settingNames = new Set(Object.values(definitions).map((d) => d.env));

/** Every YAML document of every file in the manifest folder. */
function loadManifests(): Manifest[] {
  const files = readdirSync(join(root, manifestDir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  assert.ok(files.length > 0, `no YAML files in ${manifestDir}`);
  const out: Manifest[] = [];
  for (const file of files) {
    const docs = parseAllDocuments(read(`${manifestDir}/${file}`));
    for (const [i, doc] of docs.entries()) {
      assert.deepEqual(doc.errors.map((e) => e.message), [], `${file}: YAML errors in document ${i + 1}`);
      const body: unknown = doc.toJS();
      if (body === null || body === undefined) continue;
      const where = `${file} document ${i + 1}`;
      const o = obj(body, where);
      text(o.apiVersion, `${where}: apiVersion`);
      const kind = text(o.kind, `${where}: kind`);
      const name = text(obj(o.metadata, `${where}: metadata`).name, `${where}: metadata.name`);
      assert.match(name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, `${where}: metadata.name must be a DNS-1123 label`);
      out.push({ file, kind, name, body: o });
    }
  }
  return out;
}

const manifests = loadManifests();
const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
function find(kind: string, name: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && m.name === name);
  assert.equal(found.length, 1, `exactly one ${kind} ${name} in ${manifestDir}`);
  return found[0]!;
}

const podTemplate = (m: Manifest) => obj(obj(m.body.spec, `${m.kind} ${m.name}: spec`).template, `${m.kind} ${m.name}: spec.template`);
const podLabels = (m: Manifest) => obj(obj(podTemplate(m).metadata, `${m.name}: template metadata`).labels, `${m.name}: template labels`);
const podSpec = (m: Manifest) => obj(podTemplate(m).spec, `${m.kind} ${m.name}: pod spec`);
const containers = (m: Manifest) => list(podSpec(m).containers, `${m.name}: containers`).map((c, i) => obj(c, `${m.name}: container ${i}`));
/** All labels of `selector` have the same value in `labels`. */
const selects = (selector: Obj, labels: Obj) => Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

const workloads = () => [...ofKind('Deployment'), ...ofKind('Job'), ...ofKind('StatefulSet'), ...ofKind('DaemonSet')];

/** The command line of a container: command followed by args. */
const commandLine = (c: Obj) => [...optionalList(c.command, 'command'), ...optionalList(c.args, 'args')].map((a) => String(a));

interface EnvSource {
  value?: string;
  secret?: { name: string; key: string };
}

/** The environment a container gets: envFrom ConfigMaps and Secrets, then env entries. */
function containerEnv(c: Obj, where: string): Map<string, EnvSource> {
  const env = new Map<string, EnvSource>();
  for (const [i, raw] of optionalList(c.envFrom, `${where}: envFrom`).entries()) {
    const from = obj(raw, `${where}: envFrom ${i}`);
    if (from.configMapRef !== undefined) {
      const name = text(obj(from.configMapRef, `${where}: configMapRef`).name, `${where}: configMapRef.name`);
      const data = obj(find('ConfigMap', name).body.data ?? {}, `ConfigMap ${name}: data`);
      for (const [k, v] of Object.entries(data)) env.set(k, { value: String(v) });
    } else if (from.secretRef !== undefined) {
      const name = text(obj(from.secretRef, `${where}: secretRef`).name, `${where}: secretRef.name`);
      for (const key of secretKeys(find('Secret', name))) env.set(key, { secret: { name, key } });
    } else assert.fail(`${where}: envFrom ${i} has neither configMapRef nor secretRef`);
  }
  for (const [i, raw] of optionalList(c.env, `${where}: env`).entries()) {
    const entry = obj(raw, `${where}: env ${i}`);
    const name = text(entry.name, `${where}: env ${i} name`);
    if (entry.value !== undefined) {
      assert.equal(typeof entry.value, 'string', `${where}: ${name} must be a string (quote numbers and booleans)`);
      env.set(name, { value: entry.value as string });
      continue;
    }
    const from = obj(entry.valueFrom, `${where}: ${name} needs value or valueFrom`);
    if (from.secretKeyRef !== undefined) {
      const ref = obj(from.secretKeyRef, `${where}: ${name} secretKeyRef`);
      env.set(name, { secret: { name: text(ref.name, `${where}: ${name} secret name`), key: text(ref.key, `${where}: ${name} secret key`) } });
    } else if (from.configMapKeyRef !== undefined) {
      const ref = obj(from.configMapKeyRef, `${where}: ${name} configMapKeyRef`);
      const map = find('ConfigMap', text(ref.name, `${where}: ${name} ConfigMap name`));
      const key = text(ref.key, `${where}: ${name} ConfigMap key`);
      const data = obj(map.body.data ?? {}, `ConfigMap ${map.name}: data`);
      assert.ok(key in data, `${where}: ${name} refers to key ${key}, which ConfigMap ${map.name} does not have`);
      env.set(name, { value: String(data[key]) });
    } else env.set(name, {});
  }
  return env;
}

function secretKeys(secret: Manifest): string[] {
  const data = obj(secret.body.data ?? {}, `Secret ${secret.name}: data`);
  const stringData = obj(secret.body.stringData ?? {}, `Secret ${secret.name}: stringData`);
  return [...Object.keys(data), ...Object.keys(stringData)];
}

/** The literal (non-secret) values of an environment, as loadSettings reads them. */
const literalEnv = (env: Map<string, EnvSource>): NodeJS.ProcessEnv =>
  Object.fromEntries([...env].filter(([, s]) => s.value !== undefined).map(([k, s]) => [k, s.value]));

/** A Kubernetes quantity in bytes (memory) or cores (cpu). */
function quantity(value: unknown, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(value));
  assert.ok(m, `${what}: ${String(value)} is not a quantity`);
  const factor: Record<string, number> = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(m[1]) * (m[2] ? factor[m[2]]! : 1);
}

/** The container port a probe or Service targets, by name or number. */
function resolvePort(port: unknown, c: Obj, what: string): number {
  const ports = optionalList(c.ports, `${what}: ports`).map((p) => obj(p, `${what}: port`));
  const match = ports.find((p) => (typeof port === 'string' ? p.name === port : p.containerPort === port));
  assert.ok(match, `${what}: port ${String(port)} is not a container port (${ports.map((p) => `${String(p.name)}=${String(p.containerPort)}`).join(', ')})`);
  return match.containerPort as number;
}

describe('Kubernetes manifests in docs/deploy/kubernetes', () => {
  it('have the objects docs/deploy.md describes, each named once per kind', () => {
    for (const [kind, name] of [
      ['Secret', 'pressroom-secrets'],
      ['ConfigMap', 'pressroom-config'],
      ['Deployment', 'pressroom-api'],
      ['Deployment', 'pressroom-worker'],
      ['Service', 'pressroom-api'],
      ['Job', 'pressroom-migrate'],
    ] as const) {
      find(kind, name);
    }
    const ids = manifests.map((m) => `${m.kind}/${m.name}`);
    assert.equal(new Set(ids).size, ids.length, `an object is defined twice: ${ids.join(', ')}`);
  });

  it('are each linked from docs/deploy.md', () => {
    const doc = read('docs/deploy.md');
    for (const file of new Set(manifests.map((m) => m.file))) assert.ok(doc.includes(`](deploy/kubernetes/${file})`), `docs/deploy.md does not link ${file}`);
  });

  it('Deployments select their own pods, and no two workloads share pod labels', () => {
    for (const d of ofKind('Deployment')) {
      const matchLabels = obj(obj(obj(d.body.spec, `${d.name}: spec`).selector, `${d.name}: spec.selector`).matchLabels, `${d.name}: spec.selector.matchLabels`);
      assert.ok(Object.keys(matchLabels).length > 0, `${d.name}: empty matchLabels`);
      assert.ok(selects(matchLabels, podLabels(d)), `${d.name}: spec.selector.matchLabels ${JSON.stringify(matchLabels)} do not match the pod labels ${JSON.stringify(podLabels(d))}`);
      for (const other of workloads().filter((w) => w !== d)) {
        assert.ok(!selects(matchLabels, podLabels(other)), `${d.name}'s selector also matches the pods of ${other.kind} ${other.name}`);
      }
    }
  });

  it('every workload runs the same image, with a tag, and names the CLI entry point', () => {
    const images = new Set<string>();
    for (const w of workloads()) {
      const cs = containers(w);
      assert.ok(cs.length > 0, `${w.name}: no containers`);
      for (const c of cs) {
        const image = text(c.image, `${w.name}: image`);
        assert.match(image, /:[\w.-]+$/, `${w.name}: image ${image} needs an explicit tag`);
        images.add(image);
        assert.deepEqual(commandLine(c).slice(0, 2), ['node', 'dist/cli/main.js'], `${w.name}: command`);
      }
    }
    assert.equal(images.size, 1, `one release: every workload runs the same image, got ${[...images].join(', ')}`);
  });

  for (const role of ['api', 'worker'] as const) {
    it(`pressroom-${role} runs \`serve --role ${role}\``, () => {
      const d = find('Deployment', `pressroom-${role}`);
      const roles = containers(d).map((c) => {
        const line = commandLine(c);
        if (line[2] !== 'serve') return null;
        const at = line.indexOf('--role');
        return at >= 0 ? line[at + 1] : line.find((a) => a.startsWith('--role='))?.slice('--role='.length);
      });
      assert.ok(roles.includes(role), `pressroom-${role}: no container runs serve --role ${role} (${JSON.stringify(containers(d).map(commandLine))})`);
    });
  }

  it('pressroom-api listens on 0.0.0.0 on its container port, with liveness on /healthz and readiness on /readyz there', () => {
    const d = find('Deployment', 'pressroom-api');
    const c = containers(d).find((x) => commandLine(x).includes('serve'))!;
    const env = containerEnv(c, 'pressroom-api');
    const settings = loadSettings(literalEnv(env));
    assert.ok(['0.0.0.0', '::'].includes(settings.host), `PRESSROOM_HOST is ${settings.host}: other pods cannot connect`);
    const ports = optionalList(c.ports, 'pressroom-api: ports').map((p) => obj(p, 'port').containerPort);
    assert.ok(ports.includes(settings.port), `PRESSROOM_PORT ${settings.port} is not a container port (${ports.join(', ')})`);

    const probe = (key: string, path: string, required: boolean) => {
      if (c[key] === undefined && !required) return;
      const httpGet = obj(obj(c[key], `pressroom-api: ${key}`).httpGet, `pressroom-api: ${key}.httpGet`);
      assert.equal(httpGet.path, path, `pressroom-api: ${key} path`);
      assert.equal(resolvePort(httpGet.port, c, `pressroom-api: ${key}`), settings.port, `pressroom-api: ${key} must reach the port pressroom listens on`);
    };
    probe('livenessProbe', '/healthz', true);
    probe('readinessProbe', '/readyz', true);
    probe('startupProbe', '/healthz', false);
  });

  it('pressroom-worker has no HTTP probes (a worker opens no port), and no Service selects it', () => {
    const d = find('Deployment', 'pressroom-worker');
    for (const c of containers(d)) {
      for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
        assert.ok(c[key] === undefined || obj(c[key], key).httpGet === undefined, `pressroom-worker: ${key} uses HTTP, but a worker serves none`);
      }
    }
    for (const s of ofKind('Service')) {
      const selector = obj(obj(s.body.spec, `${s.name}: spec`).selector ?? {}, `${s.name}: selector`);
      assert.ok(!selects(selector, podLabels(d)), `Service ${s.name} selects the worker pods`);
    }
  });

  it('pressroom-worker gets longer to stop than PRESSROOM_SHUTDOWN_GRACE_MS, and memory for every render thread at the ceiling', () => {
    const d = find('Deployment', 'pressroom-worker');
    const c = containers(d).find((x) => commandLine(x).includes('serve'))!;
    const env = containerEnv(c, 'pressroom-worker');
    assert.ok(env.get('PRESSROOM_RENDER_THREADS')?.value, 'pressroom-worker must set PRESSROOM_RENDER_THREADS: the default is the node\'s cores, not the container\'s');
    const settings = loadSettings(literalEnv(env));
    const grace = podSpec(d).terminationGracePeriodSeconds;
    assert.equal(typeof grace, 'number', 'pressroom-worker: terminationGracePeriodSeconds');
    assert.ok((grace as number) * 1000 >= settings.shutdownGraceMs + 5000, `terminationGracePeriodSeconds ${String(grace)} must exceed PRESSROOM_SHUTDOWN_GRACE_MS ${settings.shutdownGraceMs} by at least 5 s`);

    const resources = obj(c.resources, 'pressroom-worker: resources');
    const limit = quantity(obj(resources.limits, 'pressroom-worker: limits').memory, 'limits.memory');
    const needed = settings.renderThreads * settings.renderMaxMemoryMb * 2 ** 20;
    assert.ok(limit >= needed, `memory limit ${limit / 2 ** 20} MiB is below ${settings.renderThreads} render threads × ${settings.renderMaxMemoryMb} MiB`);
    const cpu = quantity(obj(resources.requests, 'pressroom-worker: requests').cpu, 'requests.cpu');
    assert.ok(cpu >= settings.renderThreads, `cpu request ${cpu} is below the ${settings.renderThreads} render threads (render slots ≈ cores)`);
  });

  it('the migrate Job runs `migrate` once, without restarts in place', () => {
    const job = find('Job', 'pressroom-migrate');
    assert.ok(containers(job).some((c) => commandLine(c)[2] === 'migrate'), 'pressroom-migrate: no container runs migrate');
    assert.ok(['Never', 'OnFailure'].includes(String(podSpec(job).restartPolicy)), 'a Job needs restartPolicy Never or OnFailure');
    assert.ok(containerEnv(containers(job)[0]!, 'pressroom-migrate').has('PRESSROOM_DATABASE_URL'), 'pressroom-migrate needs PRESSROOM_DATABASE_URL');
  });

  it('the Service selects exactly the API pods and targets the port pressroom listens on', () => {
    const api = find('Deployment', 'pressroom-api');
    const c = containers(api).find((x) => commandLine(x).includes('serve'))!;
    const listening = loadSettings(literalEnv(containerEnv(c, 'pressroom-api'))).port;
    const spec = obj(find('Service', 'pressroom-api').body.spec, 'Service pressroom-api: spec');
    const selector = obj(spec.selector, 'Service pressroom-api: selector');
    assert.ok(selects(selector, podLabels(api)), `Service selector ${JSON.stringify(selector)} does not match the API pods ${JSON.stringify(podLabels(api))}`);
    for (const w of workloads().filter((x) => x !== api)) assert.ok(!selects(selector, podLabels(w)), `Service pressroom-api also selects ${w.kind} ${w.name}`);
    const ports = list(spec.ports, 'Service pressroom-api: ports').map((p) => obj(p, 'Service port'));
    assert.ok(ports.length > 0);
    for (const p of ports) assert.equal(resolvePort(p.targetPort ?? p.port, c, 'Service pressroom-api'), listening, 'Service targetPort');
  });

  it('PodDisruptionBudgets select the pods of exactly one Deployment', () => {
    for (const pdb of ofKind('PodDisruptionBudget')) {
      const matchLabels = obj(obj(obj(pdb.body.spec, `${pdb.name}: spec`).selector, `${pdb.name}: selector`).matchLabels, `${pdb.name}: matchLabels`);
      const hit = workloads().filter((w) => selects(matchLabels, podLabels(w)));
      assert.deepEqual(hit.map((w) => w.name), [pdb.name], `PodDisruptionBudget ${pdb.name} selects ${hit.map((w) => w.name).join(', ') || 'nothing'}`);
    }
  });

  it('every PRESSROOM_* name in the manifests, comments included, is a setting of settings.ts', () => {
    const unknown: string[] = [];
    for (const file of new Set(manifests.map((m) => m.file))) {
      for (const [name] of read(`${manifestDir}/${file}`).matchAll(/\bPRESSROOM_[A-Z0-9_]+/g)) if (!settingNames.has(name)) unknown.push(`${file}: ${name}`);
    }
    for (const w of workloads()) {
      for (const c of containers(w)) {
        for (const name of containerEnv(c, w.name).keys()) if (name.startsWith('PRESSROOM_') && !settingNames.has(name)) unknown.push(`${w.name}: ${name}`);
      }
    }
    for (const m of ofKind('ConfigMap')) {
      for (const name of Object.keys(obj(m.body.data ?? {}, `${m.name}: data`))) if (!settingNames.has(name) && !name.startsWith('AWS_')) unknown.push(`ConfigMap ${m.name}: ${name}`);
    }
    assert.deepEqual(unknown, [], 'names that are not settings (see docs/configuration.md)');
  });

  it('the settings in ConfigMaps and env values are valid, so every process starts with them', () => {
    for (const w of workloads()) {
      for (const c of containers(w)) {
        const env = literalEnv(containerEnv(c, w.name));
        assert.doesNotThrow(() => loadSettings(env), `${w.name}: ${JSON.stringify(env)}`);
      }
    }
  });

  it('every secretKeyRef names a Secret of the manifests and one of its keys', () => {
    const refs: string[] = [];
    for (const w of workloads()) {
      for (const c of containers(w)) {
        for (const [name, source] of containerEnv(c, w.name)) {
          if (!source.secret) continue;
          refs.push(name);
          const secret = find('Secret', source.secret.name);
          assert.ok(secretKeys(secret).includes(source.secret.key), `${w.name}: ${name} refers to key ${source.secret.key}, which Secret ${secret.name} does not have (${secretKeys(secret).join(', ')})`);
        }
      }
    }
    assert.ok(refs.includes('PRESSROOM_DATABASE_URL'), 'the database URL comes from a Secret');
  });

  it('API and workers get the same database, blob store, JWT secret and seal key', () => {
    const shared = ['PRESSROOM_DATABASE_URL', 'PRESSROOM_DATABASE_SCHEMA', 'PRESSROOM_BLOB_URL', 'PRESSROOM_S3_REGION', 'PRESSROOM_S3_ENDPOINT', 'PRESSROOM_JWT_SECRET', 'PRESSROOM_SEAL_KEY', 'PRESSROOM_JWT_ISSUER', 'PRESSROOM_JWT_AUDIENCE'];
    const envOf = (name: string) => containerEnv(containers(find('Deployment', name)).find((c) => commandLine(c).includes('serve'))!, name);
    const api = envOf('pressroom-api');
    const worker = envOf('pressroom-worker');
    for (const name of shared) assert.deepEqual(api.get(name), worker.get(name), `${name} differs between pressroom-api and pressroom-worker`);
    for (const name of ['PRESSROOM_DATABASE_URL', 'PRESSROOM_JWT_SECRET', 'PRESSROOM_SEAL_KEY']) assert.ok(api.get(name)?.secret, `${name} must come from a Secret`);
  });

  it('the Secret\'s placeholder JWT secret and seal key are refused at start, as docs/deploy.md says', () => {
    const secret = find('Secret', 'pressroom-secrets');
    const values = obj(secret.body.stringData, 'Secret pressroom-secrets: stringData');
    const env = { PRESSROOM_JWT_SECRET: String(values['jwt-secret']), PRESSROOM_SEAL_KEY: String(values['seal-key']) };
    assert.throws(
      () => loadSettings(env),
      (err: unknown) => err instanceof InvalidSettingsError && err.problems.some((p) => p.includes('PRESSROOM_JWT_SECRET')) && err.problems.some((p) => p.includes('PRESSROOM_SEAL_KEY')),
    );
  });
});

/** Metrics the dashboard may use beyond those of src/http/metrics.ts, with their type and labels. */
const plannedMetrics: Record<string, { type: 'counter' | 'gauge' | 'histogram'; labels: string[] }> = {
  pressroom_tickets: { type: 'gauge', labels: ['state', 'next'] },
  pressroom_oldest_due_ticket_age_seconds: { type: 'gauge', labels: [] },
  pressroom_step_duration_seconds: { type: 'histogram', labels: ['step', 'target'] },
  pressroom_step_outcomes_total: { type: 'counter', labels: ['step', 'outcome', 'error_code'] },
  pressroom_webhook_attempts_total: { type: 'counter', labels: ['step', 'outcome'] },
  pressroom_engine_slots: { type: 'gauge', labels: ['engine', 'state'] },
  pressroom_blob_errors_total: { type: 'counter', labels: ['op'] },
};

/** Labels Prometheus adds to every scraped series. */
const targetLabels = ['job', 'instance', 'pod', 'namespace'];

const promqlKeywords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** Metric names an expression selects: identifiers outside strings, label sets, ranges and groupings that are not functions or keywords. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names: string[] = [];
  for (const m of bare.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = bare.slice(m.index + m[0].length).trimStart();
    if (after.startsWith('(') || promqlKeywords.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return names;
}

describe('Grafana dashboard docs/grafana-dashboard.json', () => {
  let app: FastifyInstance;
  /** Series name → family, type and labels, from the planned metrics and the registry of src/http/metrics.ts. */
  const series = new Map<string, { family: string; type: string; labels: Set<string> }>();

  before(async () => {
    for (const [family, m] of Object.entries(plannedMetrics)) {
      const labels = new Set(m.labels);
      if (m.type === 'histogram') {
        series.set(`${family}_bucket`, { family, type: 'histogram', labels: new Set([...labels, 'le']) });
        series.set(`${family}_count`, { family, type: 'histogram', labels });
        series.set(`${family}_sum`, { family, type: 'histogram', labels });
      } else series.set(family, { family, type: m.type, labels });
    }
    // The real registry: one request so that labelled series exist, then every metric with its labels.
    app = Fastify();
    const registry = installMetrics(app, new ServiceMetrics().registry);
    app.get('/probe', async () => 'ok');
    await app.ready();
    await app.inject({ method: 'GET', url: '/probe' });
    for (const metric of await registry.getMetricsAsJSON()) {
      const type = String(metric.type);
      const names = type === 'histogram' ? ['_bucket', '_count', '_sum'].map((s) => metric.name + s) : type === 'summary' ? [metric.name, `${metric.name}_count`, `${metric.name}_sum`] : [metric.name];
      // A planned metric keeps its declared labels: with no samples yet, the registry shows none.
      for (const name of names) if (!series.has(name)) series.set(name, { family: metric.name, type, labels: new Set() });
      for (const v of metric.values as { labels: Record<string, unknown>; metricName?: string }[]) {
        for (const label of Object.keys(v.labels)) series.get(v.metricName ?? metric.name)?.labels.add(label);
      }
      if (type === 'histogram') for (const s of names) for (const l of series.get(`${metric.name}_count`)!.labels) series.get(s)!.labels.add(l);
    }
    assert.ok(series.has('pressroom_http_request_duration_seconds_bucket'), 'src/http/metrics.ts no longer defines pressroom_http_request_duration_seconds');
  });
  after(() => app.close());

  const dashboard = (): Obj => obj(JSON.parse(read('docs/grafana-dashboard.json')) as unknown, 'dashboard');
  const panels = () => list(dashboard().panels, 'panels').map((p, i) => obj(p, `panel ${i}`));
  const targets = (p: Obj) => list(p.targets, `panel ${String(p.title)}: targets`).map((t, i) => obj(t, `panel ${String(p.title)}: target ${i}`));

  it('is JSON with schemaVersion 36 or newer and a Prometheus data source variable', () => {
    const d = dashboard();
    text(d.title, 'title');
    assert.ok(typeof d.schemaVersion === 'number' && d.schemaVersion >= 36, `schemaVersion ${String(d.schemaVersion)}`);
    const variables = list(obj(d.templating, 'templating').list, 'templating.list').map((v) => obj(v, 'variable'));
    const ds = variables.find((v) => v.type === 'datasource' && v.query === 'prometheus');
    assert.ok(ds, 'a template variable of type datasource for Prometheus');
    const ref = '${' + text(ds.name, 'variable name') + '}';
    for (const p of panels()) {
      for (const where of [p, ...targets(p)]) {
        const uid = obj(where.datasource, `panel ${String(p.title)}: datasource`).uid;
        assert.equal(uid, ref, `panel ${String(p.title)} must use the data source variable`);
      }
    }
  });

  it('every panel has a title, a position, a unique id and at least one target with an expression', () => {
    const ids = new Set<unknown>();
    for (const p of panels()) {
      const title = text(p.title, 'panel title');
      assert.ok(!ids.has(p.id), `panel id ${String(p.id)} used twice`);
      ids.add(p.id);
      obj(p.gridPos, `${title}: gridPos`);
      const ts = targets(p);
      assert.ok(ts.length > 0, `${title}: no targets`);
      for (const t of ts) text(t.expr, `${title}: expr`);
      assert.equal(new Set(ts.map((t) => t.refId)).size, ts.length, `${title}: refIds must differ`);
    }
  });

  it('uses only the planned metrics and those of src/http/metrics.ts, with their labels, and all of the planned ones', (t) => {
    const used = new Set<string>();
    for (const p of panels()) {
      for (const target of targets(p)) {
        const expr = target.expr as string;
        const names = metricNames(expr);
        assert.ok(names.length > 0, `${String(p.title)}: ${expr} selects no metric`);
        for (const name of names) {
          const s = series.get(name);
          assert.ok(s, `${String(p.title)}: ${name} is neither a planned metric nor one of src/http/metrics.ts`);
          used.add(s.family);
        }
        const inExpr = names.map((n) => series.get(n)!);
        const known = new Set([...targetLabels, ...inExpr.flatMap((s) => [...s.labels])]);
        for (const [, name, matchers] of expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}/g)) {
          for (const [, label] of matchers!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)\s*"/g)) {
            assert.ok(series.get(name!)!.labels.has(label!) || targetLabels.includes(label!), `${String(p.title)}: ${name} has no label ${label}`);
          }
        }
        for (const [, labels] of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
          for (const label of labels!.split(',').map((l) => l.trim()).filter(Boolean)) assert.ok(known.has(label), `${String(p.title)}: grouping by ${label}, which none of ${names.join(', ')} has`);
        }
        for (const [, name] of expr.matchAll(/\b(?:rate|irate|increase)\s*\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/g)) {
          assert.notEqual(series.get(name!)!.type, 'gauge', `${String(p.title)}: rate() of the gauge ${name}`);
        }
        if (expr.includes('histogram_quantile(')) assert.ok(names.some((n) => n.endsWith('_bucket')), `${String(p.title)}: histogram_quantile needs a _bucket series`);
      }
    }
    t.diagnostic(`metrics used: ${[...used].sort().join(', ')}`);
    const missing = [...Object.keys(plannedMetrics), 'pressroom_http_request_duration_seconds'].filter((m) => !used.has(m));
    assert.deepEqual(missing, [], 'metrics without a panel');
  });

  it('metricNames finds the metrics of an expression and nothing else', () => {
    assert.deepEqual(metricNames('histogram_quantile(0.95, sum by (le, step) (rate(pressroom_step_duration_seconds_bucket{step!~"a|b"}[$__rate_interval])))'), ['pressroom_step_duration_seconds_bucket']);
    assert.deepEqual(metricNames('sum by (engine) (pressroom_engine_slots{state="busy"}) / sum by (engine) (pressroom_engine_slots)'), ['pressroom_engine_slots', 'pressroom_engine_slots']);
    assert.deepEqual(metricNames('max(pressroom_oldest_due_ticket_age_seconds) > 60'), ['pressroom_oldest_due_ticket_age_seconds']);
  });
});

describe('README links the deployment guide', () => {
  it('from the Documentation table and from the end of the scale-out section', () => {
    const readme = read('README.md');
    const documentation = readme.slice(readme.indexOf('\n## Documentation\n'));
    assert.match(documentation, /^\| \[docs\/deploy\.md\]\(docs\/deploy\.md\) \|/m);
    const scaleOut = readme.slice(readme.indexOf('\n## Scale-out with PostgreSQL and S3\n'), readme.indexOf('\n## Documentation\n'));
    assert.match(scaleOut, /\]\(docs\/deploy\.md\)/);
  });
});
