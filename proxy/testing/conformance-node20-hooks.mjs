/** Module hooks of conformance-node20.mjs: `fs` as the conformance bundle imports it, with a globSync stub. */
const FS_WITH_GLOB_SYNC = `data:text/javascript,${encodeURIComponent(
  "export * from 'node:fs'; export { default } from 'node:fs';" +
    "export function globSync() { throw new Error('fs.globSync needs Node 22 (only the conformance client-auth scenarios use it)'); }",
)}`;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: FS_WITH_GLOB_SYNC, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
