/**
 * /services/index.json: every service as column arrays (see servicesIndexJson in lib/data.ts),
 * the data of the browser-side services table.
 */
import type { APIRoute } from 'astro';
import { servicesIndexJson } from '../../../lib/data.ts';

export const GET: APIRoute = async () => new Response(await servicesIndexJson(), { headers: { 'Content-Type': 'application/json' } });
