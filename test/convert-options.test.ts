import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../src/errors.js';
import { ConvertOptionError, convertMediaType, formatConvertOptions, parseConvertOptions, selectPages } from '../src/steps/convert/options.js';
import { resolveConvert } from '../src/intake/index.js';

const parse = parseConvertOptions;
const rejects = (source: string, message: RegExp) => assert.throws(() => parse(source), (err: unknown) => err instanceof ConvertOptionError && message.test(err.message), source);

describe('convert option set', () => {
  it('reads long and short names with the contract defaults', () => {
    assert.deepEqual(parse('f=png'), { format: 'png', resolution: 150, quality: 75, pages: { kind: 'page', page: 1 }, notes: [] });
    assert.deepEqual(parse('format=jpg;resolution=300;page=2;quality=40;app=mupdf'), { format: 'jpg', resolution: 300, quality: 40, pages: { kind: 'page', page: 2 }, notes: [] });
    assert.equal(parse('F=JPEG;R=72;').format, 'jpg', 'names and values are case-insensitive, jpeg means jpg, a trailing ; is fine');
    assert.equal(parse('  f=png;a=default  ').format, 'png');
  });

  it('reads pagesets: all, single pages, ranges and n, in ascending order without repeats', () => {
    const pages = (ps: string, count: number) => selectPages(parse(`f=png;ps=${ps}`).pages, count);
    assert.deepEqual(pages('all', 4), [1, 2, 3, 4]);
    assert.deepEqual(pages('1-3,5,7-9', 10), [1, 2, 3, 5, 7, 8, 9]);
    assert.deepEqual(pages('3-n', 5), [3, 4, 5]);
    assert.deepEqual(pages('n', 5), [5]);
    assert.deepEqual(pages('5,1-2,2', 5), [1, 2, 5]);
    assert.deepEqual(pages('2-9', 3), [2, 3], 'pages beyond the document are skipped');
    assert.deepEqual(pages('7-9', 3), []);
    assert.deepEqual(pages('1-9007199254740991', 2), [1, 2], 'a huge range costs nothing');
    assert.equal(parse('f=png;p=4;ps=1').pages.kind, 'pageset', 'pageset overrides page');
    assert.match(parse('f=png;p=4;ps=1').notes[0]!, /overrides page/);
  });

  it('refuses pageset syntax errors', () => {
    for (const ps of ['', '1-', '-3', '3-1', '0', '0-2', 'a-b', '1,,2', 'n-2', '1-2-3', '1.5']) rejects(`f=png;ps=${ps}`, /pageset/);
    rejects('f=png;ps=1;2', /"2" is not a key=value pair/);
    rejects('f=png;ps=1 ,2', /only one conversion step/);
  });

  it('falls back to the default resolution for invalid values and bounds huge ones', () => {
    for (const r of ['0', '-5', 'abc', '1.5', '', '1e3']) {
      const o = parse(`f=png;r=${r}`);
      assert.equal(o.resolution, 150, r);
      assert.match(o.notes[0]!, /resolution .* invalid.*using 150/, r);
    }
    assert.equal(parse('f=png;r=1').resolution, 1);
    assert.equal(parse('f=png;r=600').resolution, 600);
    const huge = parse('f=png;r=99999999999999999999');
    assert.equal(huge.resolution, 600);
    assert.match(huge.notes[0]!, /above the maximum; using 600/);
  });

  it('falls back to the default quality outside 0-100', () => {
    for (const q of ['101', '-1', 'high', '']) assert.equal(parse(`f=jpg;q=${q}`).quality, 75, q);
    assert.equal(parse('f=jpg;q=0').quality, 0);
    assert.equal(parse('f=jpg;q=100').quality, 100);
  });

  it('refuses a missing or unsupported format, unknown or repeated options, bad pages, other converters and pipelines', () => {
    rejects('r=150', /format is mandatory/);
    rejects('f=gif', /format "gif" is not supported/);
    rejects('f=', /format is mandatory/);
    rejects('f=png;dpi=300', /unknown option "dpi"/);
    rejects('f=png;f=jpg', /given twice/);
    rejects('f=png;format=jpg', /given twice/);
    rejects('png', /not a key=value pair/);
    rejects('f=png;p=0', /page "0"/);
    rejects('f=png;p=two', /page "two"/);
    rejects('f=png;a=ghostscript', /app "ghostscript" is not available/);
    rejects('f=png;r=72 f=jpg', /only one conversion step/);
  });

  it('names the output type and a canonical spelling', () => {
    assert.equal(convertMediaType(parse('f=png')), 'image/png');
    assert.equal(convertMediaType(parse('f=jpg;p=3')), 'image/jpeg');
    assert.equal(convertMediaType(parse('f=jpg;ps=all')), 'application/zip');
    assert.equal(formatConvertOptions(parse('f=jpg;r=72;ps=1-3,5,7-n,n;q=10')), 'format=jpg;resolution=72;pageset=1-3,5,7-n,n;quality=10');
  });
});

describe('convert at intake', () => {
  const badRequest = (fn: () => unknown, message: RegExp) =>
    assert.throws(fn, (err: unknown) => err instanceof AppError && err.status === 400 && err.details?.[0]?.field === 'convert' && message.test(err.publicMessage));

  it('takes the query over the configuration; an empty query value switches conversion off', () => {
    assert.deepEqual(resolveConvert('pdf', 'f=jpg', 'f=png;ps=all'), { source: 'f=jpg', mediaType: 'image/jpeg' });
    assert.deepEqual(resolveConvert('pdf', undefined, 'f=png;ps=all'), { source: 'f=png;ps=all', mediaType: 'application/zip' });
    assert.equal(resolveConvert('pdf', '', 'f=png'), undefined);
    assert.equal(resolveConvert('pdf', undefined, null), undefined);
  });

  it('refuses convert on renderpptx in the query and ignores a configured one there', () => {
    badRequest(() => resolveConvert('pptx', 'f=png', undefined), /renderpdf only/);
    assert.equal(resolveConvert('pptx', undefined, 'f=png'), undefined);
  });

  it('answers 400 naming convert, and says when the configuration is at fault', () => {
    badRequest(() => resolveConvert('pdf', 'f=gif', undefined), /^convert: format "gif"/);
    badRequest(() => resolveConvert('pdf', undefined, 'f=png;ps=3-1'), /runs backwards \(from restapi\/config\.ion\)/);
  });
});
