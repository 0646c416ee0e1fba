import type { SandboxArgs, SandboxFailure, SandboxJob, SandboxReply } from './sandbox-protocol.js';
import type { SaxonApi, SaxonDocument, SaxonError, SaxonResultTarget, SefNode } from './saxon-types.js';

/**
 * The program of a sandbox process: locks the process down, loads SaxonJS, then compiles and
 * runs stylesheets sent over IPC.
 *
 * It is shipped as source text (`sandboxMain.toString()`, see sandbox-command.ts), so the
 * same code runs from src under tsx and from dist, and the process needs no read access to
 * pressroom's own files. Hence the rule for this function: it uses nothing from module scope —
 * only type imports, globals and `process.getBuiltinModule`.
 */
export function sandboxMain(args: SandboxArgs): void {
  const send = (message: unknown): void => {
    process.send?.(message);
  };
  const fail = (why: string): never => {
    process.stderr.write(`transform sandbox: ${why}\n`);
    process.exit(70);
  };

  // 1. The permission model must be on: reads limited to SaxonJS, no writes, no processes.
  const permission = process.permission;
  if (!permission || permission.has('fs.write') || permission.has('child') || permission.has('worker') || permission.has('fs.read', '/etc')) {
    fail('started without the Node.js permission model restrictions');
  }

  // 2. No network, whatever SaxonJS or a stylesheet tries (Node 20 permissions do not cover it).
  const refuse = (what: string) => (): never => {
    throw new Error(`${what} is not available in the transform sandbox`);
  };
  const net = process.getBuiltinModule('node:net');
  net.Socket.prototype.connect = refuse('network access');
  net.connect = refuse('network access');
  net.createConnection = refuse('network access');
  for (const id of ['node:http', 'node:https'] as const) {
    const mod = process.getBuiltinModule(id);
    mod.request = refuse('network access');
    mod.get = refuse('network access');
  }
  process.getBuiltinModule('node:tls').connect = refuse('network access');
  process.getBuiltinModule('node:dgram').createSocket = refuse('network access');
  Object.assign(process.getBuiltinModule('node:dns'), { lookup: refuse('name resolution') });
  globalThis.fetch = () => Promise.reject(new Error('network access is not available in the transform sandbox'));
  process.on('unhandledRejection', (reason) => process.stderr.write(`unhandled rejection: ${String(reason)}\n`));

  // 3. SaxonJS loads axios for its HTTP resource loader: hand it a stub instead.
  const Module = process.getBuiltinModule('node:module') as unknown as {
    _load: (request: string, ...rest: unknown[]) => unknown;
    createRequire: (path: string) => (id: string) => unknown;
  };
  const load = Module._load;
  Module._load = function (this: unknown, request: string, ...rest: unknown[]) {
    if (request === 'axios') return { get: refuse('network access'), request: refuse('network access') };
    return load.call(this, request, ...rest);
  };
  const SaxonJS = Module.createRequire(args.saxonPath)(args.saxonPath) as SaxonApi;

  // 4. SaxonJS's own ways out: files, URLs, and JavaScript objects reachable from XSLT
  //    (`js:` functions, `ixsl:window()`, `ixsl:get`/`ixsl:call`) see an empty global object.
  const platform = SaxonJS.getPlatform();
  const deny = (what: string) => (): never => {
    throw new SaxonJS.XError(`${what} is not available in the transform sandbox`, 'FODC0002');
  };
  platform.readFile = deny('reading files or URLs');
  platform.resourcePromise = deny('reading files or URLs');
  platform.makeHttpRequest = deny('HTTP access');
  platform.writeFileSync = deny('writing files');
  platform.writeFileAsync = deny('writing files');
  platform.globalObject = Object.freeze(Object.create(null));

  const sefs = new Map<string, SefNode>();
  const standardErrors = 'Q{http://www.w3.org/2005/xqt-errors}';

  const decode = (bytes: Uint8Array, xml: boolean): string => {
    let label = 'utf-8';
    if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
    else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
    else if (xml && !(bytes[0] === 0xef && bytes[1] === 0xbb)) {
      const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
      label = /^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1] ?? 'utf-8';
    }
    return new TextDecoder(label, { fatal: true }).decode(bytes);
  };

  const encode = (text: string): Uint8Array => {
    const declared = /^<\?xml[^>]*?encoding="([^"]+)"/.exec(text)?.[1]?.toLowerCase() ?? 'utf-8';
    if (declared === 'utf-8' || declared === 'utf8') return Buffer.from(text, 'utf8');
    if (declared === 'iso-8859-1' || declared === 'latin1' || declared === 'us-ascii') return Buffer.from(text, 'latin1');
    if (declared === 'utf-16') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    throw new SaxonJS.XError(`output encoding ${declared} is not supported (use UTF-8, UTF-16 or ISO-8859-1)`, 'PRSM0003');
  };

  const failure = (kind: SandboxFailure['kind'], err: unknown): SandboxFailure => {
    const e = err as SaxonError;
    const code = typeof e?.code === 'string' ? e.code.replace(standardErrors, '') : null;
    const overflow = err instanceof RangeError && /call stack/i.test(err.message);
    const message = (overflow ? 'stack overflow: recursion too deep (does a template or function recurse without end?)' : String(e?.message ?? err))
      .replaceAll(`/${args.stylesheetBaseUri}`, args.stylesheetBaseUri)
      .slice(0, 2000);
    let line: number | null = null;
    if (kind === 'compile') {
      const where = /on line (\d+)/.exec(`${String(e?.errorObject ?? '')} ${message}`);
      line = where ? Number(where[1]) : null;
    } else if (e?.xsltModule === args.stylesheetBaseUri && e.xsltLineNr !== undefined) {
      line = Number(e.xsltLineNr);
    }
    if (code === 'PRSM0001' || code === 'PRSM0003' || code?.startsWith('SE')) kind = 'output';
    return { kind, xsltCode: code && /^(PRSM|Node|ERR_)/.test(code) ? null : code, line, message };
  };

  /** Parses XML text; sax counts lines from 0, people from 1. */
  const parseXml = (text: string, what: string): SaxonDocument => {
    try {
      return platform.parseXmlFromString(text);
    } catch (err) {
      const message = String((err as Error).message).replace(/at line (\d+) column (\d+)/, (_m, l: string, c: string) => `at line ${Number(l) + 1}, column ${c}`);
      throw Object.assign(new Error(`${what} is not well-formed XML: ${message}`), { code: undefined });
    }
  };

  const addParents = (node: SefNode): void => {
    for (const child of node.C ?? []) {
      child.parentNode = node;
      addParents(child);
    }
  };

  // Saxon's checksum over a SEF tree; SaxonJS refuses a SEF without it. Same algorithm as xslt3 -export.
  const addChecksum = (sef: SefNode): void => {
    const sigma = String.fromCharCode(931);
    const hash = (s: string, seed: number): number => {
      let h = seed << 8;
      for (let i = 0; i < s.length; i++) h = (h << 1) + s.charCodeAt(i);
      return h;
    };
    let sum = 0;
    let position = 0;
    const visit = (node: SefNode): void => {
      sum ^= hash(node.N, position) ^ hash('http://ns.saxonica.com/xslt/export', position);
      position++;
      for (const key of Object.keys(node)) {
        if (key === 'N' || key === 'C' || key === sigma) continue;
        sum ^= hash(key, position) ^ hash('', position);
        const value = node[key];
        sum ^= hash(typeof value === 'string' ? value : '', position);
      }
      for (const child of node.C ?? []) visit(child);
      sum ^= 1;
    };
    visit(sef);
    sef[sigma] = (sum < 0 ? 4294967295 + sum + 1 : sum).toString(16);
  };

  /** XSLT text to SEF with SaxonJS's XX compiler (itself a compiled stylesheet), as `xslt3 -export` does. */
  const compile = (stylesheet: Uint8Array): SefNode => {
    const doc = parseXml(decode(stylesheet, true), 'the stylesheet');
    doc._saxonBaseUri = args.stylesheetBaseUri;
    doc._saxonDocUri = args.stylesheetBaseUri;
    const compiler = platform.resource('compiler');
    addParents(compiler);
    const staticParams = new SaxonJS.XdmMap();
    staticParams.inSituPut(SaxonJS.XS.QName.fromParts('', '', 'staticParameters'), [new SaxonJS.XdmMap()]);
    const options = SaxonJS.checkOptions({
      destination: 'application',
      initialMode: 'compile-complete',
      templateParams: { 'Q{}options': { noXPath: false } },
      stylesheetParams: staticParams,
      stylesheetInternal: compiler,
      deliverMessage: () => undefined,
    });
    SaxonJS.internalTransform(compiler, doc, options);
    const result = options.principalResult;
    const tree = (Array.isArray(result) ? result[0] : result) as SaxonDocument;
    const sef = SaxonJS.XPath.sefToJSON(tree.firstChild, false);
    addChecksum(sef);
    return sef;
  };

  const cachedSef = (key: string, text: string): SefNode => {
    let sef = sefs.get(key);
    if (sef) sefs.delete(key);
    else sef = JSON.parse(text) as SefNode;
    sefs.set(key, sef);
    while (sefs.size > args.sefCacheSize) sefs.delete(sefs.keys().next().value!);
    return sef;
  };

  const source = (job: SandboxJob, text: string): unknown => {
    if (job.inputType === 'xml') return parseXml(text, 'the input');
    try {
      return SaxonJS.XPath.evaluate('json-to-xml($json)', null, { params: { json: text } });
    } catch (err) {
      throw Object.assign(new Error(`the input is not valid JSON: ${(err as Error).message}`), { code: undefined });
    }
  };

  /** Compiles (or takes the cached SEF), then transforms; failures come back as replies. */
  const run = (job: SandboxJob): SandboxReply => {
    const messages: string[] = [];
    let sef: SefNode;
    let sefText: string | null = null;
    try {
      if (job.sef !== null) {
        sef = cachedSef(job.sefKey, job.sef);
      } else {
        sef = compile(job.stylesheet ?? new Uint8Array());
        sefText = JSON.stringify(sef);
      }
    } catch (err) {
      return { ok: false, failure: failure('compile', err), sef: null, messages };
    }
    try {
      const inputText = decode(job.input, job.inputType === 'xml');
      const params = new SaxonJS.XdmMap();
      const put = (name: string, value: string): void =>
        params.inSituPut(SaxonJS.XS.QName.fromParts('', '', name), [SaxonJS.XS.untypedAtomic.fromString(value)]);
      for (const [name, value] of Object.entries(job.params)) put(name, value);
      if (job.inputType === 'json') put('json', inputText);
      let principal: string | null = null;
      const target: SaxonResultTarget = {
        destination: 'serialized',
        save: (uri, text) => {
          if (String(uri) === args.outputUri) principal = text;
          else throw new SaxonJS.XError(`xsl:result-document is not allowed (href ${String(uri)}); write only the principal result`, 'PRSM0001');
        },
      };
      const result = SaxonJS.transform(
        {
          stylesheetInternal: sef,
          sourceNode: source(job, inputText),
          destination: 'serialized',
          baseOutputURI: args.outputUri,
          stylesheetParams: params,
          deliverResultDocument: () => target,
          deliverMessage: (message: unknown) => {
            if (messages.length < 20) messages.push(String(message).slice(0, 500));
          },
        },
        'sync',
      );
      const text = principal ?? (typeof result.principalResult === 'string' ? result.principalResult : '');
      return { ok: true, output: encode(text), sef: sefText, messages };
    } catch (err) {
      return { ok: false, failure: failure('runtime', err), sef: sefText, messages };
    }
  };

  // The pool's envelope (engines/pool/protocol.ts), spelled out: this function imports nothing.
  process.on('message', (message: { id: number; job: SandboxJob }) => send({ id: message.id, result: run(message.job) }));
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}
