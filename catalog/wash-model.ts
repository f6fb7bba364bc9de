/**
 * The wash verdict's decision thresholds (docs/wash-methodology.md §5, issue 46). The evidence
 * itself (a money trail, a group's dominance of an operator's traffic, the buyer's own life beyond
 * the operator, coordination) is defined once in classifier/ with fixed definitions; these few
 * numbers decide how much of it makes a verdict. They are not chosen by hand: `npm run eval:wash --
 * --lofo --write-model` fits them on the family generator (sources/demo/analytics/families) and
 * writes catalog/wash-model.json, which this module reads; under leave-one-family-out every family
 * is scored with thresholds fitted without it (pipelines/analytics/eval-wash-lofo.ts).
 */
import modelJson from './wash-model.json' with { type: 'json' };

export interface WashModelThresholds {
  /** Money trail: the operator's side financed at least this share of what the buyer paid it... */
  trailCover: number;
  /** ...the buyer pays the operator at least this share of its payments (its own life is the rest)... */
  trailLife: number;
  /** ...and the operator's trail-financed wallets are at least this many... */
  trailWallets: number;
  /** ...or make at least this share of the operator's payer volume... */
  trailDominance: number;
  /** ...and their payments to the operator span at least this many days (fewer or briefer: the operator's own tests). */
  trailSpanDays: number;
  /**
   * A pair that runs on a schedule is judged as the operator's own CI unless the buyer pays the operator
   * at least this share (a CI job also calls its dependencies)...
   */
  trailPeriodicLife: number;
  /** ...and the trail-financed wallets are at least this many (a company runs a few pipelines, a farm many). */
  trailPeriodicWallets: number;
  /** Cohort (no trail): a coordinated group of at least this many wallets... */
  cohortWallets: number;
  /** ...making at least this share of the operator's payer volume... */
  cohortDominance: number;
  /** ...over at least this many days... */
  cohortSpanDays: number;
  /** ...whose member pays the operator at least this share of its payments. */
  cohortLife: number;
}

export interface WashModel {
  thresholds: WashModelThresholds;
  /** How the thresholds were chosen: families and seeds fitted on, the objective, when. */
  fitted: {
    on: string;
    families: number;
    seeds: number[];
    objective: string;
    at: string;
  };
}

/**
 * What puts a wallet in its operator's money-trail group: at least this share of what it paid the
 * operator came from the operator's side (a definition, not fitted: the group's figures are counted
 * over these wallets; how much is enough for a verdict is `trailCover`).
 */
export const TRAIL_FINANCED = 0.25;

export const WASH_MODEL: WashModel = modelJson as WashModel;

/** The keys of the thresholds, in the order the fit and the page show them. */
export const MODEL_KEYS = Object.keys(WASH_MODEL.thresholds) as Array<keyof WashModelThresholds>;
