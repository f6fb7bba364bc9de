/**
 * Type-checks the Astro site's sources (site/src: pages, layouts, components) the way `astro check`
 * does, without its language server: Astro's own compiler turns each .astro file into the TSX
 * that editors check (convertToTSX), and TypeScript checks those beside the .ts files under the
 * repository's tsconfig.json. An import of `X.astro` resolves to X's TSX, so the props a page
 * passes a component are checked against the component's `Props`.
 *
 *   npm run site:check      (exit 1 with each error as file:line: message; npm test runs it as
 *                            site/check.test.ts, beside the other tests)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertToTSX } from '@astrojs/compiler';
import ts from 'typescript';

const SITE_ROOT = dirname(fileURLToPath(import.meta.url));
const REPO = dirname(SITE_ROOT);
const SOURCES = join(SITE_ROOT, 'src');
/** What an .astro file is checked as: `X.astro.tsx`, a name TypeScript tries for an import of `X.astro`. */
const TSX_SUFFIX = '.tsx';

export interface SiteTypeError {
  /** The file as written, relative to the repository (site/src/...). */
  file: string;
  /** 1-based (0 when the error has no place). */
  line: number;
  message: string;
}

/** The type errors of site/src, or of another folder of Astro sources inside the repository (none: an empty list). */
export async function checkSiteSources(sources = SOURCES): Promise<SiteTypeError[]> {
  const files = readdirSync(sources, { recursive: true, encoding: 'utf8' }).map((f) => join(sources, f));
  const virtual = new Map<string, string>();
  /** Per virtual file: the .astro file it comes from and the source line of each of its lines. */
  const origins = new Map<string, { file: string; lineOf: (line: number) => number }>();
  const errors: SiteTypeError[] = [];
  for (const file of files.filter((f) => f.endsWith('.astro'))) {
    const source = readFileSync(file, 'utf8');
    // <script> and <style> bodies are not template code: the scripts are checked as the browser
    // modules Astro bundles them into, one beside the page
    const tsx = await convertToTSX(source, { filename: file, includeScripts: false, includeStyles: false });
    for (const d of tsx.diagnostics.filter((d) => d.severity === 1)) {
      errors.push({ file: relative(REPO, file), line: d.location?.line ?? 0, message: d.text });
    }
    const lines = sourceLines(tsx.map.mappings);
    virtual.set(file + TSX_SUFFIX, tsx.code);
    origins.set(file + TSX_SUFFIX, { file, lineOf: (line) => lines[line - 1] ?? line });
    (tsx.metaRanges.scripts ?? [])
      .filter((script) => script.type === 'processed-module')
      .forEach((script, i) => {
        const name = `${file}.script-${i}.ts`;
        const first = source.slice(0, script.position.start).split('\n').length;
        virtual.set(name, script.content);
        origins.set(name, { file, lineOf: (line) => first + line - 1 });
      });
  }

  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    jsx: ts.JsxEmit.Preserve,
    jsxImportSource: 'astro',
    // what Astro's language server gives .astro files: Astro, Fragment, import.meta.env, `*.astro` modules
    types: [...(config.options.types ?? []), 'astro/env'],
    // the pages' scripts and components/*.ts run in the browser
    lib: [...(config.options.lib ?? []), 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.getSourceFile = (name, language, onError, create) => {
    const text = virtual.get(name);
    return text === undefined
      ? getSourceFile(name, language, onError, create)
      : ts.createSourceFile(name, text, language, true, ts.ScriptKind.TSX);
  };

  const roots = [...virtual.keys(), ...files.filter((f) => f.endsWith('.ts'))];
  const program = ts.createProgram(roots, options, host);
  const inSite = (name: string) => name.startsWith(sources + '/');
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (d.file && !inSite(d.file.fileName)) continue;
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) {
      errors.push({ file: relative(REPO, sources), line: 0, message });
      continue;
    }
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const origin = origins.get(d.file.fileName);
    errors.push({ file: relative(REPO, origin?.file ?? d.file.fileName), line: origin ? origin.lineOf(line) : line, message });
  }
  return errors;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * For each line of a generated file, the 1-based source line its first mapping points at
 * (source map v3 `mappings`: lines split by `;`, segments by `,`, base64 VLQ fields relative to
 * the previous segment's).
 */
function sourceLines(mappings: string): Array<number | undefined> {
  let sourceLine = 0;
  return mappings.split(';').map((line) => {
    let first: number | undefined;
    for (const segment of line.split(',').filter(Boolean)) {
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      if (fields.length >= 4) {
        sourceLine += fields[2]!;
        first ??= sourceLine + 1;
      }
    }
    return first;
  });
}

async function main(): Promise<void> {
  const errors = await checkSiteSources();
  for (const e of errors) process.stderr.write(`${e.file}:${e.line}: ${e.message}\n`);
  if (errors.length > 0) {
    process.stderr.write(`site/src: ${errors.length} type error${errors.length === 1 ? '' : 's'}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
