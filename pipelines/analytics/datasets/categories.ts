/**
 * categories (free document): all 33 categories, empty ones included, by 24-hour volume
 * descending (then slug). Shares are over 30 days; median_price is over the category's services
 * with a known price. volume_30d is the base of the two shares.
 */
import { CATEGORIES } from '../../../catalog/categories.ts';
import type { DatasetStep } from '../../runner.ts';
import { documentStep, queryJsonPieces, stamp } from './sql.ts';

/** A category_facts row as the catalog's CategoryStats STRUCT, for to_json. */
export function categoryStatsSql(alias: string): string {
  return `struct_pack(
    slug := ${alias}.slug, title := ${alias}.title, services_count := ${alias}.services_count,
    active_services_24h := ${alias}.active_services_24h, tx_24h := ${alias}.tx_24h, volume_24h := ${alias}.volume_24h,
    tx_total := ${alias}.tx_total, real_volume_pct := ${alias}.real_volume_pct, wash_pct := ${alias}.wash_pct,
    median_price := ${alias}.median_price, volume_30d := ${alias}.volume_30d)`;
}

export const categoriesStep: DatasetStep = documentStep('categories', async (ctx) => {
  const pieces = await queryJsonPieces(
    ctx,
    `SELECT to_json(list(${categoryStatsSql('f')} ORDER BY f.volume_24h DESC, f.slug)) AS categories
       FROM category_facts f`,
  );
  return { ...stamp(ctx), total_categories: CATEGORIES.length, categories: pieces.categories };
});
