/**
 * The layers of the tree, checked by dependency-cruiser (lib/layers.test.ts runs it in `npm test`).
 * Imports flow downhill:
 *
 *   lib/, catalog/   the bottom: settings, arguments, DuckDB helpers; the catalog of services
 *   classifier/      the wash classifier's SQL: the pipeline runs it over every payment, the
 *                    proxy's wash check over one address's published payments (one implementation)
 *   sources/         the raw tables and their contract; demo world, live adapters, file import
 *   payments/        x402: a scheme per network kind (requirements, verify, describe), settlement,
 *                    the paywall, nonce stores, receipts; the payer (client/) apart; above lib/ and
 *                    catalog/ only, so the proxy, the scripts and the benchmarks share it
 *   snapshots/       the published files: writer, manifest, the verified reader
 *   pipelines/       the runner and the per-service steps
 *   site/, proxy/    what serves the snapshots
 *   bench/, scripts/ tools on top; nothing imports them
 *
 * The layer rules hold for production code and the testing/ helpers; a test file may reach up to
 * wire what it tests (a proxy test runs the pipeline to have a snapshot to serve). Cycles are
 * forbidden everywhere.
 *
 * Show the violations: npm run layers
 */
const TEST = '\\.test\\.ts$';
/** testing/ folders and testing.ts modules: helpers for tests and benchmarks. */
const TESTING = '(^|/)testing(/|\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Two modules that need each other are one module, or a third one is missing (type-only imports count too).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-is-the-bottom',
      severity: 'error',
      comment: 'lib/ imports nothing of ours but lib/.',
      from: { path: '^lib/', pathNot: TEST },
      to: { path: '^(catalog|classifier|payments|sources|snapshots|pipelines|site|proxy|bench|scripts)/' },
    },
    {
      name: 'catalog-above-lib-only',
      severity: 'error',
      comment: 'catalog/ imports only lib/ and catalog/.',
      from: { path: '^catalog/', pathNot: TEST },
      to: { path: '^(classifier|payments|sources|snapshots|pipelines|site|proxy|bench|scripts)/' },
    },
    {
      name: 'classifier-above-catalog-only',
      severity: 'error',
      comment: 'classifier/ builds SQL over tables its caller names; it imports only lib/, catalog/ and classifier/.',
      from: { path: '^classifier/', pathNot: TEST },
      to: { path: '^(payments|sources|snapshots|pipelines|site|proxy|bench|scripts)/' },
    },
    {
      name: 'payments-above-catalog-only',
      severity: 'error',
      comment:
        'payments/ imports only lib/, catalog/ and payments/: the proxy, MCP, the scripts and the benchmarks use it, never the other way round.',
      from: { path: '^payments/', pathNot: TEST },
      to: { path: '^(classifier|sources|snapshots|pipelines|site|proxy|bench|scripts)/' },
    },
    {
      name: 'payments-server-not-client',
      severity: 'error',
      comment: 'The payer (payments/client/) signs payments; the server side never imports it (tests and testing/ helpers may, to pay).',
      from: { path: '^payments/', pathNot: `(${TEST}|${TESTING}|^payments/client/)` },
      to: { path: '^payments/client/' },
    },
    {
      name: 'snapshots-below-pipelines',
      severity: 'error',
      comment: 'snapshots/ imports only lib/, catalog/ and snapshots/: the pipelines write through it, the site and proxy read through it.',
      from: { path: '^snapshots/', pathNot: TEST },
      to: { path: '^(classifier|payments|sources|pipelines|site|proxy|bench|scripts)/' },
    },
    {
      name: 'sources-below-pipelines',
      severity: 'error',
      comment: 'sources/ fills the raw tables (sources/contract.ts); the pipelines call it, never the other way round.',
      from: { path: '^sources/', pathNot: TEST },
      to: { path: '^(classifier|payments|snapshots|pipelines|site|proxy|bench|scripts)/' },
    },
    {
      name: 'steps-read-raw-tables',
      severity: 'error',
      comment:
        "Pipeline steps read the raw tables a source filled, never a source's own modules (sources/analytics.ts and sources/korea.ts pick the steps). " +
        'The CLI takes its default seed from the demo world and the wash evaluation runs on it by design.',
      from: {
        path: '^pipelines/',
        pathNot: `(${TEST}|${TESTING}|^pipelines/cli\\.ts$|^pipelines/analytics/eval-wash(-challenge|-lofo)?\\.ts$)`,
      },
      to: { path: '^sources/(demo|live|file)/' },
    },
    {
      name: 'pipelines-below-site-and-proxy',
      severity: 'error',
      comment: 'pipelines/ publishes snapshots; what serves them sits above.',
      from: { path: '^pipelines/', pathNot: TEST },
      to: { path: '^(site|proxy|bench|scripts)/' },
    },
    {
      name: 'proxy-reads-snapshots-only',
      severity: 'error',
      comment: 'proxy/ serves the published snapshots; it never runs pipeline code or imports the site or the tools.',
      from: { path: '^proxy/', pathNot: TEST },
      to: { path: '^(pipelines|site|bench|scripts)/' },
    },
    {
      name: 'site-reads-snapshots-only',
      severity: 'error',
      comment: 'site/ builds from the published snapshots; it never reads the warehouse, runs pipeline code or imports the proxy.',
      from: { path: '^site/', pathNot: TEST },
      to: { path: '^(classifier|payments|sources|pipelines|proxy|bench|scripts)/' },
    },
    {
      name: 'site-through-the-reader',
      severity: 'error',
      comment: 'site/ reads snapshots through snapshots/reader.ts (verified, checksums checked); manifest.ts only for its types.',
      from: { path: '^site/', pathNot: TEST },
      to: { path: '^snapshots/', pathNot: '^snapshots/(reader|manifest)\\.ts$' },
    },
    {
      name: 'site-manifest-types-only',
      severity: 'error',
      comment: "site/ may name the manifest types; parsing a manifest is the reader's job.",
      from: { path: '^site/', pathNot: TEST },
      to: { path: '^snapshots/manifest\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'tools-on-top',
      severity: 'error',
      comment: 'bench/ and scripts/ are entry points: nothing but themselves imports them.',
      from: { pathNot: '^(bench|scripts)/' },
      to: { path: '^(bench|scripts)/' },
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      comment: 'Test files and testing/ helpers are for tests and benchmarks only.',
      from: { pathNot: `(${TEST}|${TESTING}|^bench/)` },
      to: { path: `(${TEST}|${TESTING})` },
    },
  ],
  options: {
    // type-only imports are dependencies too (a cycle of types is still a cycle)
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^site/dist/|^snapshots/store/' },
    moduleSystems: ['es6'],
    skipAnalysisNotInRules: true,
    cache: false,
  },
};
