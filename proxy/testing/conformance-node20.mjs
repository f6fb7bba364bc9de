/**
 * `node --import ./proxy/testing/conformance-node20.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js ...`
 * runs the official MCP conformance CLI on Node 20. Its bundle imports `globSync` from `fs` (Node 22),
 * which only its client-auth scenarios call; on a Node without it, that one import of the bundle is
 * served by `fs` plus a `globSync` that says why it is missing. Nothing else is touched.
 */
import * as fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./conformance-node20-hooks.mjs', import.meta.url);
